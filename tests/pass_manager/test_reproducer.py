"""Crash reproducers from the API: nested failures (full and local reproducers),
xrelay.build under $XRELAY_REPRODUCER_DIR, and replaying them in-process."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

import xrelay
from xrelay import relay
from xrelay.pass_manager import PassContext, PassVerificationError, Sequential, get_pass
from xrelay.pass_manager.reproducer import (
    CrashReproducer,
    Reproducer,
    ReproducerError,
    capture_crashes,
    reproducer_note,
)
from xrelay.tools.xrelay_opt import XRelayOptMain


def small_module() -> Any:
    x = relay.var("x", shape=(2,), dtype="float32")
    c = relay.const(np.array([1.0, 2.0], "float32"))
    return relay.IRModule.from_expr(relay.multiply(x, relay.add(c, c)))


def failing_pipeline() -> Sequential:
    return Sequential(
        [get_pass("FoldConstant"), get_pass("TestBreakIR"), get_pass("InferType")],
        name="outer",
    )


def run_failing(repro: CrashReproducer) -> BaseException:
    mod = small_module()
    with PassContext(opt_level=3, disabled_pass=["FuseOps"]):
        with pytest.raises(PassVerificationError) as info:
            with capture_crashes(repro):
                failing_pipeline()(mod)
    return info.value


@pytest.mark.parametrize("local", [False, True])
def test_nested_failure(tmp_path: Path, local: bool) -> None:
    path = tmp_path / "r.mlir"
    error = run_failing(CrashReproducer(path=path, local=local, specs=["outer-spec"]))
    assert reproducer_note(error) == f"crash reproducer written to {path}"
    text = path.read_text()
    repro = Reproducer.parse(text)
    assert repro.opt_level == 3
    assert repro.disabled_pass == ["FuseOps"]
    if local:  # the child that failed, on the IR it got (constants folded)
        assert repro.pipeline == "test-break-ir"
        assert "dense<[2.000000e+00, 4.000000e+00]>" in text
    else:  # the top-level pass, on the IR before it (nothing folded yet)
        assert repro.pipeline == "outer-spec"
        assert "dense<[1.000000e+00, 2.000000e+00]>" in text


def test_capture_leaves_passing_runs_alone(tmp_path: Path) -> None:
    repro = CrashReproducer(directory=tmp_path / "d")
    with capture_crashes(repro):
        get_pass("FoldConstant")(small_module())
    assert not (tmp_path / "d").exists()
    assert repro.instrument.stack == []


def test_build_writes_a_replayable_reproducer(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from xrelay.transforms import fold_constant

    def broken(self: Any, op: Any, ctx: Any, kind: Any) -> Any:
        raise RuntimeError("FoldConstant broke")

    monkeypatch.setattr(fold_constant.FoldConstant, "apply", broken)
    monkeypatch.setenv("XRELAY_REPRODUCER_DIR", str(tmp_path))
    with PassContext(opt_level=3):
        with pytest.raises(RuntimeError, match="FoldConstant broke") as info:
            xrelay.build(small_module())
    path = tmp_path / "xrelay-reproducer-0.mlir"
    assert reproducer_note(info.value) == f"crash reproducer written to {path}"
    repro = Reproducer.parse(path.read_text())
    assert repro.pipeline == "relay-optimize"
    assert repro.opt_level == 3
    # the replay runs the same pipeline in the same context, and fails the same way
    with pytest.raises(RuntimeError, match="FoldConstant broke") as replayed:
        XRelayOptMain(args=["--run-reproducer", str(path)]).run()
    assert "in pass FoldConstant" in getattr(replayed.value, "__notes__", [])


def test_build_checks_the_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "f").write_text("")
    monkeypatch.setenv("XRELAY_REPRODUCER_DIR", str(tmp_path / "f" / "sub"))
    with pytest.raises(ReproducerError, match="cannot create"):
        xrelay.build(small_module())


@pytest.mark.parametrize(
    ("header", "message"),
    [
        ("", "not a crash reproducer"),
        ('// xrelay-reproducer: [1]\n', "expected a JSON object"),
        ('// xrelay-reproducer: {"pipeline": "a", "opt_level": 2, "required_pass": [], '
         '"disabled_pass": [], "config": {}, "x": 1}\n', "unknown key 'x'"),
    ],
)  # fmt: skip
def test_malformed_headers(header: str, message: str) -> None:
    with pytest.raises(ReproducerError, match=message):
        Reproducer.parse(header + "builtin.module {}\n")


def recursive_module() -> Any:
    """A program every pass accepts but lowering refuses (a recursive function)."""
    mod = relay.IRModule()
    f = relay.GlobalVar("f")
    a = relay.var("a", shape=(2,))
    mod[f] = relay.Function([a], relay.nn.relu(a), ret_type=relay.TensorType((2,)))
    mod[f] = relay.Function([a], f(relay.nn.relu(a)), ret_type=relay.TensorType((2,)))
    x = relay.var("x", shape=(2,))
    mod["main"] = relay.Function([x], relay.negative(f(x)))
    return mod


def test_build_lowering_failure_writes_a_replayable_reproducer(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XRELAY_REPRODUCER_DIR", str(tmp_path))
    with pytest.raises(
        Exception, match="recursive functions cannot be lowered"
    ) as info:
        xrelay.build(recursive_module(), cache=False)
    path = tmp_path / "xrelay-reproducer-0.mlir"
    assert reproducer_note(info.value) == f"crash reproducer written to {path}"
    text = path.read_text()
    repro = Reproducer.parse(text)
    assert repro.pipeline == (
        'relay-to-kernels{entry="main" profile=false},plan-memory,lower-to-llvm'
    )
    assert repro.target == "llvm"
    assert repro.opt_level == 3
    assert "// error: @f: recursive functions cannot be lowered (in lowering)" in text
    # the IR handed to lowering: optimised (fused), not yet lowered
    assert "relay.primitive" in text
    assert "llvm." not in text
    with pytest.raises(
        Exception, match="recursive functions cannot be lowered"
    ) as again:
        XRelayOptMain(args=["--run-reproducer", str(path)]).run()
    assert "(in pass RelayToKernels)" in str(again.value)


def test_lowering_capture_without_destination_costs_nothing(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from xrelay.pass_manager.reproducer import capture_lowering

    monkeypatch.delenv("XRELAY_REPRODUCER_DIR", raising=False)
    cloned: list[Any] = []
    module = small_module().module
    with monkeypatch.context() as patch:
        patch.setattr(type(module), "clone", lambda self: cloned.append(self))
        with pytest.raises(ValueError, match="boom"):
            with capture_lowering(None, module, PassContext()):
                raise ValueError("boom")
    assert cloned == []
    with pytest.raises(Exception, match="recursive") as info:
        xrelay.build(recursive_module(), cache=False)
    assert reproducer_note(info.value) is None


def test_malformed_target_header() -> None:
    header = (
        '// xrelay-reproducer: {"pipeline": "a", "opt_level": 2, "required_pass": [], '
        '"disabled_pass": [], "config": {}, "target": "cuda"}\n'
    )
    with pytest.raises(ReproducerError, match="'target' must be one of 'llvm'"):
        Reproducer.parse(header + "builtin.module {}\n")
