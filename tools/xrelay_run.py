"""``xrelay-run``: run a model file and summarise its outputs.

Until the LLVM lowering exists this runs the reference interpreter (and says so).
Inputs come from ``--input name=file.npy`` or are drawn at random (``--seed``).
``--example`` runs the bundled example model instead of a file.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp, TensorType
from xdsl.dialects.func import FuncOp
from xdsl.parser import Parser
from xdsl.utils.exceptions import DiagnosticException, ParseError

from xrelay.dialects.relay import dtypes


class RunError(Exception):
    """A user error: reported as one line, exit code 1."""


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="xrelay-run", description="Run a relay model and summarise its outputs."
    )
    parser.add_argument("model", nargs="?", help="a .mlir file holding relay IR")
    parser.add_argument(
        "--example", action="store_true", help="run the bundled example"
    )
    parser.add_argument(
        "--entry", default="main", help="function to run (default: main)"
    )
    parser.add_argument(
        "--input",
        action="append",
        default=[],
        metavar="NAME=FILE.npy",
        help="an input array for parameter NAME (repeatable)",
    )
    parser.add_argument("--seed", type=int, default=0, help="seed for random inputs")
    parser.add_argument("--debug", action="store_true", help="show tracebacks")
    return parser


def load_module(path: Path) -> ModuleOp:
    from xdsl.dialects.builtin import Builtin
    from xdsl.dialects.func import Func

    from xrelay.dialects.relay import Relay

    ctx = Context()
    for dialect in (Builtin, Func, Relay):
        ctx.load_dialect(dialect)
    try:
        text = path.read_text()
    except OSError as e:
        raise RunError(f"{path}: cannot read: {e.strerror}") from e
    try:
        module = Parser(ctx, text, str(path)).parse_module()
        module.verify()
    except ParseError as e:
        raise RunError(str(e).strip().splitlines()[0]) from e
    except DiagnosticException as e:
        raise RunError(f"{path}: {str(e).strip().splitlines()[0]}") from e
    return module


def make_inputs(func: FuncOp, given: Sequence[str], seed: int) -> list[Any]:
    named: dict[str, Any] = {}
    for item in given:
        name, sep, file = item.partition("=")
        if not sep:
            raise RunError(f"--input {item}: expected NAME=FILE.npy")
        try:
            named[name] = np.load(file)
        except OSError as e:
            raise RunError(f"--input {item}: cannot read {file}: {e}") from e
    rng = np.random.default_rng(seed)
    args: list[Any] = []
    params = list(func.body.block.args)
    known = {p.name_hint for p in params}
    for name in named:
        if name not in known:
            raise RunError(
                f"--input {name}: no parameter of that name (have {sorted(n or '?' for n in known)})"
            )
    for i, param in enumerate(params):
        name = param.name_hint or f"arg{i}"
        if name in named:
            args.append(named[name])
            continue
        ty = param.type
        if not isinstance(ty, TensorType):
            raise RunError(f"parameter %{name} has type {ty}; give it with --input")
        npd = dtypes.numpy_dtype(ty.get_element_type())
        shape = ty.get_shape()
        if npd.kind == "f":
            args.append(rng.standard_normal(shape).astype(npd))
        elif npd.kind == "b":
            args.append(rng.integers(0, 2, shape).astype(npd))
        else:
            args.append(rng.integers(0, 10, shape).astype(npd))
    return args


def summarise(value: Any, label: str = "output") -> list[str]:
    if isinstance(value, tuple):
        lines: list[str] = []
        for i, v in enumerate(value):  # pyright: ignore[reportUnknownArgumentType]
            lines += summarise(v, f"{label}[{i}]")
        return lines
    arr = np.asarray(value)
    stats = ""
    if arr.size and arr.dtype.kind in "fiu":
        stats = f" min {arr.min():.6g} max {arr.max():.6g} mean {arr.mean():.6g}"
    return [f"{label}: {arr.dtype}{list(arr.shape)}{stats}"]


def run(args: argparse.Namespace) -> int:
    from xrelay.runtime.interpreter import InterpreterError, interpret

    if args.example:
        from xrelay.pass_manager.instrument import module_text
        from xrelay.tools.example import example_module

        module, inputs = example_module()
        print("model: bundled example (a small CNN built with the builder API)")
        print("IR after InferType (large constants elided):")
        print(module_text(module))
    else:
        if args.model is None:
            raise RunError("give a model file, or --example")
        module = load_module(Path(args.model))
        funcs = {op.sym_name.data: op for op in module.ops if isinstance(op, FuncOp)}
        if args.entry not in funcs:
            raise RunError(f"{args.model}: no function @{args.entry}")
        inputs = make_inputs(funcs[args.entry], args.input, args.seed)
        print(f"model: {args.model}")
    print(
        "executor: reference interpreter (numpy; the LLVM executor comes with the lowering)"
    )
    start = time.perf_counter()
    try:
        result = interpret(module, *inputs, entry=args.entry)
    except InterpreterError as e:
        raise RunError(str(e)) from e
    elapsed = time.perf_counter() - start
    for line in summarise(result):
        print(line)
    print(f"run time: {elapsed * 1e3:.2f} ms")
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return run(args)
    except RunError as e:
        if args.debug:
            raise
        print(f"xrelay-run: error: {e}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
