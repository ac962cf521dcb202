"""The ``light`` real models shipped in the ``onnx`` wheel (AlexNet, DenseNet-121,
Inception V1/V2, ResNet-50, ShuffleNet, SqueezeNet, VGG-19, ZFNet-512) through
:class:`XrelayBackend`, each in its own process. Slow (several minutes): marked
``slow``, run by ``make test-slow``, not by ``make test``."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from cases import light_names

pytestmark = pytest.mark.slow

SCRIPT = (
    "import json, sys; sys.path.insert(0, {folder!r}); from cases import run_light, one_line\n"
    "try:\n    run_light({name!r}); print(json.dumps(['pass', '']))\n"
    "except Exception as e:\n    print(json.dumps(['fail', one_line(e)]))\n"
)


@pytest.mark.parametrize("name", light_names())
def test_light_model(name: str) -> None:
    code = SCRIPT.format(folder=str(Path(__file__).parent), name=name)
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=1800
    )
    assert proc.returncode == 0, f"the process died (exit code {proc.returncode})"
    status, error = json.loads(proc.stdout.strip().splitlines()[-1])
    assert status == "pass", error
