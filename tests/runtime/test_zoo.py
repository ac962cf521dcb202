"""Every model of the shared zoo (``../shared/models/zoo``: published architectures
with random weights) imports with ``from_onnx``, builds with ``xrelay.build`` and
matches onnxruntime's ``output_<i>.npy`` within rtol 1e-3, atol 1e-4 (the zoo's
tolerance: fp32 accumulation order differs between implementations).

Every model is built once per session at opt_level 3; bert_small (the model with the
most op kinds) is also built at the default level. The tests skip when the zoo is
absent."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import xrelay
from xrelay.frontend import from_onnx
from xrelay.pass_manager import PassContext


def _zoo() -> Path:
    """``$XRELAY_ZOO``, else ``shared/models/zoo`` next to the checkout (or next to
    the folder holding it, for a git worktree one level deeper)."""
    if "XRELAY_ZOO" in os.environ:
        return Path(os.environ["XRELAY_ZOO"])
    repo = Path(__file__).resolve().parents[2]
    candidates = [p / "shared" / "models" / "zoo" for p in repo.parents[:2]]
    return next((c for c in candidates if c.is_dir()), candidates[0])


ZOO = _zoo()
NAMES = ["mobilenet_v2", "efficientnet_b0", "densenet121", "bert_small"]
DEFAULT = None
"""The level of a build without a PassContext (the default context's)."""

pytestmark = pytest.mark.skipif(
    not (ZOO / "README.md").is_file(),
    reason=f"no model zoo at {ZOO} (set XRELAY_ZOO)",
)

_BUILT: dict[tuple[str, int | None], Any] = {}


def _built(name: str, level: int | None) -> Any:
    key = (name, level)
    if key not in _BUILT:
        mod, params = from_onnx(ZOO / name / "model.onnx")
        if level is None:
            _BUILT[key] = xrelay.build(mod, params=params)
        else:
            with PassContext(opt_level=level):
                _BUILT[key] = xrelay.build(mod, params=params)
    return _BUILT[key]


def _meta(name: str) -> dict[str, Any]:
    return json.loads((ZOO / name / "meta.json").read_text())


@pytest.mark.parametrize(
    ("name", "level"), [*((n, 3) for n in NAMES), ("bert_small", DEFAULT)]
)
def test_zoo_model(name: str, level: int | None) -> None:
    meta = _meta(name)
    inputs = [np.load(ZOO / name / i["file"]) for i in meta["inputs"]]
    lib = _built(name, level)
    outs = lib(*inputs)
    outs = list(outs) if isinstance(outs, list | tuple) else [outs]
    assert len(outs) == len(meta["outputs"])
    for got, spec in zip(outs, meta["outputs"], strict=True):
        ref = np.load(ZOO / name / spec["file"])
        assert got.dtype == ref.dtype, spec["name"]
        np.testing.assert_allclose(got, ref, rtol=1e-3, atol=1e-4, err_msg=spec["name"])


def test_zoo_inputs_by_name() -> None:
    """The executor takes bert_small's two int64 inputs by their ONNX names."""
    meta = _meta("bert_small")
    m = _built("bert_small", 3).create()
    for spec in meta["inputs"]:
        m.set_input(spec["name"], np.load(ZOO / "bert_small" / spec["file"]))
    m.run()
    for i, spec in enumerate(meta["outputs"]):
        ref = np.load(ZOO / "bert_small" / spec["file"])
        np.testing.assert_allclose(m.get_output(i), ref, rtol=1e-3, atol=1e-4)


def test_densenet_concatenations_in_place() -> None:
    """DenseNet-121's concatenations copy nothing (``lowering/concat_placement.py``):
    every feature map of a dense block is written by its producer into the block's
    one buffer, so no concatenate kernel and no copy remain; the BN shift + relu
    fused into each concatenation runs on a view of that buffer. (The numerics are
    ``test_zoo_model``'s.)"""
    from xdsl.dialects import func, memref
    from xdsl.dialects.builtin import IntegerType, MemRefType

    from xrelay.build import optimize_module
    from xrelay.lowering.pipeline import relay_to_kernels

    mod, params = from_onnx(ZOO / "densenet121" / "model.onnx")
    with PassContext(opt_level=3):
        module = optimize_module(mod, params)
    relay_to_kernels(module)
    host = next(
        op
        for op in module.ops
        if isinstance(op, func.FuncOp) and "xrelay.host" in op.attributes
    )
    calls = [
        op.callee.string_value() for op in host.walk() if isinstance(op, func.CallOp)
    ]
    assert not [c for c in calls if "concatenate" in c or "copy" in c]
    assert sum("_fused_add_nn_relu" in c for c in calls) >= 57
    buffers = [
        op
        for op in host.walk()
        if isinstance(op, memref.AllocOp)
        and isinstance(op.memref.type, MemRefType)
        and op.memref.type.element_type == IntegerType(8)
    ]
    assert len(buffers) == 4  # one per dense block
