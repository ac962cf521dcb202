"""What ``xrelay.build`` verifies: its input and the relay pipeline's result, once
each; after every pass only when the PassContext sets ``xrelay.verify_each``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest
from xdsl.dialects.builtin import Float32Type, TensorType
from xdsl.rewriter import Rewriter

import xrelay
import xrelay.transforms.pipeline
from xrelay import relay
from xrelay.errors import UserError
from xrelay.pass_manager import PassContext
from xrelay.pass_manager import passes as pass_mod
from xrelay.pass_manager.passes import PassVerificationError


def _model() -> relay.IRModule:
    x = relay.var("x", shape=(2, 3), dtype="float32")
    return relay.IRModule.from_expr(relay.nn.relu(relay.negative(x)))


def _break(module: Any) -> None:
    """Give the first relu a result type its type relation refuses."""
    for op in module.walk():
        if op.name == "relay.nn.relu":
            wrong = TensorType(Float32Type(), [3, 2])
            Rewriter.replace_value_with_new_type(op.results[0], wrong)
            return
    raise AssertionError("no relu")


def _count_verifications(monkeypatch: pytest.MonkeyPatch) -> list[str | None]:
    seen: list[str | None] = []
    original = pass_mod._verify  # pyright: ignore[reportPrivateUsage]

    def counting(op: Any, what: str, pass_name: str | None = None, *a: Any) -> None:
        seen.append(pass_name)
        original(op, what, pass_name, *a)

    monkeypatch.setattr(pass_mod, "_verify", counting)
    return seen


def test_input_and_result_verified_once(monkeypatch: pytest.MonkeyPatch) -> None:
    seen = _count_verifications(monkeypatch)
    lib = xrelay.build(_model(), cache=False)
    x = np.arange(6, dtype="float32").reshape(2, 3) - 2
    np.testing.assert_array_equal(lib(x), np.maximum(-x, 0))
    assert seen == [None, None]


def test_verify_each_set_verifies_after_passes(monkeypatch: pytest.MonkeyPatch) -> None:
    seen = _count_verifications(monkeypatch)
    with PassContext(opt_level=3, config={"xrelay.verify_each": True}):
        xrelay.build(_model(), cache=False)
    assert any(name is not None for name in seen)


def test_input_that_does_not_verify_is_refused() -> None:
    mod = _model()
    _break(mod.module)
    with pytest.raises(PassVerificationError, match="the input module does not verify"):
        xrelay.build(mod, cache=False)


def test_pipeline_result_that_does_not_verify_is_refused(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    real = xrelay.transforms.pipeline.optimize

    def breaking(mod: Any, params: Any = None) -> Any:
        out = real(mod, params)
        _break(out.module if hasattr(out, "module") else out)
        return out

    monkeypatch.setattr(xrelay.transforms.pipeline, "optimize", breaking)
    with pytest.raises(
        PassVerificationError, match="the IR after the relay passes does not verify"
    ):
        xrelay.build(_model(), cache=False)


def test_a_pass_breaking_the_ir_leaves_a_reproducer_naming_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Without per-pass verification the build still stops before lowering, naming
    the pass, and writes a crash reproducer whose replay fails the same way."""
    from xrelay.tools.xrelay_opt import XRelayOptMain
    from xrelay.transforms import fuse_ops

    real = fuse_ops.FuseOps.apply

    def breaking(self: Any, op: Any, ctx: Any, kind: Any) -> Any:
        out = real(self, op, ctx, kind)
        _break(out)
        return out

    monkeypatch.setattr(fuse_ops.FuseOps, "apply", breaking)
    monkeypatch.setenv("XRELAY_REPRODUCER_DIR", str(tmp_path))
    with PassContext(opt_level=3), pytest.raises(PassVerificationError) as built:
        xrelay.build(_model(), cache=False)
    assert built.value.pass_name == "FuseOps"
    (path,) = tmp_path.glob("*.mlir")
    with pytest.raises(UserError, match="the IR after pass 'FuseOps' does not verify"):
        XRelayOptMain(args=["--run-reproducer", str(path)]).run()
