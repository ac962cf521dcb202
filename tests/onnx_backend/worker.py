"""Runs node tests named on stdin, one per line, and prints one JSON line per test
as soon as it starts and when it ends: a crash (a segfault) is seen by the parent as
a test that started and never ended.

    python tests/onnx_backend/worker.py DATA_DIR < names
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from cases import Mismatch, load_index, one_line, run_case

# the errors xrelay reports to users, one line each; anything else is an internal error
CLEAN = (
    "OnnxImportError",
    "LoweringError",
    "ExecutorError",
    "TypeRelationError",
    "TypeInferenceError",
    "BuildError",
    "ParamsBindError",
    "DTypeError",
    "NotImplementedError",
    "Mismatch",
)


def main() -> None:
    data = Path(sys.argv[1])
    index = load_index(data)
    for line in sys.stdin:
        name = line.strip()
        if not name:
            continue
        print(json.dumps({"name": name, "event": "start"}), flush=True)
        t0 = time.perf_counter()
        status, error = "pass", ""
        specialized: list[str] = []
        try:
            specialized = run_case(data, name, index[name])
        except Mismatch as e:
            status, error = "mismatch", str(e)
        except Exception as e:  # every failure is recorded, never raised
            kinds = {c.__name__ for c in type(e).__mro__}
            status = "fail" if kinds & set(CLEAN) else "internal"
            error = one_line(e)
        out = {"name": name, "event": "end", "status": status, "error": error[:400]}
        out["specialized"] = specialized
        out["seconds"] = round(time.perf_counter() - t0, 3)
        print(json.dumps(out), flush=True)


if __name__ == "__main__":
    main()
