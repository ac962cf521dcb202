"""Every entry point's default opt level comes from the one table in
:mod:`xrelay.pass_manager.opt_levels`, and the README's table lists the same rows."""

from __future__ import annotations

import importlib
import re
from pathlib import Path
from typing import Any

import pytest

import xrelay
from xrelay.pass_manager import PassContext
from xrelay.pass_manager.opt_levels import DEFAULT_OPT_LEVELS, default_opt_level
from xrelay.pass_manager.reproducer import Reproducer

README = Path(__file__).resolve().parents[2] / "README.md"


class _Captured(Exception):
    """Stops a build once the opt level it runs at is known."""

    def __init__(self, level: int):
        super().__init__(level)
        self.level = level


def test_table_has_every_entry_point():
    # TVM's 2 where TVM has a default; 3 where xrelay compiles for the fast kernels
    assert {k: v.level for k, v in DEFAULT_OPT_LEVELS.items()} == {
        "PassContext": 2,
        "xrelay.build": 3,
        "xrelay-run": 3,
        "xrelay-opt": 2,
        "onnx-backend": 2,
    }
    with pytest.raises(TypeError):
        DEFAULT_OPT_LEVELS["xrelay-run"] = DEFAULT_OPT_LEVELS["PassContext"]  # type: ignore[index]


def test_readme_table_matches_code():
    text = README.read_text()
    section = text[text.index("| entry point | default opt_level | why |") :]
    table = section.split("\n\n", 1)[0].splitlines()[2:]
    documented: dict[str, tuple[int, str]] = {}
    for row in table:
        name, level, why = (cell.strip() for cell in row.strip("|").split(" | "))
        key = re.findall(r"`([^`]+)`", name)[-1].removesuffix("()")
        documented[key] = (int(level), why)
    assert documented == {k: (v.level, v.reason) for k, v in DEFAULT_OPT_LEVELS.items()}


def test_pass_context_default():
    assert PassContext().opt_level == default_opt_level("PassContext")
    assert PassContext.current().opt_level == default_opt_level("PassContext")
    assert Reproducer(pipeline="infer-type").opt_level == default_opt_level(
        "PassContext"
    )


def _tiny_module() -> Any:
    from xrelay import relay

    x = relay.var("x", shape=(2,), dtype="float32")
    return relay.IRModule.from_expr(relay.nn.relu(x))


@pytest.fixture
def capture_build_level(monkeypatch: pytest.MonkeyPatch) -> None:
    """``xrelay.build`` stops at its cache lookup, raising the context's level."""
    cache = importlib.import_module("xrelay.runtime.cache")

    def build_key(mod: Any, params: Any, entry: Any, ctx: PassContext) -> str:
        raise _Captured(ctx.opt_level)

    monkeypatch.setattr(cache, "build_key", build_key)


@pytest.mark.usefixtures("capture_build_level")
def test_build_default():
    with pytest.raises(_Captured) as info:
        xrelay.build(_tiny_module())
    assert info.value.level == default_opt_level("xrelay.build")
    # an entered context's level is used as it is
    with pytest.raises(_Captured) as info, PassContext(opt_level=1):
        xrelay.build(_tiny_module())
    assert info.value.level == 1


def test_xrelay_run_default():
    from xrelay.tools.xrelay_run import build_parser

    parser = build_parser()
    assert parser.parse_args(["m.mlir"]).opt_level == default_opt_level("xrelay-run")
    assert parser.parse_args(["m.mlir", "--opt-level", "0"]).opt_level == 0
    assert f"default {default_opt_level('xrelay-run')}:" in parser.format_help()


def test_xrelay_opt_default(capsys: pytest.CaptureFixture[str]):
    from xrelay.tools.xrelay_opt import XRelayOptMain, main

    assert XRelayOptMain(args=["m.mlir"]).args.opt_level == default_opt_level(
        "xrelay-opt"
    )
    with pytest.raises(SystemExit):
        main(["--help"])
    help_text = " ".join(capsys.readouterr().out.split())
    assert f"default {default_opt_level('xrelay-opt')}:" in help_text


def test_onnx_backend_default(monkeypatch: pytest.MonkeyPatch):
    onnx = pytest.importorskip("onnx")
    from onnx import TensorProto, helper

    from xrelay.frontend.onnx.backend import XrelayBackend

    graph = helper.make_graph(
        [helper.make_node("Relu", ["x"], ["y"])],
        "relu",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2])],
    )
    model = helper.make_model(graph)
    onnx.checker.check_model(model)

    def build(*args: Any, **kwargs: Any) -> Any:
        raise _Captured(PassContext.current().opt_level)

    monkeypatch.setattr(importlib.import_module("xrelay.runtime.build"), "build", build)
    with pytest.raises(_Captured) as info:
        XrelayBackend.prepare(model)
    assert info.value.level == default_opt_level("onnx-backend")
    with pytest.raises(_Captured) as info:
        XrelayBackend.prepare(model, opt_level=0)
    assert info.value.level == 0
