"""The layers contract (pyproject's ``[tool.importlinter]``, run by ``make layers``)
holds for the package, and breaks on an upward import, one written inside a function
included (import-linter's graph, grimp, reads every import statement)."""

from __future__ import annotations

import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PYPROJECT = ROOT / "pyproject.toml"
LINT_IMPORTS = Path(sys.executable).parent / "lint-imports"

pytestmark = pytest.mark.skipif(
    not LINT_IMPORTS.exists(), reason="import-linter is not installed (the test extra)"
)


def _package_tree(dest: Path) -> Path:
    """A copy of the sources laid out as the installed package ``xrelay`` (setuptools
    maps the top-level folders onto its subpackages); the folder holding it."""
    package_dir: dict[str, str] = tomllib.loads(PYPROJECT.read_text())["tool"][
        "setuptools"
    ]["package-dir"]
    ignore = shutil.ignore_patterns("__pycache__", "Output", "*.pyc")
    for name, folder in sorted(package_dir.items()):
        target = dest.joinpath(*name.split("."))
        shutil.copytree(ROOT / folder, target, ignore=ignore, dirs_exist_ok=True)
    return dest


def _lint(tree: Path) -> subprocess.CompletedProcess[str]:
    # import-linter finds the package in the current directory
    return subprocess.run(
        [str(LINT_IMPORTS), "--no-cache", "--no-logo", str(PYPROJECT)],
        cwd=tree,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


@pytest.fixture(scope="module")
def tree(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _package_tree(tmp_path_factory.mktemp("layers"))


def test_contract_has_no_ignore_list():
    contracts = tomllib.loads(PYPROJECT.read_text())["tool"]["importlinter"][
        "contracts"
    ]
    assert [c["type"] for c in contracts] == ["layers"]
    assert not contracts[0].get("ignore_imports")
    assert contracts[0]["exhaustive"] is True


def test_layers_are_kept(tree: Path):
    result = _lint(tree)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "1 kept, 0 broken" in result.stdout


def test_an_upward_import_inside_a_function_breaks_the_contract(tree: Path):
    upward = tree / "xrelay" / "dialects" / "upward.py"
    upward.write_text(
        "def helper() -> object:\n"
        "    from xrelay.tools import cli  # the dialects may not import the tools\n"
        "\n"
        "    return cli\n"
    )
    try:
        result = _lint(tree)
    finally:
        upward.unlink()
    assert result.returncode != 0
    assert "BROKEN" in result.stdout
    assert "xrelay.dialects is not allowed to import xrelay.tools" in result.stdout
    assert "xrelay.dialects.upward -> xrelay.tools.cli (l.2)" in result.stdout


def test_a_new_top_level_module_needs_a_layer(tree: Path):
    stray = tree / "xrelay" / "stray.py"
    stray.write_text("X = 1\n")
    try:
        result = _lint(tree)
    finally:
        stray.unlink()
    assert result.returncode != 0
    assert "xrelay.stray" in result.stdout + result.stderr


def test_callbacks_installed_from_above(monkeypatch: pytest.MonkeyPatch):
    """The frontend and the lowering install what the layers below call back; a
    missing one is a clear error (or, for function passes, the func.func itself)."""
    from xdsl.dialects.func import FuncOp

    from xrelay.dialects.relay import frontend_calls, layout_policy
    from xrelay.frontend import relay
    from xrelay.lowering import cpu_layout
    from xrelay.pass_manager import function_pass

    assert layout_policy.current() is cpu_layout
    for name in (
        frontend_calls.RUN_ALTER_HOOK,
        frontend_calls.RUN_CONVERT_HOOK,
        frontend_calls.RUN_INFER_HOOK,
        frontend_calls.LIFTER,
        frontend_calls.FUNCTION_VIEW,
    ):
        assert frontend_calls.installed(name) is not None, name
    x = relay.var("x", shape=(2,), dtype="float32")
    mod = relay.IRModule.from_expr(relay.nn.relu(x))
    seen: list[str] = []

    @function_pass(opt_level=0)
    def record(f: object, _mod: object, _ctx: object) -> object:
        seen.append(type(f).__name__)
        return f

    record(mod)
    monkeypatch.setattr(layout_policy, "_POLICY", [])
    monkeypatch.setattr(frontend_calls, "_INSTALLED", {})
    with pytest.raises(layout_policy.LayoutPolicyMissingError):
        layout_policy.current()
    with pytest.raises(frontend_calls.FrontendNotLoadedError, match="lifter"):
        frontend_calls.require(frontend_calls.LIFTER)
    record(mod)
    assert seen == ["FunctionView", FuncOp.__name__]
