"""Crash reproducers (MLIR's ``--mlir-pass-pipeline-crash-reproducer``).

When a pass raises or leaves IR that does not verify inside :func:`capture_crashes`,
one ``.mlir`` file is written holding the IR just before the failing pass (with its
source locations, constants in full) under a header comment the tools read back::

    // xrelay-reproducer: {"pipeline": "test-break-ir,infer-type", "opt_level": 3, ...}
    // error: <what went wrong>
    // replay: xrelay-opt --run-reproducer <this file>

* full reproducer (default): the IR before the failing *top-level* pass (a ``-p``
  pass, or ``relay-optimize`` under ``xrelay.build``) and the pipeline from that pass
  on;
* local reproducer (``local=True``, MLIR's ``--mlir-pass-pipeline-local-reproducer``):
  the IR before the innermost failing pass (a child of a Sequential, the InferType
  after a function pass, ...) and that pass alone. It snapshots the IR before every
  pass, so it costs a module clone per pass; the full one clones once per top-level
  pass.

The PassContext (opt_level, required and disabled passes, config) is recorded, so
``xrelay-opt --run-reproducer FILE`` fails the same way.

Lowering failures (``xrelay.build`` / ``xrelay-run`` failing after the relay passes,
in :func:`~xrelay.lowering.pipeline.lower_model`) are captured the same way by
:func:`capture_lowering` around that call: the IR handed to lowering, with the
lowering passes as the pipeline (``relay-to-kernels{...},plan-memory,lower-to-llvm``)
and ``"target": "llvm"`` (the replay prints LLVM IR, as lowering emits it), so the
replay goes through every step of lowering.
"""

from __future__ import annotations

import dataclasses
import json
import os
import threading
from collections.abc import Generator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from io import StringIO
from pathlib import Path
from typing import Any

from xdsl.dialects.builtin import ModuleOp

from xrelay.pass_manager.context import PassContext
from xrelay.pass_manager.info import PassInfo
from xrelay.pass_manager.instrument import PassInstrument
from xrelay.pass_manager.opt_levels import default_opt_level

HEADER = "// xrelay-reproducer: "
ENV_DIR = "XRELAY_REPRODUCER_DIR"
"""Environment variable: write crash reproducers into this folder (xrelay-opt,
xrelay-run, xrelay.build)."""
ENV_LOCAL = "XRELAY_REPRODUCER_LOCAL"
"""Environment variable: ``1`` makes those reproducers local."""


class ReproducerError(ValueError):
    """A reproducer file cannot be read back (``line``: 1-based, or None), or a
    reproducer destination cannot be written."""

    def __init__(self, message: str, line: int | None = None):
        super().__init__(message)
        self.line = line


@dataclass
class Reproducer:
    """What a reproducer file holds."""

    pipeline: str
    opt_level: int = default_opt_level("PassContext")
    required_pass: list[str] = field(default_factory=list[str])
    disabled_pass: list[str] = field(default_factory=list[str])
    config: dict[str, Any] = field(default_factory=dict[str, Any])
    error: str = ""
    ir: str = ""
    target: str = ""
    """The output the replay prints (``xrelay-opt -t``): ``llvm`` for a lowering
    reproducer, whose last step is emitting LLVM IR; empty: the IR."""

    def header(self) -> dict[str, Any]:
        header: dict[str, Any] = {
            "pipeline": self.pipeline,
            "opt_level": self.opt_level,
            "required_pass": self.required_pass,
            "disabled_pass": self.disabled_pass,
            "config": self.config,
        }
        if self.target:
            header["target"] = self.target
        return header

    def render(self) -> str:
        lines = [HEADER + json.dumps(self.header(), sort_keys=True)]
        if self.error:
            lines.append("// error: " + " ".join(self.error.split()))
        lines.append("// replay: xrelay-opt --run-reproducer <this file>")
        return "\n".join(lines) + "\n" + self.ir.rstrip("\n") + "\n"

    def pass_context(self, **kwargs: Any) -> PassContext:
        """A PassContext with the recorded options (``kwargs``: instruments)."""
        return PassContext(
            self.opt_level,
            self.required_pass,
            self.disabled_pass,
            config=self.config,
            **kwargs,
        )

    @staticmethod
    def parse(text: str) -> Reproducer:
        """Read a reproducer file's header (the IR stays in the text)."""
        for number, line in enumerate(text.splitlines(), 1):
            if line.startswith(HEADER):
                return Reproducer._from_header(line[len(HEADER) :], number, text)
            if line.strip() and not line.lstrip().startswith("//"):
                break
        raise ReproducerError(
            f"not a crash reproducer: no '{HEADER.strip()}' line before the IR", 1
        )

    @staticmethod
    def _from_header(payload: str, line: int, text: str) -> Reproducer:
        try:
            data = json.loads(payload)
        except json.JSONDecodeError as e:
            raise ReproducerError(
                f"malformed crash reproducer header: {e.msg} at column "
                f"{e.colno + len(HEADER)}",
                line,
            ) from None
        if not isinstance(data, dict):
            raise ReproducerError(
                "malformed crash reproducer header: expected a JSON object", line
            )
        fields: dict[str, Any] = data  # pyright: ignore[reportUnknownVariableType]
        expected: dict[str, type] = {
            "pipeline": str,
            "opt_level": int,
            "required_pass": list,
            "disabled_pass": list,
            "config": dict,
        }
        for key, kind in expected.items():
            if key not in fields or not isinstance(fields[key], kind):
                raise ReproducerError(
                    f"malformed crash reproducer header: '{key}' must be a "
                    f"{kind.__name__}",
                    line,
                )
        target = fields.get("target", "")
        if target not in _TARGETS:
            raise ReproducerError(
                "malformed crash reproducer header: 'target' must be one of "
                + ", ".join(repr(t) for t in _TARGETS if t),
                line,
            )
        unknown = sorted(set(fields) - set(expected) - {"target"})
        if unknown:
            raise ReproducerError(
                f"malformed crash reproducer header: unknown key '{unknown[0]}'", line
            )
        return Reproducer(
            fields["pipeline"],
            fields["opt_level"],
            [str(n) for n in fields["required_pass"]],
            [str(n) for n in fields["disabled_pass"]],
            dict(fields["config"]),
            "",
            text,
            target,
        )


_TARGETS = ("", "llvm")
"""The ``target`` values a reproducer may ask its replay to print."""


def _json_value(value: Any) -> Any:
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return dataclasses.asdict(value)
    return value


def module_ir(op: ModuleOp) -> str:
    """The module as MLIR text that reads back: constants in full, locations kept."""
    from xdsl.printer import Printer

    from xrelay.dialects.relay import printing

    out = StringIO()
    with printing.elide_constants(None):
        Printer(stream=out, print_debuginfo=True).print_op(op)
    return out.getvalue()


# ---------------------------------------------------------------------------------------
# Watching the passes
# ---------------------------------------------------------------------------------------


class ReproducerInstrument(PassInstrument):
    """Keeps the stack of running passes with a snapshot of the IR each got (top-level
    passes only unless ``local``). After a pass raised, the stack still holds it:
    its ``run_after_pass`` never came."""

    def __init__(self, local: bool = False):
        self.local = local
        self.stack: list[tuple[PassInfo, ModuleOp | None]] = []
        self.top_index = -1
        """How many top-level passes started, minus one."""

    def reset(self) -> None:
        self.stack.clear()
        self.top_index = -1

    def run_before_pass(self, mod: Any, info: PassInfo) -> None:
        stack = self.stack
        if not stack:
            self.top_index += 1
        snapshot = None
        if self.local or not stack:
            op: ModuleOp = getattr(mod, "module", mod)
            snapshot = op.clone()
        stack.append((info, snapshot))

    def run_after_pass(self, mod: Any, info: PassInfo) -> None:
        stack = self.stack
        while stack:  # also drops passes that raised inside a pass that went on
            if stack.pop()[0] is info:
                break


def _pipeline_name(name: str) -> str:
    from xrelay.pass_manager.registry import UnknownPassError, lookup

    try:
        return lookup(name).pipeline_name
    except UnknownPassError:
        return name


@dataclass
class CrashReproducer:
    """Where reproducers go and what the driver's top-level pipeline is.

    ``path``: the file to write; else ``directory`` (created if needed) gets
    ``xrelay-reproducer-<n>.mlir`` with the first free ``n``. ``specs``: the
    pipeline specs (``fuse-ops{fuse-opt-level=2}``) of the top-level passes the driver
    runs, in order; a top-level pass past them is named by its pipeline name."""

    path: Path | None = None
    directory: Path | None = None
    local: bool = False
    specs: Sequence[str] = ()
    instrument: ReproducerInstrument = field(init=False)

    def __post_init__(self) -> None:
        self.instrument = ReproducerInstrument(self.local)

    @staticmethod
    def from_environment(
        specs: Sequence[str] = (), local: bool | None = None
    ) -> CrashReproducer | None:
        """The reproducer ``$XRELAY_REPRODUCER_DIR`` asks for, if any (local if
        ``local``, else as ``$XRELAY_REPRODUCER_LOCAL`` says)."""
        directory = os.environ.get(ENV_DIR)
        if not directory:
            return None
        if local is None:
            local = os.environ.get(ENV_LOCAL, "") not in ("", "0")
        return CrashReproducer(directory=Path(directory), local=local, specs=specs)

    def check_destination(self) -> None:
        """Fail early (:class:`ReproducerError`) when the destination cannot be
        written."""
        if self.path is not None:
            folder = self.path.parent
            what = f"crash reproducer {self.path}"
        else:
            assert self.directory is not None
            folder = self.directory
            what = f"reproducer folder {self.directory}"
            try:
                folder.mkdir(parents=True, exist_ok=True)
            except OSError as e:
                raise ReproducerError(f"{what}: cannot create: {e.strerror}") from e
        if not folder.is_dir():
            raise ReproducerError(f"{what}: {folder} is not a folder")
        if not os.access(folder, os.W_OK | os.X_OK):
            raise ReproducerError(f"{what}: cannot write into {folder}")

    def reproducer(self, error: BaseException, ctx: PassContext) -> Reproducer | None:
        """The reproducer of the failure that just happened, or None when no pass
        was running (a parse or input verification error)."""
        stack = self.instrument.stack
        if not stack:
            return None
        top = self.instrument.top_index
        specs = list(self.specs)
        if self.local:
            info, snapshot = stack[-1]
            if len(stack) == 1 and top < len(specs):
                pipeline = specs[top]
            else:
                pipeline = _pipeline_name(info.name)
        else:
            info, snapshot = stack[0]
            tail = specs[top:] if top < len(specs) else [_pipeline_name(info.name)]
            pipeline = ",".join(tail)
        assert snapshot is not None
        notes = [n for n in getattr(error, "__notes__", ()) if n.startswith("in pass")]
        message = (str(error).strip().splitlines() or [type(error).__name__])[0]
        return Reproducer(
            pipeline,
            ctx.opt_level,
            ctx.required_pass,
            ctx.disabled_pass,
            {k: _json_value(v) for k, v in ctx.config.items()},
            " ".join([message, *(f"({n})" for n in notes[:1])]),
            module_ir(snapshot),
        )

    def write(self, error: BaseException, ctx: PassContext) -> Path | None:
        """Write the reproducer of ``error``; returns its path (None: no pass was
        running and lowering did not fail). Raises OSError when the file cannot be
        written."""
        repro = self.reproducer(error, ctx)
        if repro is None:
            repro = attached_reproducer(error)
        if repro is None:
            return None
        return self.write_reproducer(repro)

    def write_reproducer(self, repro: Reproducer) -> Path:
        """Write ``repro`` to the destination; its path."""
        text = repro.render()
        if self.path is not None:
            self.path.write_text(text)
            return self.path
        assert self.directory is not None
        self.directory.mkdir(parents=True, exist_ok=True)
        n = 0
        while True:
            path = self.directory / f"xrelay-reproducer-{n}.mlir"
            try:
                with open(path, "x") as f:
                    f.write(text)
                return path
            except FileExistsError:
                n += 1


class _Active(threading.local):
    def __init__(self) -> None:
        self.depth = 0


_active = _Active()

WRITTEN = "crash reproducer written to "
"""The note a captured exception carries (then the path)."""


UNWRITTEN = "cannot write the crash reproducer: "


def reproducer_note(e: BaseException | None) -> str | None:
    """The note saying where the reproducer of ``e`` was written (or why not), on
    ``e`` or on an exception it was raised from."""
    while e is not None:
        for note in getattr(e, "__notes__", ()):
            if note.startswith((WRITTEN, UNWRITTEN)):
                return note
        e = e.__cause__
    return None


@contextmanager
def capture_crashes(
    reproducer: CrashReproducer | None,
) -> Generator[None, None, None]:
    """Within the block, a pass failing in ``PassContext.current()`` writes
    ``reproducer``; the exception propagates with a note naming the file (or why
    it could not be written). Nested captures (``xrelay.build`` inside
    ``xrelay-run``) defer to the outermost; ``None`` captures nothing."""
    if reproducer is None or _active.depth:
        yield
        return
    instrument = reproducer.instrument
    instrument.reset()
    _active.depth += 1
    try:
        with PassContext.current().with_instruments([instrument]) as ctx:
            try:
                yield
            except Exception as e:
                try:
                    path = reproducer.write(e, ctx)
                except OSError as oe:
                    e.add_note(f"{UNWRITTEN}{oe.strerror}")
                else:
                    if path is not None:
                        e.add_note(WRITTEN + str(path))
                raise
    finally:
        _active.depth -= 1
        instrument.reset()


# ---------------------------------------------------------------------------------------
# Lowering
# ---------------------------------------------------------------------------------------

_ATTACHED = "xrelay_lowering_reproducer"
"""The attribute of an exception holding the reproducer of the lowering it broke,
for the outermost :func:`capture_crashes` to write."""


def lowering_pipeline(entry: str = "main", profile: bool = False) -> str:
    """The pipeline spec of the lowering steps of ``lower_model``."""
    flag = "true" if profile else "false"
    return (
        f"relay-to-kernels{{entry={json.dumps(entry)} profile={flag}}},"
        "plan-memory,lower-to-llvm"
    )


def attached_reproducer(error: BaseException | None) -> Reproducer | None:
    """The lowering reproducer carried by ``error`` or an exception it came from."""
    seen: set[int] = set()
    while error is not None and id(error) not in seen:
        seen.add(id(error))
        found = getattr(error, _ATTACHED, None)
        if isinstance(found, Reproducer):
            return found
        error = error.__cause__ or error.__context__
    return None


def _add_written_note(
    reproducer: CrashReproducer, error: BaseException, repro: Reproducer
) -> None:
    try:
        path = reproducer.write_reproducer(repro)
    except OSError as oe:
        error.add_note(f"{UNWRITTEN}{oe.strerror}")
    else:
        error.add_note(WRITTEN + str(path))


@contextmanager
def capture_lowering(
    reproducer: CrashReproducer | None,
    module: ModuleOp,
    ctx: PassContext,
    entry: str = "main",
    profile: bool = False,
) -> Generator[None, None, None]:
    """Around lowering ``module`` (``lower_model``, which may change it in place):
    an exception in the block makes a reproducer of the IR handed to lowering and
    the lowering pipeline. Inside a :func:`capture_crashes` (``xrelay-run``) that
    capture writes it; else ``reproducer`` does (the exception gets the note). With
    neither, nothing is captured (and the module is not copied)."""
    outer = _active.depth > 0
    if reproducer is None and not outer:
        yield
        return
    snapshot = module.clone()  # lowering works in place
    try:
        yield
    except Exception as e:
        message = (str(e).strip().splitlines() or [type(e).__name__])[0]
        repro = Reproducer(
            lowering_pipeline(entry, profile),
            ctx.opt_level,
            list(ctx.required_pass),
            list(ctx.disabled_pass),
            {k: _json_value(v) for k, v in ctx.config.items()},
            f"{message} (in lowering)",
            module_ir(snapshot),
            target="llvm",
        )
        if outer:
            setattr(e, _ATTACHED, repro)
        else:
            assert reproducer is not None
            _add_written_note(reproducer, e, repro)
        raise
