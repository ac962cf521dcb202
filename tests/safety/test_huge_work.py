"""Issue 25: programs whose run would never end (huge broadcasts reduced to a small
result compiled in half a second, then ran for hours) are refused by
``xrelay.build`` with a one-line error naming ``xrelay.max_work``; real models stay
far below the bound."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import xrelay
from xrelay import relay
from xrelay.lowering.work_bound import WorkLimitError, program_work
from xrelay.pass_manager import PassContext
from xrelay.pass_manager.config import MAX_WORK
from xrelay.runtime.interpreter import interpret

BIN = Path(sys.executable).parent
MODELS = Path(os.environ.get("XRELAY_MODELS", "/work/shared/models"))
N = 1 << 20


def _broadcast_sum() -> Any:
    """``[1, 2**20] + [2**20, 1]`` summed: a scalar after 2**40 additions."""
    a = relay.var("a", shape=(1, N), dtype="float32")
    b = relay.var("b", shape=(N, 1), dtype="float32")
    return relay.Function([a, b], relay.sum(relay.add(a, b)))


def _expand_dims_chain() -> Any:
    """A vector of 2**10 added to its own new axes three times: 2**40 elements."""
    x = relay.var("x", shape=(1 << 10,), dtype="float32")
    y: Any = x
    for axis in range(1, 4):
        y = relay.add(relay.expand_dims(y, axis=axis), x)
    return relay.Function([x], relay.max(y))


def _broadcast_to_mean() -> Any:
    x = relay.var("x", shape=(1, 1), dtype="float32")
    return relay.Function([x], relay.mean(relay.broadcast_to(x, (N, N))))


def _tile_sum() -> Any:
    x = relay.var("x", shape=(2, 2), dtype="float32")
    return relay.Function([x], relay.sum(relay.tile(x, (N, N)), axis=[1]))


HUGE: dict[str, Callable[[], Any]] = {
    "broadcast-sum": _broadcast_sum,
    "expand_dims-chain": _expand_dims_chain,
    "broadcast_to-mean": _broadcast_to_mean,
    "tile-sum": _tile_sum,
}


@pytest.mark.parametrize("name", list(HUGE))
def test_huge_work_is_refused_at_build(name: str) -> None:
    mod = relay.IRModule.from_expr(HUGE[name]())
    before = mod.astext()
    start = time.perf_counter()
    with pytest.raises(WorkLimitError) as info:
        xrelay.build(mod, cache=False)
    assert time.perf_counter() - start < 60
    message = str(info.value)
    assert "\n" not in message
    assert "xrelay.max_work = 2**36" in message, message
    assert mod.astext() == before  # the input is left as it was


def test_the_limit_is_a_pass_config() -> None:
    """Below the limit a program builds and agrees with the interpreter; the same
    program is refused under a lower ``xrelay.max_work``."""
    a = relay.var("a", shape=(1, 64), dtype="float32")
    b = relay.var("b", shape=(64, 1), dtype="float32")
    mod = relay.IRModule.from_expr(relay.Function([a, b], relay.sum(relay.add(a, b))))
    rng = np.random.default_rng(0)
    feeds = [rng.random((1, 64), "float32"), rng.random((64, 1), "float32")]
    lib = xrelay.build(mod, cache=False)
    np.testing.assert_allclose(lib(*feeds), interpret(mod, *feeds), rtol=1e-5)
    with PassContext(opt_level=3, config={MAX_WORK.name: 1000}):
        with pytest.raises(WorkLimitError, match=r"more than xrelay.max_work = 1e\+03"):
            xrelay.build(mod, cache=False)


def test_xrelay_run_refuses_with_one_line(tmp_path: Path) -> None:
    path = tmp_path / "huge.mlir"
    path.write_text(
        "func.func @main(%a: tensor<1x1048576xf32>, %b: tensor<1048576x1xf32>)"
        " -> tensor<f32> {\n"
        "  %0 = relay.add %a, %b : (tensor<1x1048576xf32>, tensor<1048576x1xf32>)"
        " -> tensor<1048576x1048576xf32>\n"
        "  %1 = relay.sum %0 : (tensor<1048576x1048576xf32>) -> tensor<f32>\n"
        "  func.return %1 : tensor<f32>\n}\n"
    )
    proc = subprocess.run(
        [str(BIN / "xrelay-run"), str(path), "--no-cache"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    err = [line for line in proc.stderr.splitlines() if line.strip()]
    assert proc.returncode == 1, proc.stderr
    assert len(err) == 1, err
    assert "xrelay.max_work" in err[0], err


@pytest.mark.skipif(not MODELS.is_dir(), reason="needs ../shared/models")
def test_shared_models_are_far_below_the_limit() -> None:
    from xrelay.build import optimize_module
    from xrelay.frontend import from_onnx

    limit = int(MAX_WORK.default)
    for path in [
        MODELS / "resnet18.onnx",
        MODELS / "zoo" / "densenet121" / "model.onnx",
    ]:
        if not path.exists():
            continue
        mod, params = from_onnx(str(path))
        with PassContext(opt_level=3):
            total, _ = program_work(optimize_module(mod, params))
        assert 1e8 < total < limit / 16, (path.name, total)
