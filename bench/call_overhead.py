"""Per-call overhead: what a run costs above the model's own code, in each form a
user calls it.

    .venv/bin/python bench/call_overhead.py [--calls 20000] [--blocks 7]

For small models (where the overhead is all there is), on one thread:

* ``native us``: the entry point called in a loop from C-level ctypes
  (``GraphModule.benchmark_run``), per call: the model's own time;
* ``lib(*x) us``: the one-call form, numpy in, numpy out (inputs read in place,
  outputs written into the arrays returned);
* ``set/run/get us``: ``set_input`` for every input, ``run()``, ``get_output`` for
  every output (copies in and out, as TVM's graph executor);
* ``run() us``: ``run()`` alone, inputs set before;
* ``ort us``: onnxruntime's ``session.run(None, feed)`` on the same model (when
  installed), one thread;
* ``+us``: each form minus ``native``.

Each figure is the best of ``--blocks`` blocks of ``--calls`` calls (the forms
alternate block by block). Figures only; nothing here passes or fails.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

import xrelay
from xrelay import relay


def _models() -> list[tuple[str, relay.IRModule, list[Any]]]:
    rng = np.random.default_rng(0)
    out: list[tuple[str, relay.IRModule, list[Any]]] = []
    x = relay.var("x", shape=(1, 16), dtype="float32")
    out.append(
        (
            "relu 1x16",
            relay.IRModule.from_expr(relay.nn.relu(x)),
            [rng.standard_normal((1, 16)).astype("float32")],
        )
    )
    x = relay.var("x", shape=(1, 784), dtype="float32")
    w1 = relay.const(rng.standard_normal((128, 784)).astype("float32") * 0.05)
    w2 = relay.const(rng.standard_normal((10, 128)).astype("float32") * 0.05)
    mlp = relay.nn.dense(relay.nn.relu(relay.nn.dense(x, w1)), w2)
    out.append(
        (
            "mlp 784-128-10",
            relay.IRModule.from_expr(mlp),
            [rng.standard_normal((1, 784)).astype("float32")],
        )
    )
    a = relay.var("a", shape=(2, 8), dtype="float32")
    b = relay.var("b", shape=(2, 8), dtype="float32")
    c = relay.var("c", shape=(2, 8), dtype="float32")
    three = relay.Tuple([relay.add(a, b), relay.multiply(b, c)])
    out.append(
        (
            "3 in, 2 out",
            relay.IRModule.from_expr(three),
            [rng.standard_normal((2, 8)).astype("float32") for _ in range(3)],
        )
    )
    return out


def _onnx_session(name: str, inputs: list[Any]) -> Any:
    """An onnxruntime session of the same model, or None."""
    try:
        import onnx
        import onnxruntime as ort  # pyright: ignore[reportMissingImports]
        from onnx import TensorProto, helper, numpy_helper
    except ImportError:
        return None
    rng = np.random.default_rng(0)
    if name.startswith("relu"):
        nodes = [helper.make_node("Relu", ["x"], ["y"])]
        ins, outs, inits = [("x", (1, 16))], [("y", (1, 16))], []
    elif name.startswith("mlp"):
        w1 = rng.standard_normal((128, 784)).astype("float32") * 0.05
        w2 = rng.standard_normal((10, 128)).astype("float32") * 0.05
        inits = [numpy_helper.from_array(w1, "w1"), numpy_helper.from_array(w2, "w2")]
        nodes = [
            helper.make_node("Gemm", ["x", "w1"], ["h"], transB=1),
            helper.make_node("Relu", ["h"], ["r"]),
            helper.make_node("Gemm", ["r", "w2"], ["y"], transB=1),
        ]
        ins, outs = [("x", (1, 784))], [("y", (1, 10))]
    else:
        nodes = [
            helper.make_node("Add", ["a", "b"], ["s"]),
            helper.make_node("Mul", ["b", "c"], ["p"]),
        ]
        ins = [("a", (2, 8)), ("b", (2, 8)), ("c", (2, 8))]
        outs, inits = [("s", (2, 8)), ("p", (2, 8))], []
    graph = helper.make_graph(
        nodes,
        "g",
        [helper.make_tensor_value_info(n, TensorProto.FLOAT, s) for n, s in ins],
        [helper.make_tensor_value_info(n, TensorProto.FLOAT, s) for n, s in outs],
        inits,
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "m.onnx"
        onnx.save(model, str(path))
        opts = ort.SessionOptions()  # pyright: ignore
        opts.intra_op_num_threads = 1  # pyright: ignore
        opts.inter_op_num_threads = 1  # pyright: ignore
        sess = ort.InferenceSession(str(path), opts)  # pyright: ignore
    feed = {n: a for (n, _), a in zip(ins, inputs, strict=True)}
    return lambda: sess.run(None, feed)  # pyright: ignore


NATIVE_BATCH = 100
"""Runs per ``benchmark_run`` call of the native figure."""


def _best_us(fns: list[Any], calls: int, blocks: int) -> list[float]:
    """Microseconds per call of each of ``fns`` (the first runs
    :data:`NATIVE_BATCH` calls at a time)."""
    best = [float("inf")] * len(fns)
    for _ in range(blocks):
        for k, fn in enumerate(fns):
            per = NATIVE_BATCH if k == 0 else 1
            n = max(1, calls // per)
            for _ in range(max(1, n // 20)):
                fn()
            start = time.perf_counter()
            for _ in range(n):
                fn()
            best[k] = min(best[k], (time.perf_counter() - start) / (n * per) * 1e6)
    return best


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--calls", type=int, default=20000)
    parser.add_argument("--blocks", type=int, default=7)
    args = parser.parse_args(argv)
    print(
        f"xrelay per-call overhead, one thread, best of {args.blocks} blocks of "
        f"{args.calls} calls, load average {os.getloadavg()[0]:.1f}"
    )
    head = (
        f"{'model':<16}{'native us':>10}{'lib(*x) us':>11}{'+us':>7}"
        f"{'set/run/get':>12}{'+us':>7}{'run() us':>9}{'+us':>7}{'ort us':>8}"
    )
    print(head)
    print("-" * len(head))
    for name, mod, inputs in _models():
        lib = xrelay.build(mod, num_threads=1)
        m = lib.create()
        for k, a in enumerate(inputs):
            m.set_input(k, a)
        n_out = m.get_num_outputs()

        def native(m: Any = m) -> None:
            m.benchmark_run(NATIVE_BATCH)

        def one_call(lib: Any = lib, inputs: list[Any] = inputs) -> Any:
            return lib(*inputs)

        def set_run_get(
            m: Any = m, inputs: list[Any] = inputs, n_out: int = n_out
        ) -> Any:
            for k, a in enumerate(inputs):
                m.set_input(k, a)
            m.run()
            return [m.get_output(k) for k in range(n_out)]

        ort_fn = _onnx_session(name, inputs)
        fns = [native, one_call, set_run_get, m.run]
        if ort_fn is not None:
            fns.append(ort_fn)
        times = _best_us(fns, args.calls, args.blocks)
        base, rest = times[0], times[1:]
        ort_us = f"{rest[3]:>8.2f}" if ort_fn is not None else f"{'n/a':>8}"
        print(
            f"{name:<16}{base:>10.2f}{rest[0]:>11.2f}{rest[0] - base:>7.2f}"
            f"{rest[1]:>12.2f}{rest[1] - base:>7.2f}{rest[2]:>9.2f}{rest[2] - base:>7.2f}"
            f"{ort_us}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
