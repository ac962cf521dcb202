"""``xrelay-run MODEL``: compile a model, run it, summarise (and check) its outputs.

MODEL is relay IR in a ``.mlir`` file, Relay's text format in a ``.relay`` file, or
an ``.onnx`` model; ``--example`` runs the bundled example instead. Inputs come from
``--input name=file.npy``; the others are drawn at random (``--seed``), and a note
on stderr names them. The model is compiled under one PassContext (``--opt-level``,
``--required-pass``, ``--disabled-pass``, ``--pass-config``, ``--time-passes``) and
run ``--repeat`` times; outputs can be written (``--output-dir``) and compared
(``--expected``, ``--rtol``, ``--atol``: exit code 1 on a mismatch).

Executors: ``interpreter`` (the numpy reference interpreter) and ``llvm`` (through
``xrelay.build``, once the LLVM lowering exists); ``auto`` (the default) picks
``llvm`` when it is available and says which one ran.
"""

from __future__ import annotations

import argparse
import math
import os
import statistics
import sys
import threading
import time
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from xdsl.dialects.builtin import ModuleOp, TensorType
from xdsl.dialects.func import FuncOp
from xdsl.ir import Operation

from xrelay.dialects.relay import dtypes
from xrelay.names import decode_name
from xrelay.runtime.files import open_regular
from xrelay.tools import cli
from xrelay.tools.diagnostics import (
    UsageError,
    UserError,
    exit_code,
    first_line,
    one_line_warnings,
    report,
)
from xrelay.version import xrelay_version

PROG = "xrelay-run"

DEFAULT_PIPELINE = "relay-optimize"
"""The pass run before executing, when registered (Relay's opt-level pipeline);
otherwise ``FALLBACK_PIPELINE``."""
FALLBACK_PIPELINE = "infer-type"


class RunError(UserError):
    """A user error of ``xrelay-run``: reported as one line, exit code 1."""


class LLVMBuildError(RunError):
    """``xrelay.build`` cannot compile the model (an op without a lowering, ...)."""


def build_parser() -> argparse.ArgumentParser:
    parser = cli.OneLineArgumentParser(
        prog=PROG,
        description="Compile a relay model (.mlir, .relay, or .onnx with the ONNX "
        "frontend), "
        "run it and summarise its outputs.",
        epilog=cli.GATING_HELP,
        formatter_class=cli.HelpFormatter,
    )
    parser.add_argument(
        "model",
        nargs="?",
        help="a .mlir file holding relay IR, a .relay file in Relay's text format, or "
        "an .onnx model",
    )
    parser.add_argument(
        "--example", action="store_true", help="run the bundled example model"
    )
    parser.add_argument(
        "--entry",
        default="main",
        help="the function to run (default: main; Relay's pipeline expects @main)",
    )
    group = parser.add_argument_group("inputs and outputs")
    group.add_argument(
        "--input",
        action="append",
        default=[],
        metavar="NAME=FILE.npy",
        help="the array for parameter NAME (repeatable); others are random",
    )
    group.add_argument(
        "--seed",
        type=cli.non_negative_int,
        default=0,
        help="seed of the random inputs (default 0)",
    )
    group.add_argument(
        "--output-dir",
        metavar="DIR",
        help="write the outputs as DIR/output_0.npy, output_1.npy, ...",
    )
    group.add_argument(
        "--expected",
        action="append",
        default=[],
        metavar="FILE.npy",
        help="the expected value of the next output (repeatable, in output order); "
        "a mismatch exits with code 1",
    )
    group.add_argument(
        "--rtol",
        type=cli.non_negative_float,
        default=1e-5,
        help="relative tolerance (default 1e-5)",
    )
    group.add_argument(
        "--atol",
        type=cli.non_negative_float,
        default=1e-5,
        help="absolute tolerance (default 1e-5)",
    )
    group = parser.add_argument_group("compiling and running")
    group.add_argument(
        "-p",
        "--passes",
        metavar="PIPELINE",
        help=f"the passes to run before executing, as for xrelay-opt -p (default: "
        f"{DEFAULT_PIPELINE} when it exists, else {FALLBACK_PIPELINE})",
    )
    group.add_argument(
        "--executor",
        choices=("auto", "interpreter", "llvm"),
        default="auto",
        help="interpreter: the numpy reference interpreter; llvm: compile to LLVM "
        "(xrelay.build); auto (default): llvm when available, else interpreter",
    )
    group.add_argument(
        "--repeat",
        type=_positive_int,
        default=1,
        metavar="N",
        help="run N times and report the median latency (default 1)",
    )
    group.add_argument(
        "--threads",
        type=cli.thread_count,
        default=None,
        metavar="N",
        help="run the compiled model on N threads (default: $XRELAY_NUM_THREADS, else "
        "the available cores, one for tiny models)",
    )
    group.add_argument(
        "--precision",
        type=_precision,
        default="float32",
        metavar="{float32,bf16}",
        help="float32 (default), or bf16: bfloat16 convolutions and matrix products "
        "accumulating in float32 (ToMixedPrecision), on a CPU with AVX512-BF16; "
        "elsewhere the model runs in float32 and a warning says so",
    )
    group.add_argument(
        "--profile",
        action="store_true",
        help="build with profiling and print the time of every kernel, slowest "
        "first (llvm executor)",
    )
    group.add_argument(
        "--trace",
        metavar="FILE.json",
        help="write the profiled run as a Chrome trace (Perfetto, chrome://tracing); "
        "implies --profile",
    )
    group.add_argument(
        "--times-json",
        metavar="FILE.json",
        help='write {"group": ms} of the profiled run, for xrelay-opt -p '
        "'view-graph{times=FILE.json}'; implies --profile",
    )
    group.add_argument(
        "--no-cache",
        action="store_true",
        help="compile even if the compile cache ($XRELAY_CACHE_DIR, else "
        "~/.cache/xrelay) holds this model, and do not store it",
    )
    group.add_argument(
        "--time-passes",
        action="store_true",
        help="print the PassTimingInstrument tree of the compile on stderr",
    )
    group.add_argument(
        "--print-ir",
        action="store_true",
        help="print the compiled IR (large constants elided)",
    )
    group.add_argument(
        "--progress-after",
        type=cli.delay_seconds,
        default=1.5,
        metavar="SECONDS",
        help="print a progress line on stderr when compiling takes longer (default 1.5)",
    )
    group.add_argument(
        "--list-passes",
        action="store_true",
        help="list the passes -p takes (with their options) and exit",
    )
    cli.add_plugin_argument(parser)
    cli.add_pass_context_arguments(parser, PROG)
    cli.add_reproducer_arguments(parser, with_file=False)
    parser.add_argument(
        "--debug", action="store_true", help="show Python tracebacks on errors"
    )
    parser.add_argument(
        "-v",
        "--version",
        action="version",
        version=version_text(),
        help="print the versions of xrelay and xDSL and exit",
    )
    return parser


def version_text() -> str:
    import xdsl

    return f"{PROG} {xrelay_version()} built on xdsl {xdsl.__version__}"


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected an integer, got '{text}'") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be >= 1, got {value}")
    return value


# ---------------------------------------------------------------------------------------
# Models and inputs
# ---------------------------------------------------------------------------------------


@dataclass
class Model:
    module: ModuleOp
    name: str
    params: dict[str, Any] = field(default_factory=dict[str, Any])
    inputs: list[Any] | None = None
    """Inputs that come with the model (the bundled example)."""


def load_model(path: Path, given: dict[str, Any]) -> Model:
    from xrelay.tools.models import load_mlir, load_onnx, read_bytes

    suffix = path.suffix.lower()
    if suffix == ".mlir":
        return Model(load_mlir(path), str(path))
    if suffix == ".relay":
        return Model(load_relay_text(path), str(path))
    if suffix == ".onnx":
        shapes = {k: np.shape(v) for k, v in given.items()}
        module, params = load_onnx(read_bytes(path), str(path), shapes)
        return Model(module, str(path), params)
    raise RunError(
        f"{path}: unsupported model file '{path.suffix or path.name}' (expected .mlir, "
        ".relay or .onnx)"
    )


def load_relay_text(path: Path) -> ModuleOp:
    """A model in Relay's text format (as ``xrelay-opt`` reads ``.relay`` files)."""
    from xrelay.dialects.relay.dominance import verify_module
    from xrelay.frontend.relay.text_parser import RelayTextError, parse
    from xrelay.tools.diagnostics import located
    from xrelay.tools.models import read_bytes

    text = read_bytes(path).decode("utf-8", errors="replace")
    try:
        module: ModuleOp = parse(text, str(path)).module
    except RelayTextError as e:
        raise RunError(e.message, e.location) from e
    try:
        verify_module(module)
    except Exception as e:
        raise located(e, module) from e
    return module


def read_inputs(items: Sequence[str]) -> dict[str, Any]:
    named: dict[str, Any] = {}
    for item in items:
        name, sep, file = item.partition("=")
        if not sep or not name or not file:
            raise UsageError(f"--input {item}: expected NAME=FILE.npy")
        try:
            # a regular file only: a FIFO or a device is refused, never waited on
            fd, _ = open_regular(file)
            with os.fdopen(fd, "rb") as f:
                named[name] = np.load(f, allow_pickle=False)
        except (OSError, ValueError, EOFError) as e:
            raise RunError(f"--input {item}: cannot read {file}: {e}") from e
    return named


def arg_name(arg: Any, index: int) -> str:
    """The name of a parameter of the entry function: its original name (the decoded
    name hint, see :mod:`xrelay.names`), else ``arg<index>``."""
    hint = arg.name_hint
    return decode_name(hint) if hint else f"arg{index}"


def make_inputs(
    func: FuncOp,
    named: dict[str, Any],
    seed: int,
    params: dict[str, Any] | None = None,
    random_names: list[str] | None = None,
) -> list[Any]:
    """One array per parameter of ``func``: from ``named`` (``--input``) or
    ``params`` by parameter name, else random with ``seed`` (their names are
    appended to ``random_names``)."""
    params = params or {}
    rng = np.random.default_rng(seed)
    args: list[Any] = []
    block_args = list(func.body.block.args)
    names = [arg_name(p, i) for i, p in enumerate(block_args)]
    for name in named:
        if name not in names:
            raise RunError(
                f"--input {name}: @{func.sym_name.data} has no parameter of that name "
                f"(it has {', '.join(names) or 'none'})"
            )
    for name, param in zip(names, block_args, strict=True):
        ty = param.type
        if name in named or name in params:
            value = np.asarray(named[name] if name in named else params[name])
            if isinstance(ty, TensorType):
                value = _as_bfloat16(value, dtypes.numpy_dtype(ty.get_element_type()))
                _check_input(name, value, ty)
            args.append(value)
            continue
        if not isinstance(ty, TensorType):
            raise RunError(f"parameter %{name} has type {ty}; give it with --input")
        shape = ty.get_shape()
        if any(d < 0 for d in shape):
            raise RunError(
                f"parameter %{name} has a dynamic shape {ty}; give it with --input"
            )
        if random_names is not None:
            random_names.append(name)
        npd = dtypes.numpy_dtype(ty.get_element_type())
        _check_random_input(name, ty, shape, npd)
        if npd.kind == "f" or dtypes.is_bfloat16(npd):
            args.append(rng.standard_normal(shape).astype(npd))
        elif npd.kind == "b":
            args.append(rng.integers(0, 2, shape).astype(npd))
        else:
            args.append(rng.integers(0, 10, shape).astype(npd))
    return args


MAX_RANK = 64
"""The largest rank numpy (hence the interpreter and the executor) handles."""


def _check_random_input(
    name: str, ty: Any, shape: Sequence[int], npd: np.dtype[Any]
) -> None:
    """A random input of ``shape`` can exist: rank at most :data:`MAX_RANK`, size
    under numpy's limit (``2**63`` bytes)."""
    if len(shape) > MAX_RANK:
        raise RunError(
            f"parameter %{name} has rank {len(shape)}; at most {MAX_RANK} dimensions "
            "can be run"
        )
    if math.prod(shape) * npd.itemsize >= 1 << 63:
        raise RunError(
            f"parameter %{name} ({ty}) is larger than any array can be; give a "
            "smaller model"
        )


def _as_bfloat16(value: Any, npd: np.dtype[Any]) -> Any:
    """A ``.npy`` file keeps an ``ml_dtypes.bfloat16`` array as 2-byte raw records
    (``<V2``): read those bytes as bfloat16 where bfloat16 is wanted."""
    dt = value.dtype
    if dtypes.is_bfloat16(npd) and dt.kind == "V" and dt.itemsize == 2 and not dt.names:
        return value.view(npd)
    return value


def _check_input(name: str, value: Any, ty: TensorType[Any]) -> None:
    shape = ty.get_shape()
    if len(shape) != value.ndim or any(
        d >= 0 and d != v for d, v in zip(shape, value.shape, strict=True)
    ):
        raise RunError(
            f"--input {name}: shape {list(value.shape)} does not match the parameter "
            f"type {ty}"
        )
    npd = dtypes.numpy_dtype(ty.get_element_type())
    if value.dtype != npd:
        raise RunError(
            f"--input {name}: dtype {value.dtype} does not match the parameter type {ty}"
        )


# ---------------------------------------------------------------------------------------
# Compiling
# ---------------------------------------------------------------------------------------


def llvm_build() -> Callable[..., Any] | None:
    """``xrelay.build`` when the LLVM lowering exists, else None."""
    try:
        from xrelay.runtime.build import build
    except ImportError:  # the LLVM lowering is not part of this build
        return None
    return build


def choose_executor(requested: str) -> tuple[str, str]:
    """``(executor, note)``: the executor to use and how to describe it."""
    available = llvm_build() is not None
    if requested == "llvm" and not available:
        raise RunError(
            "--executor llvm is not available yet: the LLVM lowering (xrelay.build) "
            "is not part of this build; use --executor interpreter"
        )
    if requested == "llvm" or (requested == "auto" and available):
        return "llvm", "llvm (xrelay.build, JIT-compiled with llvmlite)"
    note = "reference interpreter (numpy)"
    if not available:
        note += "; the LLVM executor comes with the lowering"
    return "interpreter", note


def available_passes() -> dict[str, Callable[[], type[Any]]]:
    from xdsl.universe import Universe

    from xrelay.tools import plugins, universe

    passes = dict(Universe.get_multiverse().all_passes)
    passes.update(plugins.xdsl_passes())
    passes.update(universe.all_passes())
    return passes


def default_pipeline() -> str:
    from xrelay.pass_manager import UnknownPassError
    from xrelay.pass_manager.registry import lookup

    try:
        return lookup(DEFAULT_PIPELINE).pipeline_name
    except UnknownPassError:
        return FALLBACK_PIPELINE


class Progress:
    """Prints ``xrelay-run: <what> ...`` on stderr if the work is still running after
    ``delay`` seconds, and how long it took when it ends."""

    def __init__(self, what: str, delay: float):
        self.what = what
        self.fired = False
        self.start = time.perf_counter()
        self.timer = threading.Timer(max(delay, 0.0), self._fire)
        self.timer.daemon = True

    def _fire(self) -> None:
        self.fired = True
        print(f"{PROG}: {self.what} ...", file=sys.stderr, flush=True)

    def __enter__(self) -> Progress:
        self.timer.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.timer.cancel()
        self.timer.join()
        if self.fired and exc[0] is None:
            elapsed = time.perf_counter() - self.start
            print(f"{PROG}: {self.what}: done in {elapsed:.1f} s", file=sys.stderr)


@dataclass
class Compiled:
    module: ModuleOp
    executor: str
    pipeline: str
    seconds: float
    lib: Any = None
    timing: str = ""


def _precision(text: str) -> str:
    """An argparse type: a precision of :mod:`xrelay.runtime.precision`."""
    from xrelay.runtime.precision import PrecisionError, check_precision

    try:
        return check_precision(text)
    except PrecisionError as e:
        raise argparse.ArgumentTypeError(str(e)) from None


def _precision_config(precision: str) -> dict[str, Any]:
    """The PassContext config of ``--precision`` on this host (relay.build's
    pipeline runs ToMixedPrecision when it is set; :mod:`xrelay.runtime.precision` decides)."""
    from xrelay.runtime.precision import build_mixed_precision_type
    from xrelay.transforms.to_mixed_precision import BUILD_MIXED_PRECISION_TYPE

    mixed = build_mixed_precision_type(precision)
    return {BUILD_MIXED_PRECISION_TYPE: mixed} if mixed else {}


def compile_model(model: Model, args: argparse.Namespace, executor: str) -> Compiled:
    """Run the pipeline (interpreter) or ``xrelay.build`` (llvm) under one
    PassContext built from the flags."""
    from xrelay.pass_manager import PassTimingInstrument
    from xrelay.pass_manager.reproducer import capture_crashes
    from xrelay.tools.diagnostics import located
    from xrelay.tools.models import mlir_context

    spec = args.passes if args.passes is not None else default_pipeline()
    if executor == "llvm" and args.passes is None:
        spec = ""  # xrelay.build runs Relay's pipeline itself
    available = available_passes()
    passes = cli.build_pipeline(available, spec, PROG)
    instruments = [PassTimingInstrument()] if args.time_passes else []
    ctx = cli.build_pass_context(
        args, PROG, instruments, list(available), _precision_config(args.precision)
    )
    module = model.module.clone()
    lib: Any = None
    timing = ""
    what = f"compiling {model.name} (opt_level {args.opt_level})"
    specs = [str(p.pipeline_pass_spec()) for p in passes]
    if executor == "llvm":
        specs.append("relay-optimize")  # what xrelay.build runs
    repro = cli.crash_reproducer(args, specs)
    with Progress(what, args.progress_after), ctx, capture_crashes(repro):
        start = time.perf_counter()
        xdsl_ctx = mlir_context()
        for xdsl_pass in passes:
            try:
                cli.run_pipeline_pass(xdsl_pass, module, xdsl_ctx)
            except Exception as e:
                raise located(e, module) from e
        if executor == "llvm":
            lib = _build_llvm(
                model, module, args.entry, args.no_cache, profile=args.profile
            )
        seconds = time.perf_counter() - start
        if args.time_passes:
            timing = PassTimingInstrument.render()
    shown = spec or "none"
    if executor == "llvm":
        shown += " + xrelay.build"
    return Compiled(module, executor, shown, seconds, lib, timing)


def _build_llvm(
    model: Model,
    module: ModuleOp,
    entry: str,
    no_cache: bool = False,
    profile: bool = False,
) -> Any:
    from xrelay.frontend import relay
    from xrelay.lowering.work_bound import WorkLimitError
    from xrelay.settings import SettingError

    build = llvm_build()
    assert build is not None
    try:
        return build(
            relay.IRModule(module),
            target="llvm",
            params=model.params or None,
            **({} if entry == "main" else {"entry": entry}),
            **({"cache": False} if no_cache else {}),
            **({"profile": True} if profile else {}),
        )
    except (UserError, SettingError):
        raise
    except WorkLimitError as e:  # the interpreter would not end either: no fallback
        raise RunError(f"{model.name}: {first_line(str(e))}") from e
    except Exception as e:
        raise LLVMBuildError(
            f"{model.name}: cannot compile for llvm: {first_line(str(e))}"
        ) from e


# ---------------------------------------------------------------------------------------
# Running and reporting
# ---------------------------------------------------------------------------------------


def flatten(value: Any) -> list[Any]:
    if isinstance(value, tuple | list):
        out: list[Any] = []
        for v in value:  # pyright: ignore[reportUnknownVariableType]
            out += flatten(v)
        return out
    return [np.asarray(value)]


def prepare(
    compiled: Compiled,
    func: FuncOp,
    inputs: list[Any],
    entry: str,
    bound: Collection[str] = (),
    threads: int | None = None,
) -> tuple[Callable[[], list[Any]], int | None, Any]:
    """A function running the model once on ``inputs`` and returning its outputs
    (flattened), and the threads it runs on (``None`` for the interpreter);
    executor setup and input copies happen here, not in each run. ``bound``:
    parameters ``xrelay.build`` bound as weights (no input for those); ``threads``:
    the compiled model's thread count (``None``: the default). The third value is
    the compiled model's executor (``None`` for the interpreter)."""
    if compiled.executor == "llvm":
        m = compiled.lib.create()
        if threads is not None:
            m.set_num_threads(threads)
        names = [arg_name(p, i) for i, p in enumerate(func.body.block.args)]
        for name, value in zip(names, inputs, strict=True):
            if name not in bound:
                m.set_input(name, value)

        def run_llvm() -> list[Any]:
            m.run()
            return [np.asarray(m.get_output(i)) for i in range(m.get_num_outputs())]

        return run_llvm, m.num_threads, m

    from xrelay.runtime.interpreter import InterpreterError, interpret

    def run_interpreter() -> list[Any]:
        try:
            return flatten(interpret(compiled.module, *inputs, entry=entry))
        except InterpreterError as e:
            raise RunError(str(e)) from e

    return run_interpreter, None, None


def summarise(arr: Any, label: str) -> str:
    stats = ""
    vals = arr.astype(np.float32) if dtypes.is_bfloat16(arr.dtype) else arr
    if vals.size and vals.dtype.kind in "fiu":
        stats = f"  min {vals.min():.6g}  max {vals.max():.6g}  mean {vals.mean():.6g}"
    return f"{label}: {arr.dtype}{list(arr.shape)}{stats}"


def compare(
    outputs: list[Any], expected_files: Sequence[str], rtol: float, atol: float
) -> list[str]:
    """Lines describing each comparison; raises :class:`RunError` on a mismatch."""
    if len(expected_files) > len(outputs):
        raise RunError(
            f"{len(expected_files)} --expected files given, but the model has "
            f"{len(outputs)} output(s)"
        )
    lines: list[str] = []
    failures: list[str] = []
    for i, file in enumerate(expected_files):
        try:
            want = np.load(file, allow_pickle=False)
        except (OSError, ValueError) as e:
            raise RunError(f"--expected {file}: cannot read: {e}") from e
        got = outputs[i]
        if want.dtype.kind not in "biuf" and not dtypes.is_bfloat16(got.dtype):
            raise RunError(
                f"--expected {file}: dtype {want.dtype} is not a number type (the "
                f"output is {got.dtype})"
            )
        if dtypes.is_bfloat16(got.dtype):  # compared as float32 values
            got = got.astype(np.float32)
            want = _as_bfloat16(want, dtypes.BFLOAT16).astype(np.float32)
        if want.shape != got.shape:
            failures.append(
                f"output {i}: shape {list(got.shape)} but {file} has {list(want.shape)}"
            )
            continue
        diff = np.abs(got.astype(np.float64) - want.astype(np.float64))
        max_abs = float(diff.max()) if diff.size else 0.0
        with np.errstate(divide="ignore", invalid="ignore"):
            rel = diff / np.abs(want.astype(np.float64))
        rel = np.where(diff == 0, 0.0, rel)
        max_rel = float(np.nanmax(rel)) if rel.size else 0.0
        ok = bool(np.allclose(got, want, rtol=rtol, atol=atol, equal_nan=True))
        verdict = "matches" if ok else "does not match"
        line = (
            f"output {i} {verdict} {file}: max abs error {max_abs:.3g}, max rel error "
            f"{max_rel:.3g} (rtol {rtol:g}, atol {atol:g})"
        )
        (lines if ok else failures).append(line)
    if failures:
        for line in lines:
            print(line)
        raise RunError("; ".join(failures))
    return lines


def run(args: argparse.Namespace) -> int:
    from xrelay.tools import plugins

    for spec in args.load_pass_plugin:
        plugins.load_pass_plugin(spec)
    if args.list_pass_configs:
        sys.stdout.write(cli.list_pass_configs())
        return 0
    if args.list_passes:
        from xrelay.tools.xrelay_opt import list_passes_text

        sys.stdout.write(list_passes_text(available_passes()))
        return 0
    if args.example and args.model is not None:
        raise UsageError("give a model file or --example, not both")
    if args.executor != "interpreter":
        # a bad $XRELAY_NUM_THREADS, $XRELAY_TILE_ROWS, ... is a configuration
        # error, not a reason to fall back to the interpreter (nor hidden by a
        # cache hit)
        from xrelay.runtime.environment import check_environment

        check_environment(threads=args.threads is None)
    named = read_inputs(args.input)
    if args.example:
        from xrelay.tools.example import example_module

        module, example_inputs = example_module(args.seed)
        model = Model(module, "bundled example", inputs=example_inputs)
        print("model: bundled example (a small CNN built with the builder API)")
        from xrelay.pass_manager.instrument import module_text

        print("IR after InferType (large constants elided):")
        print(module_text(module))
    elif args.model is None:
        raise UsageError("give a model file (.mlir, .relay or .onnx), or --example")
    else:
        model = load_model(Path(args.model), named)
        print(f"model: {args.model}")
    funcs = {op.sym_name.data: op for op in model.module.ops if isinstance(op, FuncOp)}
    entry: str = args.entry
    if entry not in funcs:
        have = ", ".join(f"@{n}" for n in funcs) or "none"
        raise RunError(f"{model.name}: no function @{entry} (it has {have})")
    func = funcs[entry]
    if func.is_declaration:
        raise RunError(f"{model.name}: @{entry} is a declaration (it has no body)")
    random_names: list[str] = []
    if model.inputs is not None and not named:
        inputs = model.inputs
        random_names = [arg_name(p, i) for i, p in enumerate(func.body.block.args)]
    else:
        try:
            inputs = make_inputs(func, named, args.seed, model.params, random_names)
        except MemoryError as e:
            raise out_of_memory(
                f"making the random input %{random_names[-1]}", func, e
            ) from e

    args.profile = bool(args.profile or args.trace or args.times_json)
    if args.profile and args.executor == "interpreter":
        raise UsageError("--profile times compiled kernels: it needs --executor llvm")
    executor, note = choose_executor(args.executor)
    try:
        compiled = compile_model(model, args, executor)
    except MemoryError as e:
        raise out_of_memory(f"compiling {model.name}", model.module, e) from e
    except LLVMBuildError as e:
        if args.executor != "auto" or args.profile:
            raise
        print(
            f"{PROG}: note: {e.message}; running the reference interpreter instead",
            file=sys.stderr,
        )
        note = (
            "reference interpreter (numpy; the LLVM executor cannot run this model yet)"
        )
        compiled = compile_model(model, args, "interpreter")
    print(f"executor: {note}")
    func = next(
        op
        for op in compiled.module.ops
        if isinstance(op, FuncOp) and op.sym_name.data == entry
    )
    if compiled.timing:
        sys.stderr.write(compiled.timing)
    if args.print_ir:
        from xrelay.pass_manager.instrument import module_text

        what = "given to xrelay.build" if compiled.executor == "llvm" else "compiled"
        print(f"IR {what} (large constants elided):")
        print(module_text(compiled.module))
    cached = (
        ", from the compile cache" if getattr(compiled.lib, "from_cache", 0) else ""
    )
    print(
        f"compile: {compiled.seconds * 1e3:.1f} ms (passes: {compiled.pipeline}, "
        f"opt_level {args.opt_level}{cached})"
    )

    latencies: list[float] = []
    outputs: list[Any] = []
    for file in args.expected:  # unreadable files fail before a long run
        try:
            np.load(file, allow_pickle=False)
        except (OSError, ValueError) as e:
            raise RunError(f"--expected {file}: cannot read: {e}") from e
    if random_names:  # once the model compiled: what the outputs are made from
        listed = ", ".join(f"%{n}" for n in random_names)
        print(
            f"{PROG}: note: random data (--seed {args.seed}) for {listed}; give "
            "real data with --input NAME=FILE.npy",
            file=sys.stderr,
        )
    try:
        run_once, threads, executor_module = prepare(
            compiled, func, inputs, entry, model.params, args.threads
        )
    except MemoryError as e:
        raise out_of_memory(
            f"allocating the buffers of {model.name}{_buffer_sizes(compiled)}",
            compiled.module,
            e,
        ) from e
    for _ in range(args.repeat):
        start = time.perf_counter()
        try:
            outputs = run_once()
        except MemoryError as e:
            raise out_of_memory(f"running {model.name}", compiled.module, e) from e
        latencies.append(time.perf_counter() - start)
    for i, out in enumerate(outputs):
        print(summarise(out, f"output {i}"))
    median = statistics.median(latencies)
    spread = (
        f" (min {min(latencies) * 1e3:.2f} ms, max {max(latencies) * 1e3:.2f} ms)"
        if args.repeat > 1
        else ""
    )
    on = ""
    if threads is not None:
        on = f" on {threads} thread{'s' if threads > 1 else ''}"
    print(
        f"run latency: {median * 1e3:.2f} ms median of {args.repeat} run(s){on}{spread}"
    )
    if args.profile:
        _report_profile(executor_module, args)
    if args.output_dir is not None:
        out_dir = Path(args.output_dir)
        try:
            out_dir.mkdir(parents=True, exist_ok=True)
            for i, out in enumerate(outputs):
                np.save(out_dir / f"output_{i}.npy", out)
        except OSError as e:
            raise RunError(f"--output-dir {out_dir}: cannot write: {e.strerror}") from e
        print(f"wrote {len(outputs)} output(s) to {out_dir}/output_<i>.npy")
    for line in compare(outputs, args.expected, args.rtol, args.atol):
        print(line)
    return 0


def largest_buffer(root: Operation) -> str | None:
    """The largest statically shaped tensor an op under ``root`` makes, as
    ``the intermediate value of relay.X at file:line:col (shape, size)`` (``the
    constant ...`` for a ``relay.constant``); ``None`` when there is none."""
    from xrelay.dialects.relay.structural import ConstantOp
    from xrelay.tools.locations import location_of

    best: tuple[int, Operation, TensorType[Any]] | None = None
    for op in root.walk():
        for result in op.results:
            ty = result.type
            if not isinstance(ty, TensorType) or any(d < 0 for d in ty.get_shape()):
                continue
            try:
                itemsize = dtypes.numpy_dtype(ty.get_element_type()).itemsize
            except Exception:
                continue
            size = math.prod(ty.get_shape()) * itemsize
            if best is None or size > best[0]:
                best = (size, op, ty)
    if best is None:
        return None
    size, op, ty = best
    kind = "constant" if isinstance(op, ConstantOp) else "intermediate value of"
    where = location_of(op)
    at = f" at {where}" if where else ""
    shape = "x".join([*(str(d) for d in ty.get_shape()), str(ty.get_element_type())])
    return f"the {kind} {op.name}{at} ({shape}, {_bytes(size)})"


def _bytes(n: int) -> str:
    size = float(n)
    for unit in ("bytes", "KiB", "MiB", "GiB", "TiB"):
        if size < 1024 or unit == "TiB":
            return f"{size:.0f} {unit}" if unit == "bytes" else f"{size:.1f} {unit}"
        size /= 1024
    return f"{n} bytes"


def _buffer_sizes(compiled: Compiled) -> str:
    """`` (intermediates: one arena of N, inputs: N, outputs: N)`` of a compiled
    model; "" for the interpreter."""
    spec = getattr(compiled.lib, "spec", None)
    if spec is None:
        return ""

    def total(tensors: Sequence[Any]) -> int:
        return sum(math.prod(t.shape) * t.np_dtype.itemsize for t in tensors)

    return (
        f" (intermediates: one arena of {_bytes(spec.arena_size)}, inputs: "
        f"{_bytes(total(spec.inputs))}, outputs: {_bytes(total(spec.outputs))})"
    )


def out_of_memory(what: str, root: Operation | None, e: MemoryError) -> RunError:
    """The one-line error for running out of memory while doing ``what``, naming
    the largest buffer of the IR (an intermediate value or a constant)."""
    from xrelay.tools.diagnostics import pass_notes

    largest = largest_buffer(root) if root is not None else None
    detail = f"; the largest buffer is {largest}" if largest else ""
    return RunError(f"out of memory {what}{pass_notes(e)}{detail}")


def _report_profile(m: Any, args: argparse.Namespace) -> None:
    """Run ``--repeat`` times more with the profile read, print the table of the
    median run, write its trace and its times JSON where asked."""
    profile = m.profile(args.repeat)
    print(f"profile (median of {args.repeat} run(s), kernels slowest first):")
    print(profile.table())
    for path, write, what in (
        (args.trace, profile.write_trace, "Chrome trace"),
        (args.times_json, profile.write_times, "kernel times"),
    ):
        if path is None:
            continue
        try:
            write(path)
        except OSError as e:
            raise RunError(f"cannot write {path}: {e.strerror or e}") from e
        print(f"wrote the {what} to {path}")


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``xrelay-run``; returns the exit code (0, 1 on errors and mismatches,
    2 on bad flags)."""
    try:
        args = build_parser().parse_args(argv)
    except BrokenPipeError:  # --help into a closed pipe
        return cli.broken_pipe_exit()
    one_line_warnings(PROG)
    try:
        code = run(args)
        sys.stdout.flush()  # a closed pipe shows here, not at the interpreter's exit
        return code
    except (SystemExit, KeyboardInterrupt):
        raise
    except BrokenPipeError:
        return cli.broken_pipe_exit()
    except BaseException as e:
        if args.debug:
            raise
        sys.stdout.flush()
        report(PROG, e)
        cli.print_reproducer_note(PROG, e)
        return exit_code(e)


if __name__ == "__main__":
    sys.exit(main())
