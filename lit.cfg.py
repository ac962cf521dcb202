"""lit configuration: runs the FileCheck suite under tests/filecheck/."""

import os
import platform
import shutil
import sys
import tempfile

import lit.formats

config.name = "xrelay"  # noqa: F821
config.test_format = lit.formats.ShTest()  # noqa: F821
config.pipefail = True  # noqa: F821
config.suffixes = [".mlir", ".test", ".relay"]  # noqa: F821
# the suite's root is this folder (so `lit path/to/test.mlir` works); only
# tests/filecheck holds tests, everything else is excluded from discovery
config.excludes = [  # noqa: F821
    "lit.local.cfg", "inputs", "Output", ".venv", "build", "bench", "examples",
    "xrelay", ".git", ".ci",
]  # fmt: skip

# the tools of the interpreter running lit (the project's venv) come first on PATH
bin_dir = os.path.dirname(sys.executable)
config.environment["PATH"] = bin_dir + os.pathsep + os.environ.get("PATH", "")  # noqa: F821
for var in ("HOME", "TMPDIR", "XDSL_MLIR_OPT"):
    if var in os.environ:
        config.environment[var] = os.environ[var]  # noqa: F821
# builds made by the tests never touch the user's compile cache
config.environment["XRELAY_CACHE_DIR"] = tempfile.mkdtemp(prefix="xrelay-lit-cache-")  # noqa: F821

# Round trips: custom -> generic -> custom, checked with FileCheck.
config.substitutions.append(  # noqa: F821
    (
        "XRELAY_ROUNDTRIP",
        "xrelay-opt %s --print-op-generic --split-input-file | "
        "xrelay-opt --split-input-file | filecheck %s",
    )
)
config.substitutions.append(  # noqa: F821
    (
        "XRELAY_GENERIC_ROUNDTRIP",
        "xrelay-opt %s --print-op-generic --split-input-file | filecheck %s --check-prefix=CHECK-GENERIC",
    )
)

mlir_opt = shutil.which("mlir-opt-22") or shutil.which("mlir-opt")
if mlir_opt:
    config.available_features.add("mlir-opt")  # noqa: F821
    config.substitutions.append(("%mlir-opt", mlir_opt))  # noqa: F821

# Graphviz's dot renders view-graph pictures (tests of rendering: REQUIRES: dot)
if shutil.which("dot"):
    config.available_features.add("dot")  # noqa: F821

# x86 hosts run the int16 pair-product kernels (pmaddwd: SSE2 and up; REQUIRES: x86)
if platform.machine().lower() in ("x86_64", "amd64"):
    config.available_features.add("x86")  # noqa: F821
