"""Pictures of the graph from Python: ``IRModule.visualize`` and
:mod:`xrelay.tools.view_graph` on a builder module and on a shared model."""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path

import numpy as np
import pytest

from xrelay import relay
from xrelay.pass_manager import PassContext
from xrelay.tools.view_graph import GraphError, to_dot

MODELS = Path(os.environ.get("XRELAY_MODELS", "/work/shared/models"))
needs_dot = pytest.mark.skipif(
    shutil.which("dot") is None, reason="Graphviz's dot is not installed"
)


def small() -> relay.IRModule:
    x = relay.var("x", shape=(1, 8, 6, 6), dtype="float32")
    w = relay.const(np.ones((4, 8, 3, 3), "float32"))
    y = relay.nn.relu(relay.nn.conv2d(x, w, padding=(1, 1)))
    return relay.IRModule.from_expr(relay.add(y, y))


def test_visualize_writes_dot(tmp_path: Path):
    path = small().visualize(str(tmp_path / "g.dot"))
    text = Path(path).read_text()
    assert text.startswith('digraph "main" {')
    # 1 parameter, conv2d (weights folded in), relu, add, return
    labels = re.findall(r'label="([^"]*)"\]?;', text)
    nodes = [line for line in text.splitlines() if re.match(r"\s+n\d+ \[", line)]
    assert len(nodes) == 5
    assert any(lbl.startswith("nn.conv2d") and "4x8x3x3xf32" in lbl for lbl in labels)
    edges = re.findall(r"(n\d+) -> (n\d+)", text)
    assert len(edges) == 5  # x->conv, conv->relu, relu->add twice, add->return
    assert "constant" not in text


def test_fused_kernels_are_clusters_with_times():
    from xrelay.transform import optimize

    with PassContext(opt_level=3, disabled_pass=["AlterOpLayout"]):
        fused = optimize(small())
    kernels = [
        f.sym_name.data for f in fused.module.ops if "relay.primitive" in f.attributes
    ]
    assert kernels
    text = to_dot(fused.module, times={kernels[0]: 2.0})
    assert text.count("subgraph cluster_") == len(kernels)
    assert f'label="{kernels[0]}\\n2.000 ms";' in text


def test_unknown_function():
    with pytest.raises(GraphError, match="no function @f"):
        to_dot(small().module, "f")


def test_missing_dot_is_a_clear_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("XRELAY_DOT", "no-such-dot-program")
    with pytest.raises(GraphError, match="'dot' is not installed"):
        small().visualize(str(tmp_path / "g.png"))
    assert (tmp_path / "g.dot").read_text().startswith("digraph")


@needs_dot
@pytest.mark.skipif(
    not (MODELS / "resnet18.onnx").is_file(), reason=f"no shared models in {MODELS}"
)
def test_render_resnet18(tmp_path: Path):
    """The optimised ResNet-18 as a picture: one cluster per kernel call, every conv."""
    from xrelay.frontend import from_onnx
    from xrelay.transform import optimize

    mod, _ = from_onnx(str(MODELS / "resnet18.onnx"))
    with PassContext(opt_level=3):
        fused = optimize(mod)
    calls = sum(1 for op in fused.module.walk() if op.name == "func.call")
    path = Path(fused.visualize(str(tmp_path / "resnet18.svg")))
    svg = path.read_text()
    assert svg.lstrip().startswith("<?xml")
    assert "</svg>" in svg
    dot = (tmp_path / "resnet18.dot").read_text()
    assert dot.count("subgraph cluster_") == calls
    assert (
        dot.count('[label="nn.contrib_conv2d_NCHWc') == 20
    )  # ResNet-18's convolutions
