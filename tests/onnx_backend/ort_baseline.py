"""onnxruntime's outcome on the same node tests, compared the same way (a script,
not a test: onnxruntime is optional):

    python tests/onnx_backend/ort_baseline.py [--json FILE]

prints how many tests onnxruntime passes (``pip install -e .[bench]`` installs it).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))

from cases import Mismatch, compare_outputs, load_index, node_data_dir, one_line


def run_ort(data: Path, name: str, meta: dict[str, Any]) -> None:
    import onnxruntime  # pyright: ignore[reportMissingImports]

    if not meta["tensors"]:
        raise NotImplementedError("not tensors")
    session = onnxruntime.InferenceSession(
        str(data / name / "model.onnx"), providers=["CPUExecutionProvider"]
    )
    names = [i.name for i in session.get_inputs()]
    for k in range(meta["sets"]):
        with np.load(data / name / f"data_{k}.npz") as npz:
            arrays = dict(npz)
        feeds = {n: arrays[f"in_{j}"] for j, n in enumerate(names)}
        outs = session.run(None, feeds)
        for j, got in enumerate(outs):
            compare_outputs(got, arrays[f"out_{j}"], meta["rtol"], meta["atol"], j)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", help="write every result to this file")
    args = parser.parse_args()
    data = node_data_dir()
    index = load_index(data)
    results: dict[str, str] = {}
    for name in sorted(index):
        try:
            run_ort(data, name, index[name])
            results[name] = "pass"
        except Mismatch as e:
            results[name] = f"mismatch: {e}"
        except Exception as e:
            results[name] = f"fail: {one_line(e)[:200]}"
    passed = sum(1 for v in results.values() if v == "pass")
    print(f"onnxruntime passes {passed} of {len(results)} node tests")
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=1, sort_keys=True))


if __name__ == "__main__":
    main()
