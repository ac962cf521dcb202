"""The distribution installs one import package, ``xrelay``; the top-level folders of
the repository are its subpackages, never top-level modules."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

PROBE = """
import importlib, sys
import xrelay.dialects.relay, xrelay.tools.xrelay_opt, xrelay.runtime
print(xrelay.__file__)
for name in ("dialects", "pass_manager", "transforms", "lowering", "runtime", "frontend", "tools"):
    try:
        importlib.import_module(name)
    except ModuleNotFoundError:
        continue
    sys.exit(f"'import {name}' worked")
"""


def run_probe(cwd: Path, env: dict[str, str] | None = None) -> str:
    result = subprocess.run(
        [sys.executable, "-c", PROBE],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stderr + result.stdout
    return result.stdout.strip()


def test_installed_package_layout(tmp_path: Path):
    """The environment running the tests (an editable install in .venv)."""
    run_probe(tmp_path)


@pytest.mark.skipif(
    subprocess.run(
        [
            sys.executable,
            "-c",
            "import setuptools, sys; sys.exit(int(setuptools.__version__.split('.')[0]) < 68)",
        ],
        check=False,
    ).returncode
    != 0,
    reason="needs setuptools>=68 in the test environment (the 'test' extra installs it)",
)
def test_plain_install_into_a_fresh_target(tmp_path: Path):
    target = tmp_path / "site"
    subprocess.run(
        [
            sys.executable, "-m", "pip", "install", "--quiet", "--no-deps",
            "--no-build-isolation", "--target", str(target), str(ROOT),
        ],
        check=True,
        capture_output=True,
    )  # fmt: skip
    assert (target / "xrelay" / "dialects" / "relay" / "base.py").is_file()
    assert not (target / "dialects").exists()
    assert not (target / "tests").exists()
    env = dict(os.environ, PYTHONPATH=str(target))
    location = run_probe(tmp_path, env)
    assert location.startswith(str(target))


def test_every_subpackage_is_listed_in_pyproject():
    """setuptools needs each subpackage listed (the folders are mapped, not found)."""
    import tomllib

    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    listed = set(config["packages"])
    for package, folder in config["package-dir"].items():
        for init in (ROOT / folder).rglob("__init__.py"):
            rel = init.parent.relative_to(ROOT / folder)
            name = ".".join([package, *rel.parts])
            assert name in listed, f"add {name!r} to [tool.setuptools] packages"
