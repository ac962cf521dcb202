"""``xrelay-opt``: ``xdsl-opt`` with the relay dialect, xrelay's passes and TVM's
PassContext.

Every ``xdsl-opt`` flag keeps working (``-p`` with pass options,
``--split-input-file``, ``--verify-diagnostics``, ``--print-op-generic``, ``-o``,
``-t`` ...). Added, mapped onto ONE :class:`~xrelay.pass_manager.PassContext` entered
around the whole pipeline: ``--opt-level``, ``--required-pass``, ``--disabled-pass``,
``--pass-config key=value``, the print-IR instruments, ``--time-passes`` (the
PassTimingInstrument tree), ``--list-passes`` (with each pass's options),
``--load-pass-plugin``. ``--verify-diagnostics`` checks the input's ``expected-*``
directives as ``mlir-opt`` does (:mod:`xrelay.tools.verify_diagnostics`). Every pass
of ``-p`` (xDSL's too)
runs through the pass manager, so instruments see them all; instrument output goes to
stderr, the IR to stdout (or ``-o``).

Errors a user can cause end in one line on stderr, ``file:line:col: error: ...``
where the error has a location, and exit code 1 (2 for bad flags); ``--debug``
shows the traceback instead.
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import os
import sys
import warnings
from collections.abc import Generator, Sequence
from io import BytesIO, StringIO
from typing import IO, Any

from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import PassPipeline
from xdsl.printer import Printer
from xdsl.utils.exceptions import DiagnosticException, ParseError, ShrinkException
from xdsl.xdsl_opt_main import xDSLOptMain

from xrelay.dialects.relay import printing
from xrelay.dialects.relay.dominance import verify_module
from xrelay.pass_manager import (
    PassContext,
    PassContractError,
    PassInstrument,
    PassTimingInstrument,
    PassVerificationError,
    PrintAfter,
    PrintAfterAll,
    PrintBefore,
    PrintBeforeAll,
    reproducer,
)
from xrelay.tools import cli, plugins, universe
from xrelay.tools import verify_diagnostics as verify
from xrelay.tools.diagnostics import (
    OpWarning,
    UsageError,
    UserError,
    exit_code,
    first_line,
    located,
    one_line_warnings,
    report,
    warn,
)
from xrelay.tools.locations import parse_mlir
from xrelay.version import xrelay_version

PROG = "xrelay-opt"


def _xdsl_version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("xdsl")
    except PackageNotFoundError:
        return "(unknown)"


class XRelayOptMain(xDSLOptMain):
    """The ``xrelay-opt`` driver.

    Use it like xDSL's ``xDSLOptMain``: ``XRelayOptMain(args=[...]).run()`` (errors
    propagate as exceptions; :func:`main` turns them into one-line diagnostics).
    """

    version_format = f"{PROG} {xrelay_version()} built on xdsl {{xdsl_version}}"

    def __init__(
        self,
        description: str = "xrelay's modular optimizer driver: xdsl-opt with the relay "
        "dialect, xrelay's passes and TVM's PassContext.",
        args: Sequence[str] | None = None,
    ):
        # plugins load before the passes are registered, so that --help and
        # --list-passes show theirs
        self._early_plugins = cli.plugin_specs(sys.argv[1:] if args is None else args)
        super().__init__(description, args)

    # -- registration -----------------------------------------------------------------

    def register_all_dialects(self) -> None:
        super().register_all_dialects()
        for name, factory in universe.all_dialects().items():
            if name not in self.ctx.registered_dialect_names:
                self.ctx.register_dialect(name, factory)

    def register_all_passes(self) -> None:
        for spec in getattr(self, "_early_plugins", ()):
            plugins.load_pass_plugin(spec)
        super().register_all_passes()
        self._register_xrelay_passes()

    def _register_xrelay_passes(self) -> None:
        """xrelay's registered passes and the xDSL passes of plugins."""
        for name, factory in {**plugins.xdsl_passes(), **universe.all_passes()}.items():
            self.register_pass(name, factory)

    def load_plugins(self) -> None:
        """The ``--load-pass-plugin`` plugins not loaded yet (an abbreviated flag),
        their passes added to ``-p``."""
        late = [p for p in self.args.load_pass_plugin if p not in self._early_plugins]
        for spec in late:
            plugins.load_pass_plugin(spec)
        if late:
            self._register_xrelay_passes()

    def register_all_targets(self) -> None:
        # xrelay's LLVM IR (the thread team around the host) under the usual name
        self.available_targets["llvm"] = universe.llvm_target

        def relay_text_target(module: ModuleOp, output: IO[str]) -> None:
            from xrelay.frontend.relay.text_printer import TextPrintError, to_relay_text

            try:
                output.write(to_relay_text(module))
            except TextPrintError as e:
                raise UserError(f"-t relay: {e}") from e

        self.available_targets["relay"] = relay_text_target
        super().register_all_targets()

    def register_all_frontends(self) -> None:
        super().register_all_frontends()

        def parse_onnx(io: IO[bytes]) -> ModuleOp:
            from xrelay.tools.models import load_onnx

            module, params = load_onnx(io.read(), self.get_input_name())
            if params:
                raise UserError(
                    f"{self.get_input_name()}: the ONNX frontend returned the weights "
                    "as params; xrelay-opt needs them bound into the module"
                )
            return module

        self.available_frontends["onnx"] = parse_onnx

        def parse_relay_text(io: IO[bytes]) -> ModuleOp:
            from xrelay.frontend.relay.text_parser import RelayTextError, parse

            try:
                text = io.read().decode("utf-8", errors="replace")
                return parse(text, self.get_input_name()).module
            except RelayTextError as e:
                raise UserError(e.message, e.location) from e

        self.available_frontends["relay"] = parse_relay_text

    def parse_chunk(
        self, chunk: IO[bytes], file_extension: str, start_offset: int = 0
    ) -> ModuleOp | None:
        """MLIR is parsed with ``file:line:col`` locations on every op (lines counted
        in the whole file under ``--split-input-file``)."""
        if file_extension != "mlir":
            return super().parse_chunk(chunk, file_extension, start_offset)
        return parse_mlir(
            self.ctx,
            chunk.read(),
            self.get_input_name(),
            start_offset,
            not self.args.no_implicit_module,
        )

    def register_all_arguments(self, arg_parser: argparse.ArgumentParser) -> None:
        super().register_all_arguments(arg_parser)
        arg_parser.prog = PROG
        arg_parser.epilog = cli.GATING_HELP + "\n\n" + cli.pass_options_help()
        arg_parser.formatter_class = cli.HelpFormatter
        # usage errors are one line
        arg_parser.error = lambda message: cli.one_line_usage_error(  # type: ignore[method-assign]
            arg_parser, message
        )
        # some xdsl-opt flags are redefined below (same meaning, output on stderr)
        arg_parser.conflict_handler = "resolve"
        # redefined in a group made after the conflict handler is set
        basics = arg_parser.add_argument_group("pipeline and verification")
        basics.add_argument(
            "-t",
            "--target",
            default="mlir",
            metavar="TARGET",
            help="the output: "
            + ", ".join(sorted(self.available_targets))
            + " (default mlir; llvm: the LLVM IR of IR lowered to the llvm dialect; "
            "relay: Relay's text format)",
        )
        basics.add_argument(
            "--verify-diagnostics",
            action="store_true",
            help="check the diagnostics against the input's expected-error, "
            "expected-warning and expected-note directives as mlir-opt does (text, "
            "{{regex}} under -re, @+N/@-N/@above/@below/@unknown): each mismatch is "
            "one line and the exit code 1. An input without directives: print the "
            "diagnostics on stdout and exit 0, as xdsl-opt does",
        )
        basics.add_argument(
            "-p",
            "--passes",
            default="",
            metavar="PIPELINE",
            help="the passes to run, in order: 'a,b{option=value},c' (--list-passes "
            "lists them with their options)",
        )
        basics.add_argument(
            "-v",
            "--version",
            action="version",
            version=self.version_format.format(xdsl_version=_xdsl_version()),
            help="print the versions of xrelay and xDSL and exit",
        )
        basics.add_argument(
            "--disable-verify",
            action="store_true",
            help="do not verify the input, nor the IR after each pass",
        )
        arg_parser.add_argument(
            "--elide-constants",
            nargs="?",
            type=cli.non_negative_int,
            const=printing.DEFAULT_ELIDE_LIMIT,
            default=None,
            metavar="N",
            help="print constants with more than N elements (default "
            f"{printing.DEFAULT_ELIDE_LIMIT}) as dense_resource<__elided__>",
        )
        arg_parser.add_argument(
            "--debug",
            action="store_true",
            help="show Python tracebacks instead of one-line diagnostics",
        )
        arg_parser.add_argument(
            "--list-passes",
            action="store_true",
            help="list xrelay's passes (pipeline name, TVM name, opt_level, required "
            "passes, description, and each option: name, type, default, help) and "
            "xDSL's, and exit",
        )
        cli.add_plugin_argument(arg_parser)
        cli.add_pass_context_arguments(arg_parser, PROG)
        group = arg_parser.add_argument_group(
            "instruments (output on stderr, the IR stays on stdout)"
        )
        group.add_argument(
            "--print-ir-before",
            action="append",
            default=[],
            metavar="NAME",
            help="print the IR before each run of pass NAME (TVM or pipeline name; "
            "repeatable, or a comma list)",
        )
        group.add_argument(
            "--print-ir-after",
            action="append",
            default=[],
            metavar="NAME",
            help="print the IR after each run of pass NAME (repeatable, or a comma list)",
        )
        group.add_argument(
            "--print-ir-before-all",
            action="store_true",
            help="print the IR before every pass (PrintBeforeAll)",
        )
        group.add_argument(
            "--print-ir-after-all",
            action="store_true",
            help="print the IR after every pass (PrintAfterAll)",
        )
        group.add_argument(
            "--time-passes",
            action="store_true",
            help="time every pass, nested passes included, and print the "
            "PassTimingInstrument tree on stderr at the end",
        )
        cli.add_reproducer_arguments(arg_parser, with_file=True)
        repro = arg_parser.add_argument_group("replaying")
        repro.add_argument(
            "--run-reproducer",
            metavar="FILE",
            default=None,
            help="replay a crash reproducer: its IR, pipeline and PassContext",
        )
        group.add_argument(
            "--print-between-passes",
            action="store_true",
            help="print the IR between the passes of -p (on stderr)",
        )

    # -- the pipeline -------------------------------------------------------------------

    def setup_pipeline(self) -> None:
        """The ``-p`` passes, run by :meth:`apply_passes` (unknown passes and bad
        options are one-line errors); under ``--run-reproducer``, the reproducer's
        file, pipeline and PassContext."""
        self.replay: reproducer.Reproducer | None = None
        self.load_plugins()
        if self.args.run_reproducer is not None:
            self._load_reproducer(self.args.run_reproducer)
        self.pipeline = PassPipeline(
            cli.build_pipeline(self.available_passes, self.args.passes)
        )

    def _load_reproducer(self, path: str) -> None:
        args = self.args
        if args.input_file is not None:
            raise UsageError("--run-reproducer: give the reproducer, not an input file")
        if args.passes:
            raise UsageError("--run-reproducer: -p is taken from the reproducer")
        try:
            with open(path) as f:
                text = f.read()
        except OSError as e:
            raise UserError(
                f"--run-reproducer {path}: cannot read: {e.strerror}"
            ) from e
        try:
            self.replay = reproducer.Reproducer.parse(text)
        except reproducer.ReproducerError as e:
            raise UserError(str(e), f"{path}:{e.line or 1}:1") from e
        args.input_file = path
        args.passes = self.replay.pipeline
        if self.replay.target:  # a lowering reproducer: lowered to LLVM IR text
            args.target = self.replay.target

    def crash_reproducer(self) -> reproducer.CrashReproducer | None:
        """Where a failing pass writes its reproducer (``--crash-reproducer``,
        ``--reproducer-dir``, ``$XRELAY_REPRODUCER_DIR``), if anywhere."""
        specs = [str(p.pipeline_pass_spec()) for p in self.pipeline.passes]
        return cli.crash_reproducer(self.args, specs)

    def apply_passes(self, prog: ModuleOp) -> None:
        """Verify the input (unless ``--disable-verify``), then run every ``-p`` pass
        in place through the pass manager, in ``PassContext.current()`` (the run's
        context when called from :meth:`run`)."""
        if not self.args.disable_verify:
            verify_module(prog)
        passes = self.pipeline.passes
        for i, xdsl_pass in enumerate(passes):
            cli.run_pipeline_pass(xdsl_pass, prog, self.ctx)
            if self.args.print_between_passes and i + 1 < len(passes):
                sys.stderr.write(f"IR after {xdsl_pass.name}:\n")
                Printer(stream=sys.stderr).print_op(prog)
                sys.stderr.write("\n\n")

    def pass_context(self) -> PassContext:
        """The one PassContext of this run, from the flags."""
        args = self.args
        known = list(self.available_passes)
        instruments: list[PassInstrument] = []
        before = self._instrument_names(args.print_ir_before, "--print-ir-before")
        after = self._instrument_names(args.print_ir_after, "--print-ir-after")
        # printers before the timer on entry and after it on exit: printing is not
        # counted in the passes' times
        if args.print_ir_before_all:
            instruments.append(PrintBeforeAll(file=sys.stderr))
        if before:
            instruments.append(PrintBefore(before, file=sys.stderr))
        if args.time_passes:
            instruments.append(PassTimingInstrument())
        if after:
            instruments.append(PrintAfter(after, file=sys.stderr))
        if args.print_ir_after_all:
            instruments.append(PrintAfterAll(file=sys.stderr))
        extra: dict[str, Any] = {}
        if self.replay is not None:  # the reproducer's context, the flags on top
            extra.update(self.replay.config)
            args.opt_level = self.replay.opt_level
            args.required_pass = [*self.replay.required_pass, *args.required_pass]
            args.disabled_pass = [*self.replay.disabled_pass, *args.disabled_pass]
        if args.disable_verify:
            extra["xrelay.verify_each"] = False
        ctx = cli.build_pass_context(args, PROG, instruments, known, extra)
        disabled = set(ctx.disabled_pass)
        for xdsl_pass in self.pipeline.passes:
            if cli.info_name(xdsl_pass) in disabled:
                warn(
                    PROG,
                    f"pass {xdsl_pass.name} is named in -p and in --disabled-pass: it "
                    "runs (a pass named in -p always runs; --disabled-pass gates the "
                    "children of a Sequential)",
                )
        return ctx

    def _instrument_names(self, values: Sequence[str], flag: str) -> list[str]:
        names: list[str] = []
        for name in cli.split_names(values):
            forms = cli.pass_name_forms(name)
            if len(forms) == 1 and name not in self.available_passes:
                warn(PROG, f"{flag} {name}: no pass of that name is registered")
            names += forms
        return names

    # -- running ------------------------------------------------------------------------

    def run(self) -> None:
        """Parse each chunk, run the pipeline in the run's PassContext, print. Errors
        propagate (``--verify-diagnostics`` / ``--parsing-diagnostics`` print them and
        go on, as in xdsl-opt); errors located in the input are :class:`UserError`s
        naming ``file:line:col``."""
        args = self.args
        if args.list_passes:
            sys.stdout.write(list_passes_text(self.available_passes))
            return
        if args.list_pass_configs:
            sys.stdout.write(cli.list_pass_configs())
            return
        ctx = self.pass_context()
        self.reproducer = self.crash_reproducer()
        with printing.elide_constants(args.elide_constants), ctx:
            self._run_chunks()
            if args.time_passes:
                sys.stderr.write(PassTimingInstrument.render())

    def _run_chunks(self) -> None:
        args = self.args
        out_path: str | None = args.output_file
        if (
            out_path is not None
            and args.input_file is not None
            and os.path.exists(out_path)
            and os.path.samefile(out_path, args.input_file)
        ):
            raise UserError(f"-o {out_path}: refusing to overwrite the input file")
        try:
            chunks, file_extension = self.prepare_input()
        except ValueError as e:  # an unknown file extension
            raise UserError(
                f"{self.get_input_name()}: {e} (give -f mlir to read it as MLIR)"
            ) from e
        output: IO[str] = StringIO() if out_path is not None else sys.stdout
        expected = self._expected_diagnostics()
        produced: list[verify.Produced] = []
        try:
            for i, (chunk, offset) in enumerate(chunks):
                module: ModuleOp | None = None
                try:
                    if i > 0:
                        output.write("// -----\n")
                    with self._op_warnings(produced if expected is not None else None):
                        module = self.parse_chunk(chunk, file_extension, offset)
                        if module is not None:
                            with reproducer.capture_crashes(self.reproducer):
                                self.apply_passes(module)
                            output.write(self._emit(module))
                    output.flush()
                except ParseError as e:
                    e.span = dataclasses.replace(e.span, line_offset=offset)
                    if expected is not None:
                        produced += verify.produced_by(e, None)
                    elif not args.parsing_diagnostics:
                        raise
                    else:
                        print(e)
                except (
                    DiagnosticException,
                    PassVerificationError,
                    PassContractError,
                    RecursionError,  # nested too deeply: located at the deepest op
                    UserError,
                ) as e:
                    if expected is not None:
                        produced += verify.produced_by(e, module)
                    elif isinstance(e, UserError):
                        raise
                    elif not args.verify_diagnostics:
                        raise located(e, module) from e
                    else:
                        _print_diagnostic(e)
                finally:
                    chunk.close()
        except ShrinkException:
            assert args.shrink
            print("Success, can shrink")
            sys.exit(0)
        if expected is not None:
            mismatches = verify.check(expected, produced, self.get_input_name())
            if mismatches:
                for line in mismatches:
                    print(line, file=sys.stderr)
                raise DiagnosticsMismatch(len(mismatches))
        if out_path is not None:
            assert isinstance(output, StringIO)
            try:
                with open(out_path, "w") as f:
                    f.write(output.getvalue())
            except OSError as e:
                raise UserError(f"-o {out_path}: cannot write: {e.strerror}") from e
        if args.shrink:
            print("Failure, can't shrink")
            sys.exit(1)

    def get_input_stream(self) -> tuple[IO[bytes], str]:
        """The input, read whole under ``--verify-diagnostics`` (its ``expected-*``
        directives are read from the text)."""
        stream, extension = super().get_input_stream()
        if not self.args.verify_diagnostics:
            return stream, extension
        with stream:
            data = stream.read()
        self._input_text = data.decode("utf-8", errors="replace")
        return BytesIO(data), extension

    def _expected_diagnostics(self) -> list[verify.Expected] | None:
        """Under ``--verify-diagnostics``, the input's ``expected-*`` directives;
        ``None`` when it has none (xdsl-opt's printing mode) or without the flag."""
        text: str | None = getattr(self, "_input_text", None)
        if not self.args.verify_diagnostics or text is None:
            return None
        try:
            directives = verify.parse_directives(text, self.get_input_name())
        except verify.DirectiveError as e:
            raise UserError(str(e)) from e
        return directives or None

    @contextlib.contextmanager
    def _op_warnings(self, produced: list[verify.Produced] | None) -> Generator[None]:
        """Under ``--verify-diagnostics`` with directives, collect the warnings
        about ops into ``produced`` (others are shown as usual)."""
        if produced is None:
            yield
            return
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", OpWarning)
            try:
                yield
            finally:
                for w in caught:
                    diag = verify.produced_warning(w.message)
                    if diag is not None:
                        produced.append(diag)
                    else:
                        warnings.showwarning(
                            w.message, w.category, w.filename, w.lineno
                        )

    def _emit(self, module: ModuleOp) -> str:
        """The output for ``-t``; a target that cannot emit this IR (``-t llvm`` on IR
        not lowered to the llvm dialect) is a one-line error."""
        try:
            return self.output_resulting_program(module)
        except (NotImplementedError, ValueError) as e:
            hint = ""
            if isinstance(e, NotImplementedError) and self.args.target == "llvm":
                hint = " (-t llvm needs IR lowered to the llvm dialect)"
            raise UserError(f"-t {self.args.target}: {first_line(str(e))}{hint}") from e


class DiagnosticsMismatch(Exception):
    """``--verify-diagnostics`` found mismatches (each already printed on a line)."""

    def __init__(self, count: int):
        super().__init__(
            f"{count} diagnostic(s) did not match the expected-* directives"
        )
        self.count = count


def _print_diagnostic(e: BaseException) -> None:
    """What ``--verify-diagnostics`` prints: the message, then the notes (the IR with
    the failing op marked), as xdsl-opt does."""
    print(e)
    source = e if getattr(e, "__notes__", None) else e.__cause__
    for note in getattr(source, "__notes__", ()):
        print(note)


def first_sentence(doc: str) -> str:
    """The first sentence of a one-paragraph doc (up to the first ". ")."""
    head, sep, _ = doc.partition(". ")
    return head + "." if sep else doc


def list_passes_text(available: dict[str, Any]) -> str:
    """The ``--list-passes`` table: xrelay's passes (each followed by its options:
    name, type, default, help), then xDSL's pass names."""
    from xrelay.pass_manager import list_passes
    from xrelay.pass_manager.registry import lookup

    rows = [("PASS", "TVM NAME", "OPT", "REQUIRED", "DESCRIPTION")]
    options: list[list[str]] = [[]]
    for p in list_passes():
        rows.append(
            (
                p.pipeline_name,
                p.name,
                str(p.opt_level),
                ",".join(p.required) or "-",
                first_sentence(p.doc),
            )
        )
        options.append(cli.option_lines(lookup(p.name), "      "))
    widths = [max(len(r[i]) for r in rows) for i in range(4)]
    lines = ["xrelay passes:"]
    for row, option_rows in zip(rows, options, strict=True):
        cells = [c.ljust(w) for c, w in zip(row[:4], widths, strict=True)]
        lines.append("  " + "  ".join([*cells, row[4]]).rstrip())
        lines += option_rows
    ours = {p.pipeline_name for p in list_passes()}
    lines.append("")
    lines.append("xDSL passes (opt_level 0, run as named in -p):")
    lines += [f"  {name}" for name in sorted(available) if name not in ours]
    return "\n".join(lines) + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``xrelay-opt``; returns the exit code (0, 1 on errors, 2 on bad flags)."""
    args = list(sys.argv[1:] if argv is None else argv)
    debug = "--debug" in args
    one_line_warnings(PROG)
    try:
        XRelayOptMain(args=args).run()
        sys.stdout.flush()  # a closed pipe shows here, not at the interpreter's exit
    except (SystemExit, KeyboardInterrupt):
        raise
    except BrokenPipeError:
        return cli.broken_pipe_exit()
    except DiagnosticsMismatch:
        return 1  # one line per mismatch is printed
    except BaseException as e:
        if debug:
            raise
        report(PROG, e)
        cli.print_reproducer_note(PROG, e)
        return exit_code(e)
    return 0


if __name__ == "__main__":
    sys.exit(main())
