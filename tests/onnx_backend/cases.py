"""The node tests of ``onnx.backend.test``, on disk, and one run of one of them.

The ``onnx`` wheel does not ship the node tests' data: ``onnx``'s own loader
generates them from its case scripts (about 25 s). :func:`node_data_dir` does that
once per ``onnx`` version and keeps the result (``model.onnx`` and ``data_<i>.npz``
per test) under the temporary directory, or ``$XRELAY_ONNX_NODE_DATA``.

:func:`run_case` runs one test through :class:`XrelayBackend` (import, ``xrelay.build``,
the executor) and compares with the expected outputs as ``onnx``'s runner does
(shapes and dtypes equal, values within the test's ``rtol`` / ``atol``, NaNs equal).
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
import warnings
from pathlib import Path
from typing import Any

import ml_dtypes
import numpy as np
import onnx

INDEX = "index.json"


def node_data_dir() -> Path:
    """The generated node tests (made on first use)."""
    root = os.environ.get("XRELAY_ONNX_NODE_DATA")
    base = Path(root) if root else Path(tempfile.gettempdir())
    target = base / f"xrelay-onnx-node-{onnx.__version__}"
    if (target / INDEX).is_file():
        return target
    from onnx.backend.test.loader import load_model_tests

    scratch = Path(tempfile.mkdtemp(prefix=target.name + ".", dir=base))
    index: dict[str, dict[str, Any]] = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        cases = load_model_tests(kind="node")
    for case in cases:
        assert case.model is not None
        assert case.data_sets is not None
        folder = scratch / case.name
        folder.mkdir()
        (folder / "model.onnx").write_bytes(case.model.SerializeToString())
        tensors = True
        for k, (inputs, outputs) in enumerate(case.data_sets):
            arrays: dict[str, Any] = {}
            for prefix, values in (("in", inputs), ("out", outputs)):
                for j, v in enumerate(values):
                    if isinstance(v, onnx.TensorProto):
                        v = onnx.numpy_helper.to_array(v)
                    if not isinstance(v, np.ndarray | np.generic):
                        tensors = False
                        break
                    arrays[f"{prefix}_{j}"] = np.asarray(v)
            if tensors:
                np.savez(folder / f"data_{k}.npz", **arrays)  # pyright: ignore[reportUnknownMemberType]
        index[case.name] = {
            "rtol": case.rtol,
            "atol": case.atol,
            "tensors": tensors,
            "sets": len(case.data_sets),
        }
    (scratch / INDEX).write_text(json.dumps(index, sort_keys=True))
    try:
        scratch.rename(target)
    except OSError:  # made meanwhile by another process
        shutil.rmtree(scratch, ignore_errors=True)
    return target


def load_index(data: Path) -> dict[str, dict[str, Any]]:
    return json.loads((data / INDEX).read_text())


def one_line(error: BaseException) -> str:
    text = " ".join(str(error).split())
    return f"{type(error).__name__}: {text}" if text else type(error).__name__


class Mismatch(Exception):
    """The outputs differ from the expected ones."""


def compare_outputs(got: Any, want: Any, rtol: float, atol: float, k: int) -> None:
    got, want = np.asarray(got), np.asarray(want)
    if got.shape != want.shape:
        raise Mismatch(
            f"output {k}: shape {list(got.shape)} != expected {list(want.shape)}"
        )
    if got.dtype != want.dtype:
        raise Mismatch(f"output {k}: dtype {got.dtype} != expected {want.dtype}")
    if want.dtype == ml_dtypes.bfloat16:  # numpy's isclose does not take it
        got, want = got.astype(np.float32), want.astype(np.float32)
    if want.dtype.kind in "fc":
        ok = np.isclose(got, want, rtol=rtol, atol=atol, equal_nan=True)
    else:
        ok = got == want
    if not np.all(ok):
        bad = int(np.size(ok) - np.count_nonzero(ok))
        raise Mismatch(
            f"output {k}: {bad} of {got.size} values differ beyond rtol {rtol}, atol {atol}"
        )


def _bfloat16_restored(array: Any) -> Any:
    """``np.savez`` keeps an ``ml_dtypes.bfloat16`` array as 2-byte raw records
    (``|V2``, the only such dtype ONNX tensors give): its bfloat16 view."""
    dt = array.dtype
    if dt.kind == "V" and dt.itemsize == 2 and not dt.names:
        return array.view(ml_dtypes.bfloat16)
    return array


def run_case(data: Path, name: str, meta: dict[str, Any]) -> list[str]:
    """Run node test ``name``; raises on any failure. Returns the inputs the model
    was specialised on (see :mod:`xrelay.frontend.onnx.backend`)."""
    from xrelay.frontend.onnx.backend import XrelayBackend

    if not meta["tensors"]:
        raise NotImplementedError(
            "inputs or outputs that are not tensors (sequence, optional, map)"
        )
    model = onnx.load(str(data / name / "model.onnx"))
    rep = XrelayBackend.prepare(model)
    for k in range(meta["sets"]):
        with np.load(data / name / f"data_{k}.npz") as npz:
            arrays = {key: _bfloat16_restored(a) for key, a in npz.items()}
        n_in = sum(1 for key in arrays if key.startswith("in_"))
        n_out = sum(1 for key in arrays if key.startswith("out_"))
        outputs = rep.run([arrays[f"in_{j}"] for j in range(n_in)])
        if len(outputs) != n_out:
            raise Mismatch(f"{len(outputs)} outputs, expected {n_out}")
        for j, got in enumerate(outputs):
            compare_outputs(got, arrays[f"out_{j}"], meta["rtol"], meta["atol"], j)
    return rep.specialized


LIGHT_TOLERANCES = {"densenet121": 2e-3}
"""rtol per light model (onnx's own: 1e-3, densenet121 2e-3; atol 1e-7)."""


def light_dir() -> Path:
    import onnx.backend.test

    return Path(onnx.backend.test.__file__).parent / "data" / "light"


def light_names() -> list[str]:
    folder = light_dir()
    return sorted(p.stem[len("light_") :] for p in folder.glob("light_*.onnx"))


def run_light(name: str) -> None:
    """Run the ``light`` model ``name`` as ``onnx``'s runner does: every input is
    ``arange(n) / n`` in its shape, compared with ``light_<name>_output_<i>.pb``."""
    from xrelay.frontend.onnx.backend import XrelayBackend

    folder = light_dir()
    model = onnx.load(str(folder / f"light_{name}.onnx"))
    inits = {i.name for i in model.graph.initializer}
    feeds: list[Any] = []
    for x in model.graph.input:
        if x.name in inits:
            continue
        shape = tuple(d.dim_value or 1 for d in x.type.tensor_type.shape.dim)
        n = int(np.prod(shape))
        feeds.append((np.arange(n).reshape(shape) / n).astype(np.float32))
    outputs = XrelayBackend.prepare(model).run(feeds)
    for k, got in enumerate(outputs):
        want = onnx.numpy_helper.to_array(
            onnx.load_tensor(str(folder / f"light_{name}_output_{k}.pb"))
        )
        compare_outputs(got, want, LIGHT_TOLERANCES.get(name, 1e-3), 1e-7, k)
