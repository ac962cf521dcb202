"""Pass options declared once, as the fields of a frozen dataclass: the registry's
options (``-p``, ``--list-passes``, ``--help``) and the constructor derive from them."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

import pytest
from xdsl.dialects.builtin import ModuleOp

from xrelay.dialects.relay.mixed_precision import MixedPrecisionCategory
from xrelay.pass_manager import Pass, PassContext, PassInfo, get_pass, register_pass
from xrelay.pass_manager.options import argument, dataclass_options, option, set_info
from xrelay.pass_manager.registry import lookup


def test_options_come_from_the_fields():
    entry = lookup("FuseOps")
    assert entry.options == (("fuse_opt_level", int, -1),)
    assert entry.option_help == (
        "fusion level; -1: the PassContext's opt_level, 0: one op per function",
    )
    view = lookup("view-graph")
    assert [o[0] for o in view.options] == ["path", "func", "times"]
    assert lookup("RelayToKernels").options == (
        ("entry", str, "main"),
        ("profile", bool, False),
    )


def test_dataclass_pass_is_frozen_and_keeps_identity_and_str():
    a = get_pass("FuseOps", fuse_opt_level=2)
    b = get_pass("FuseOps", fuse_opt_level=2)
    assert a.fuse_opt_level == 2  # type: ignore[attr-defined]
    assert a != b  # compared by identity, as before
    with pytest.raises(dataclasses.FrozenInstanceError):
        a.fuse_opt_level = 3  # type: ignore[attr-defined]
    assert str(a).startswith("Run Module pass: FuseOps")
    with pytest.raises(ValueError, match="fuse_opt_level"):
        get_pass("FuseOps", fuse_opt_level=-2)


def test_a_new_option_is_one_line():
    @dataclass(frozen=True, eq=False, repr=False)
    class Scale(Pass):
        factor: int = option(2, "the factor")
        label: str = option("", "a label")  # the one line adding an option

        def __post_init__(self) -> None:
            set_info(self, PassInfo(0, "TestScaleOptions"))

        def apply(self, op: ModuleOp, ctx: PassContext, kind: Any) -> ModuleOp:
            return op

    assert dataclass_options(Scale) == (
        ("factor", int, 2, "the factor"),
        ("label", str, "", "a label"),
    )
    assert Scale(label="x").info.name == "TestScaleOptions"


def test_options_declared_twice_are_refused():
    @dataclass(frozen=True, eq=False, repr=False)
    class Twice(Pass):
        n: int = option(1, "n")

    with pytest.raises(TypeError, match="declares its options twice"):
        register_pass("TestTwiceOptions", options=[("n", int, 1)])(Twice)


def test_an_option_needs_a_default():
    @dataclass(frozen=True, eq=False, repr=False)
    class NoDefault(Pass):
        n: int

    with pytest.raises(TypeError, match="needs a default"):
        dataclass_options(NoDefault)


def test_every_registered_pass_is_a_frozen_dataclass():
    """One shape for every pass: options or not, the registry's factories are frozen
    dataclasses compared by identity."""
    from xrelay.pass_manager.registry import all_entries

    for entry in all_entries():
        params = getattr(entry.factory, "__dataclass_params__", None)
        assert params is not None, entry.name
        assert params.frozen, entry.name
        assert not params.eq, entry.name


def test_parse_as_and_normalise_and_argument():
    """``option(parse_as=...)``: the type ``-p`` parses when the API takes more;
    ``__post_init__`` normalises the value; ``argument`` is no option."""
    convert = lookup("ConvertLayout")
    assert convert.options == (("desired_layouts", str, ""),)
    from_text = get_pass("convert-layout", desired_layouts="nn.conv2d=NHWC:default")
    from_dict = get_pass(
        "ConvertLayout", desired_layouts={"nn.conv2d": ["NHWC", "OHWI"]}
    )
    assert from_text.desired_layouts == {"relay.nn.conv2d": ["NHWC", "default"]}  # type: ignore[attr-defined]
    assert from_dict.desired_layouts == {"relay.nn.conv2d": ["NHWC", "OHWI"]}  # type: ignore[attr-defined]
    unused = lookup("RemoveUnusedFunctions")
    assert unused.options == (("entry_functions", tuple[str, ...], ("main",)),)
    assert unused.create(entry_functions="f").entry_functions == ("f",)  # type: ignore[attr-defined]
    assert unused.create(entry_functions=["f", "g"]).entry_functions == ("f", "g")  # type: ignore[attr-defined]
    mixed = lookup("ToMixedPrecision")
    assert [o[0] for o in mixed.options] == [
        "mixed_precision_type",
        "always_ops",
        "follow_ops",
        "never_ops",
    ]
    made = mixed.create(never_ops=["nn.dense"], keep_orig_output_dtype=True)
    assert made.keep_orig_output_dtype is True  # type: ignore[attr-defined]
    assert made.overrides == {"relay.nn.dense": MixedPrecisionCategory.NEVER}  # type: ignore[attr-defined]
    assert lookup("EliminateCommonSubexpr").options == ()  # fskip is an argument

    @dataclass(frozen=True, eq=False, repr=False)
    class WithArgument(Pass):
        n: int = option(1, "n")
        hook: Any = argument(None)
        quiet: bool = argument(False, kw_only=True)

    assert dataclass_options(WithArgument) == (("n", int, 1, "n"),)
    made_arg = WithArgument(2, print, quiet=True)
    assert (made_arg.n, made_arg.hook, made_arg.quiet) == (2, print, True)
    with pytest.raises(TypeError):
        WithArgument(2, print, True)  # type: ignore[misc]  # quiet is keyword only
