"""The pass registry: TVM names and pipeline names, listing, unknown names, options."""

from __future__ import annotations

from typing import Any

import pytest

from xrelay.pass_manager import (
    ModulePass,
    Pass,
    PassInfo,
    UnknownPassError,
    get_pass,
    list_passes,
    register_pass,
    registry,
)


def test_get_pass_by_either_name():
    by_tvm, by_pipeline = get_pass("InferType"), get_pass("infer-type")
    assert type(by_tvm) is type(by_pipeline)
    assert by_tvm.info == by_pipeline.info == PassInfo(0, "InferType")
    assert by_tvm is not by_pipeline  # a fresh pass object per call


@pytest.mark.parametrize(
    ("name", "pipeline"),
    [
        ("FoldConstant", "fold-constant"),
        ("FuseOps", "fuse-ops"),
        ("EliminateCommonSubexpr", "eliminate-common-subexpr"),
        ("ToANormalForm", "to-a-normal-form"),
        ("InferType", "infer-type"),
        ("DeadCodeElimination", "dead-code-elimination"),
    ],
)
def test_pipeline_names(name, pipeline):
    assert registry.pipeline_name_of(name) == pipeline


def test_list_passes(placeholders):
    listing = {p.name: p for p in list_passes()}
    infer = listing["InferType"]
    assert (infer.pipeline_name, infer.opt_level, infer.required) == (
        "infer-type",
        0,
        (),
    )
    assert infer.doc
    cse = listing["EliminateCommonSubexpr"]
    assert (cse.pipeline_name, cse.opt_level, cse.required) == (
        "eliminate-common-subexpr",
        3,
        ("InferType",),
    )
    assert [p.name for p in list_passes()] == sorted(listing)


def test_unknown_pass_name():
    with pytest.raises(
        UnknownPassError, match=r"^Cannot use NoSuchPass to create the pass$"
    ):
        get_pass("NoSuchPass")
    with pytest.raises(UnknownPassError, match=r"did you mean .*infer-type"):
        get_pass("infer-typ")
    assert issubclass(UnknownPassError, ValueError)


def test_register_pass_with_options(monkeypatch):
    monkeypatch.setattr(registry, "_BY_NAME", dict(registry._BY_NAME))
    monkeypatch.setattr(registry, "_BY_PIPELINE", dict(registry._BY_PIPELINE))

    @register_pass("TestDepthPass", options=[("max_depth", int, 3)])
    class TestDepthPass(ModulePass):
        """Records its option.

        More text that is not the listed doc."""

        def __init__(self, max_depth: int = 3):
            self.max_depth = max_depth
            super().__init__(
                lambda m, c: m, PassInfo(1, "TestDepthPass", ["InferType"])
            )

    made = get_pass("test-depth-pass", max_depth=7)
    assert isinstance(made, TestDepthPass)
    assert made.max_depth == 7
    entry = registry.lookup("TestDepthPass")
    assert entry.options == (("max_depth", int, 3),)
    listed = {p.name: p for p in list_passes()}["TestDepthPass"]
    assert (listed.opt_level, listed.required, listed.doc) == (
        1,
        ("InferType",),
        "Records its option.",
    )

    # registering another factory under a taken name is an error
    with pytest.raises(
        ValueError, match="a pass named TestDepthPass is already registered"
    ):

        @register_pass("TestDepthPass")
        def other() -> Pass:
            return TestDepthPass()

    # the same factory again is fine
    register_pass("TestDepthPass", options=[("max_depth", int, 3)])(TestDepthPass)

    # the xdsl-opt plugin sees it, options included
    from xdsl.passes import PassPipeline

    from xrelay.tools.universe import all_passes

    pipeline = PassPipeline.parse_spec(all_passes(), "test-depth-pass{max_depth=5}")
    xdsl_pass: Any = pipeline.passes[0]
    assert xdsl_pass.make_pass().max_depth == 5
