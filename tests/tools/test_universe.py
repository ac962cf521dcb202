"""The ``xdsl.universe`` plugin: stock ``xdsl-opt`` (xDSL's own ``xDSLOptMain``)
knows the relay dialect and runs every registered xrelay pass on relay IR."""

from __future__ import annotations

import subprocess
import sys
from contextlib import redirect_stdout
from importlib.metadata import entry_points
from io import StringIO
from pathlib import Path

import pytest
from xdsl.universe import Universe
from xdsl.xdsl_opt_main import xDSLOptMain

from xrelay.pass_manager.registry import all_entries, lookup
from xrelay.tools import universe
from xrelay.tools.diagnostics import diagnose

MODEL = """\
func.func @main(%x: tensor<1x3x4x4xf32>) -> tensor<*xf32> {
  %a = relay.constant dense<[1.0, 2.0, 3.0]> : tensor<3xf32>
  %b = relay.add %a, %a : (tensor<3xf32>, tensor<3xf32>) -> tensor<*xf32>
  %0 = relay.nn.bias_add %x, %b : (tensor<1x3x4x4xf32>, tensor<*xf32>) -> tensor<*xf32>
  %1 = relay.nn.relu %0 : (tensor<*xf32>) -> tensor<*xf32>
  %2 = relay.exp %1 : (tensor<*xf32>) -> tensor<*xf32>
  func.return %2 : tensor<*xf32>
}
"""


def test_entry_point_is_installed() -> None:
    (ep,) = [e for e in entry_points(group="xdsl.universe") if e.name == "xrelay"]
    assert ep.load() is universe.XRELAY_UNIVERSE
    multiverse = Universe.get_multiverse()
    assert "relay" in multiverse.all_dialects
    for entry in all_entries():
        assert entry.pipeline_name in multiverse.all_passes


def test_passes_are_loaded_lazily() -> None:
    lazy = type(universe.XRELAY_UNIVERSE)()
    assert lazy._passes is None  # pyright: ignore[reportPrivateUsage]
    assert "infer-type" in lazy.all_passes


@pytest.mark.parametrize("name", [e.pipeline_name for e in all_entries()])
def test_stock_xdsl_opt_runs_every_pass(tmp_path: Path, name: str) -> None:
    """Every pass runs on relay IR in stock xdsl-opt, or (a lowering step whose
    prerequisite did not run) fails with a diagnostic, never an internal error."""
    path = tmp_path / "model.mlir"
    path.write_text(MODEL)
    opt = xDSLOptMain(args=[str(path), "-p", f"infer-type,{name}"])
    out = StringIO()
    try:
        with redirect_stdout(out):
            opt.run()
    except Exception as e:
        _, message = diagnose(e)
        assert not message.startswith("internal error"), message
        assert f"(in pass {lookup(name).name})" in message
        return
    assert out.getvalue().startswith("builtin.module {")
    assert "tensor<*xf32>" not in out.getvalue()


def test_stock_xdsl_opt_pass_options(tmp_path: Path) -> None:
    path = tmp_path / "model.mlir"
    path.write_text(MODEL)
    opt = xDSLOptMain(args=[str(path), "-p", "fuse-ops{fuse-opt-level=0}"])
    out = StringIO()
    with redirect_stdout(out):
        opt.run()
    assert "attributes {relay.primitive}" in out.getvalue()


def test_same_output_as_xrelay_opt(tmp_path: Path) -> None:
    path = tmp_path / "model.mlir"
    path.write_text(MODEL)
    bin_dir = Path(sys.executable).parent
    if not (bin_dir / "xdsl-opt").exists():
        pytest.skip("xdsl-opt is not installed next to this interpreter")
    pipeline = ["-p", "infer-type,fold-constant,fuse-ops,canonicalize"]
    outputs = [
        subprocess.run(
            [str(bin_dir / tool), str(path), *pipeline],
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        for tool in ("xdsl-opt", "xrelay-opt")
    ]
    assert outputs[0] == outputs[1]
    assert "relay.primitive" in outputs[0]
