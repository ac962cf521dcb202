"""What ``xrelay-opt`` and ``xrelay-run`` share: the PassContext flags and how they
map onto one :class:`~xrelay.pass_manager.PassContext`, building a ``-p`` pipeline
with one-line errors, and running it through the pass manager's instrumented path.
"""

from __future__ import annotations

import argparse
import difflib
import math
import os
import re
import signal
import sys
import textwrap
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, NoReturn

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass as XDSLModulePass
from xdsl.utils.arg_spec import ArgSpec, parse_pipeline
from xdsl.utils.exceptions import ArgSpecParseError

from xrelay.pass_manager import (
    Pass,
    PassConfigError,
    PassContext,
    PassInfo,
    PassInstrument,
)
from xrelay.pass_manager.opt_levels import DEFAULT_OPT_LEVELS
from xrelay.pass_manager.passes import ModuleKind, apply_in_place
from xrelay.pass_manager.registry import PassEntry
from xrelay.tools.diagnostics import UsageError, UserError, arg_spec_message, warn

GATING_HELP = """\
gating: --opt-level, --required-pass and --disabled-pass decide which children of a
Sequential run (e.g. the passes of relay-optimize): disabled beats required beats
opt_level. A pass named explicitly in -p always runs, as a directly called pass
does in TVM, and so do the passes a running pass requires."""


class HelpFormatter(argparse.RawDescriptionHelpFormatter):
    """Help wrapped between words only: names with hyphens (``riscv-asm``,
    ``--list-pass-configs``) are never split across lines."""

    def _split_lines(self, text: str, width: int) -> list[str]:
        return textwrap.wrap(
            " ".join(text.split()),
            width,
            break_on_hyphens=False,
            break_long_words=False,
        )


class OneLineArgumentParser(argparse.ArgumentParser):
    """An argument parser whose usage errors are one line (and exit code 2)."""

    def error(self, message: str) -> NoReturn:
        one_line_usage_error(self, message)


def one_line_usage_error(parser: argparse.ArgumentParser, message: str) -> NoReturn:
    print(
        f"{parser.prog}: error: {message} (see {parser.prog} --help)", file=sys.stderr
    )
    sys.exit(2)


def broken_pipe_exit() -> int:
    """What a tool does when its reader goes away (``xrelay-opt f.mlir | head -1``):
    no message, stdout pointed at ``/dev/null`` so that the interpreter's last flush
    does not complain, and the exit status of a process killed by SIGPIPE (141), as
    Unix tools have."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError):  # no real stdout (an in-process call)
        pass
    return 128 + signal.SIGPIPE


def split_names(values: Iterable[str] | None) -> list[str]:
    """Repeatable, comma-separated name lists → one flat list (order kept)."""
    names: list[str] = []
    for value in values or ():
        names += [n.strip() for n in value.split(",") if n.strip()]
    return names


def add_pass_context_arguments(parser: argparse.ArgumentParser, prog: str) -> None:
    """``--opt-level`` (default: ``prog``'s row of :mod:`~xrelay.pass_manager.opt_levels`),
    ``--required-pass``, ``--disabled-pass``, ``--pass-config``."""
    group = parser.add_argument_group("pass context (TVM's PassContext)")
    default = DEFAULT_OPT_LEVELS[prog]
    group.add_argument(
        "--opt-level",
        type=non_negative_int,
        default=default.level,
        metavar="N",
        help=f"PassContext opt_level (default {default.level}: {default.reason})",
    )
    group.add_argument(
        "--required-pass",
        action="append",
        default=[],
        metavar="A,B",
        help="passes a Sequential runs whatever the opt_level (TVM or pipeline names; "
        "repeatable)",
    )
    group.add_argument(
        "--disabled-pass",
        action="append",
        default=[],
        metavar="A,B",
        help="passes a Sequential skips (TVM or pipeline names; repeatable)",
    )
    group.add_argument(
        "--pass-config",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="a registered PassContext config option, e.g. relay.FuseOps.max_depth=8 "
        "(repeatable; --list-pass-configs lists them)",
    )
    group.add_argument(
        "--list-pass-configs",
        action="store_true",
        help="list the registered config options and exit",
    )


def option_type_name(typ: Any) -> str:
    """``int``, ``bool``, ``str``, ``float``; ``str,...`` for a tuple of them."""
    args = getattr(typ, "__args__", None)
    if args:  # tuple[str, ...]
        return f"{option_type_name(args[0])},..."
    return getattr(typ, "__name__", str(typ))


def option_value_text(value: Any) -> str:
    """A default as it is written in ``-p``: ``"text"``, ``true``, ``a,b``."""
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, str):
        return f'"{value}"'
    if isinstance(value, tuple | list):
        return ",".join(option_value_text(v) for v in value)  # pyright: ignore[reportUnknownVariableType]
    return str(value)


def option_lines(entry: PassEntry, indent: str) -> list[str]:
    """One line per option of a registered pass: ``name: type = default  help``
    (the name as ``-p`` spells it)."""
    lines: list[str] = []
    helps = entry.option_help or ("",) * len(entry.options)
    for (name, typ, default), text in zip(entry.options, helps, strict=True):
        head = f"{name.replace('_', '-')}: {option_type_name(typ)} = "
        head += option_value_text(default)
        lines.append(f"{indent}{head}  {text}".rstrip())
    return lines


def pass_options_help() -> str:
    """The ``--help`` section on pass options: each registered pass that has
    options, with their types, defaults and help."""
    from xrelay.pass_manager.registry import all_entries

    lines = ["pass options (-p 'name{option=value option=value}'; quote values with "]
    lines[0] += "spaces, commas or braces):"
    for entry in all_entries():
        if not entry.options:
            continue
        spec = " ".join(
            f"{n.replace('_', '-')}={option_type_name(t)}" for n, t, _ in entry.options
        )
        lines.append(f"  {entry.pipeline_name}{{{spec}}}")
        lines += option_lines(entry, "      ")
    return "\n".join(lines)


PLUGIN_FLAG = "--load-pass-plugin"


def add_plugin_argument(parser: argparse.ArgumentParser) -> None:
    """``--load-pass-plugin PATH_OR_MODULE`` (repeatable)."""
    parser.add_argument(
        PLUGIN_FLAG,
        action="append",
        default=[],
        metavar="PATH_OR_MODULE",
        help="load passes from a Python file or an importable module (repeatable): "
        "the passes it registers with xrelay's register_pass, and the xDSL "
        "ModulePass classes it defines, become available to -p. Packages can "
        "advertise passes with an 'xrelay.passes' entry point instead",
    )


def plugin_specs(argv: Sequence[str]) -> list[str]:
    """The ``--load-pass-plugin`` values of a command line, read before it is
    parsed (the passes must be known when ``--help`` is printed)."""
    specs: list[str] = []
    it = iter(argv)
    for arg in it:
        if arg == "--":
            break
        if arg == PLUGIN_FLAG:
            value = next(it, None)
            if value is not None:
                specs.append(value)
        elif arg.startswith(PLUGIN_FLAG + "="):
            specs.append(arg[len(PLUGIN_FLAG) + 1 :])
    return specs


def non_negative_float(text: str) -> float:
    """An argparse type: a finite number >= 0 (a tolerance, a delay)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got '{text}'") from None
    if not math.isfinite(value) or value < 0:
        raise argparse.ArgumentTypeError(f"must be a finite number >= 0, got {text}")
    return value


MAX_DELAY = 1e6
"""The longest delay a flag may ask for, in seconds (11 days; a timer cannot wait
for ``1e300`` seconds)."""


def delay_seconds(text: str) -> float:
    """An argparse type: a delay in seconds, 0 to :data:`MAX_DELAY`."""
    value = non_negative_float(text)
    if value > MAX_DELAY:
        raise argparse.ArgumentTypeError(f"must be at most {MAX_DELAY:g}, got {text}")
    return value


def non_negative_int(text: str) -> int:
    """An argparse type: an integer >= 0."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected an integer, got '{text}'") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be >= 0, got {value}")
    return value


def thread_count(text: str) -> int:
    """An argparse type: a thread count, 1 to ``MAX_THREADS``."""
    from xrelay.runtime.threads import MAX_THREADS

    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected an integer, got '{text}'") from None
    if not 1 <= value <= MAX_THREADS:
        raise argparse.ArgumentTypeError(
            f"must be an integer from 1 to {MAX_THREADS}, got {value}"
        )
    return value


def add_reproducer_arguments(parser: argparse.ArgumentParser, with_file: bool) -> None:
    """``--reproducer-dir``, ``--local-reproducer`` (and ``--crash-reproducer FILE``
    with ``with_file``)."""
    from xrelay.pass_manager.reproducer import ENV_DIR

    group = parser.add_argument_group(
        "crash reproducers (MLIR's --mlir-pass-pipeline-crash-reproducer)"
    )
    if with_file:
        group.add_argument(
            "--crash-reproducer",
            metavar="FILE",
            default=None,
            help="when a pass fails, write FILE: the IR before the failing pass, the "
            "pipeline from it on and the PassContext",
        )
    group.add_argument(
        "--reproducer-dir",
        metavar="DIR",
        default=None,
        help=f"when a pass fails, write DIR/xrelay-reproducer-<n>.mlir (default: "
        f"${ENV_DIR}); replay it with xrelay-opt --run-reproducer",
    )
    group.add_argument(
        "--local-reproducer",
        action="store_true",
        help="reproduce with the innermost failing pass alone, on the IR it got "
        "(snapshots the IR before every pass)",
    )


def crash_reproducer(args: argparse.Namespace, specs: Sequence[str]) -> Any:
    """The :class:`~xrelay.pass_manager.reproducer.CrashReproducer` the flags (or
    ``$XRELAY_REPRODUCER_DIR``) ask for, its destination checked; None if none."""
    from pathlib import Path

    from xrelay.pass_manager.reproducer import CrashReproducer, ReproducerError

    local = bool(args.local_reproducer)
    path = getattr(args, "crash_reproducer", None)
    if path is not None:
        repro = CrashReproducer(path=Path(path), local=local, specs=specs)
    elif args.reproducer_dir is not None:
        repro = CrashReproducer(
            directory=Path(args.reproducer_dir), local=local, specs=specs
        )
    else:
        repro = CrashReproducer.from_environment(specs, local or None)
    if repro is not None:
        try:
            repro.check_destination()
        except ReproducerError as e:
            raise UserError(str(e)) from e
    return repro


def print_reproducer_note(prog: str, e: BaseException) -> None:
    """``<prog>: note: crash reproducer written to ...`` if one was written for
    ``e`` (or could not be)."""
    from xrelay.pass_manager.reproducer import reproducer_note

    note = reproducer_note(e)
    if note is not None:
        print(f"{prog}: note: {note}", file=sys.stderr)


# ---------------------------------------------------------------------------------------
# Names, config, the context
# ---------------------------------------------------------------------------------------


def _load_config_owners() -> None:
    """Import the packages whose modules register config options (passes register
    theirs when xrelay.transforms is imported; lowering and runtime may add more)."""
    import importlib

    from xrelay.pass_manager.registry import all_entries

    all_entries()
    for package in ("xrelay.lowering", "xrelay.runtime"):
        try:
            importlib.import_module(package)
        except ImportError:
            pass


def parse_pass_configs(items: Sequence[str]) -> dict[str, Any]:
    """``--pass-config key=value`` items, typed by the registered options."""
    from xrelay.pass_manager.config import lookup_config

    if items:
        _load_config_owners()
    config: dict[str, Any] = {}
    for item in items:
        key, sep, text = item.partition("=")
        key = key.strip()
        if not sep or not key:
            raise UsageError(f"--pass-config {item}: expected KEY=VALUE")
        try:
            config[key] = lookup_config(key).parse(text.strip())
        except PassConfigError as e:
            raise UsageError(f"--pass-config {item}: {e}") from e
    return config


def list_pass_configs() -> str:
    _load_config_owners()
    lines: list[str] = []
    for name, option in PassContext.list_configs().items():
        lines.append(f"{name}  ({option['type']}, default {option['default']})")
        if option["doc"]:
            lines.append(f"    {option['doc']}")
    return "\n".join(lines) + "\n"


def pass_name_forms(name: str) -> tuple[str, ...]:
    """The names a pass given on the command line may carry in a ``PassInfo``: its
    TVM name and pipeline name when it is registered, else the name as given."""
    from xrelay.pass_manager import UnknownPassError
    from xrelay.pass_manager.registry import lookup

    try:
        entry = lookup(name)
    except UnknownPassError:
        return (name,)
    return tuple(dict.fromkeys((entry.name, entry.pipeline_name, name)))


def tvm_names(
    names: Sequence[str], flag: str, prog: str, known: Iterable[str] = ()
) -> list[str]:
    """Registered pass names (either form) → TVM names (what ``PassInfo.name``
    holds). A name that is neither registered nor in ``known`` (xDSL passes, named
    by their pipeline name) draws a warning and is kept as given."""
    from xrelay.pass_manager import UnknownPassError
    from xrelay.pass_manager.registry import lookup

    known_set = set(known)
    out: list[str] = []
    for name in names:
        try:
            out.append(lookup(name).name)
        except UnknownPassError as e:
            if name not in known_set:
                warn(prog, f"{flag} {name}: {e}; the name is used as given")
            out.append(name)
    return list(dict.fromkeys(out))


def build_pass_context(
    args: argparse.Namespace,
    prog: str,
    instruments: Sequence[PassInstrument] = (),
    known_names: Iterable[str] = (),
    extra_config: Mapping[str, Any] | None = None,
) -> PassContext:
    """The one PassContext of a tool run, from the shared flags."""
    known = list(known_names)
    config = dict(extra_config or {})
    config.update(parse_pass_configs(args.pass_config))
    return PassContext(
        opt_level=args.opt_level,
        required_pass=tvm_names(
            split_names(args.required_pass), "--required-pass", prog, known
        ),
        disabled_pass=tvm_names(
            split_names(args.disabled_pass), "--disabled-pass", prog, known
        ),
        instruments=instruments,
        config=config,
    )


# ---------------------------------------------------------------------------------------
# Pipelines
# ---------------------------------------------------------------------------------------


_PLAIN_VALUE = re.compile(r"[-+]?[0-9]+(\.[0-9]*([eE][-+]?[0-9]+)?)?|[A-Za-z0-9_-]+")
"""An option value xDSL's pipeline lexer reads unquoted (a number or a name)."""

_VALUE_STOP = ' ,{}"'


def quote_option_values(spec: str) -> str:
    """``spec`` with each unquoted option value that xDSL's pipeline syntax does not
    accept bare (``path=out/g.dot``, ``layouts=nn.conv2d=NHWC``) put in quotes. A
    value runs to the next space, comma or brace, so this is unambiguous; values
    holding those characters must be quoted by the user."""
    out: list[str] = []
    depth = 0
    i = 0
    while i < len(spec):
        c = spec[i]
        if c == '"':  # a quoted value: copied as it is
            end = i + 1
            while end < len(spec) and spec[end] != '"':
                end += 2 if spec[end] == "\\" else 1
            out.append(spec[i : end + 1])
            i = end + 1
            continue
        if c == "[" and depth == 0:  # mlir-opt[...]: copied as it is
            end = spec.find("]", i)
            end = len(spec) if end < 0 else end + 1
            out.append(spec[i:end])
            i = end
            continue
        out.append(c)
        i += 1
        if c == "{":
            depth += 1
        elif c == "}":
            depth = max(depth - 1, 0)
        elif depth > 0 and c in "=,":  # a value (or the next of a list) follows
            end = i
            while end < len(spec) and spec[end] not in _VALUE_STOP:
                end += 1
            value = spec[i:end]
            if value and not _PLAIN_VALUE.fullmatch(value):
                escaped = value.replace("\\", "\\\\")
                out.append(f'"{escaped}"')
                i = end
    return "".join(out)


def parse_pipeline_spec(spec: str) -> list[ArgSpec]:
    """The pass specs of a ``-p`` pipeline. Unquoted option values with characters
    outside xDSL's syntax (paths) are read as if quoted; a pipeline that still
    cannot be parsed is a one-line :class:`UserError` saying where, and how to
    quote."""
    try:
        return list(parse_pipeline(spec))
    except ArgSpecParseError as first:
        try:
            return list(parse_pipeline(quote_option_values(spec)))
        except ArgSpecParseError:
            pass
        raise UsageError(
            f"{arg_spec_message(first)}; quote option values that hold spaces, commas "
            "or braces: -p 'view-graph{path=\"my dir/g.dot\"}'"
        ) from first


def build_pipeline(
    available: Mapping[str, Callable[[], type[XDSLModulePass]]],
    spec: str,
    prog: str = "xrelay-opt",
) -> tuple[XDSLModulePass, ...]:
    """The passes of an ``xdsl-opt``-style pipeline spec (``a,b{opt=1}``); unknown
    passes and bad options are one-line :class:`UsageError`s, a bad ``-p``
    (``prog``: the tool whose ``--list-passes`` the hint names)."""
    specs = parse_pipeline_spec(spec)
    passes: list[XDSLModulePass] = []
    for pass_spec in specs:
        factory = available.get(pass_spec.name)
        if factory is None:
            close = difflib.get_close_matches(pass_spec.name, list(available), n=3)
            hint = f" (did you mean {', '.join(close)}?)" if close else ""
            raise UsageError(
                f"unknown pass '{pass_spec.name}'{hint}; '{prog} --list-passes' "
                "lists them"
            )
        try:
            passes.append(factory().from_pass_spec(pass_spec))
        except (ValueError, TypeError) as e:
            bare = [k for k, v in pass_spec.parameters.items() if v == ()]
            hint = (
                f" ('{bare[0]}' has no value: quote a value that holds spaces)"
                if bare
                else ""
            )
            raise UsageError(
                f"invalid options for pass '{pass_spec.name}': {e}{hint}"
            ) from e
    return tuple(passes)


class DriverXDSLPass(Pass):
    """An xDSL pass from a ``-p`` pipeline run through the pass manager (so that
    instruments see it), with the driver's xDSL context."""

    def __init__(self, xdsl_pass: XDSLModulePass, ctx: Context):
        self.xdsl_pass = xdsl_pass
        self.xdsl_ctx = ctx
        self.info = PassInfo(0, xdsl_pass.name)

    def apply(self, op: ModuleOp, ctx: PassContext, kind: ModuleKind) -> ModuleOp:
        self.xdsl_pass.apply(self.xdsl_ctx, op)
        return op


def info_name(xdsl_pass: XDSLModulePass) -> str:
    """The ``PassInfo`` name a pipeline pass runs under (TVM name for xrelay's)."""
    from xrelay.pass_manager.xdsl_interop import (
        AdaptedXDSLPass,
    )

    if isinstance(xdsl_pass, AdaptedXDSLPass):
        return xdsl_pass.make_pass().info.name
    return xdsl_pass.name


def run_pipeline_pass(
    xdsl_pass: XDSLModulePass, module: ModuleOp, ctx: Context
) -> None:
    """Run one pipeline pass in place under ``PassContext.current()``: xrelay's
    passes through their adapter, xDSL's wrapped so instruments and
    ``xrelay.verify_each`` see them too."""
    from xrelay.pass_manager.xdsl_interop import (
        AdaptedXDSLPass,
    )

    if isinstance(xdsl_pass, AdaptedXDSLPass):
        xdsl_pass.apply(ctx, module)
    else:
        apply_in_place(DriverXDSLPass(xdsl_pass, ctx), module)
