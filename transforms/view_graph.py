"""Pictures of the graph: the dataflow graph of a relay function as Graphviz DOT (and
SVG/PNG/PDF where Graphviz's ``dot`` is installed). MLIR's ``--view-op-graph``, at
the level of Relay's ops.

* ops are nodes labelled with their name and their attributes that differ from
  Relay's defaults; the function's parameters are ellipses;
* edges carry the shape and element type of the tensor flowing on them;
* constants are not nodes: a constant operand is listed in its user's label
  (``w: 64x3x7x7xf32``), as weights are in Netron;
* a call of a fused kernel (a ``relay.primitive`` function, from FuseOps) is a
  cluster holding the kernel's ops, labelled with the kernel's name;
* given per-kernel times (``{"kernel name": milliseconds}``), clusters and unfused
  ops named there are coloured from pale yellow to red by their share of the slowest,
  with the time in their label.

``write_graph(module, path)`` writes ``path``: ``.dot`` (or ``.gv``) as DOT, ``.svg``,
``.png`` or ``.pdf`` rendered by ``dot`` (the DOT beside it). ``-p view-graph{path=...}``
does the same inside a pipeline and leaves the IR alone; ``IRModule.visualize(path)``
from Python.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from xdsl.dialects.builtin import (
    ArrayAttr,
    DenseArrayBase,
    FloatAttr,
    IntegerAttr,
    ModuleOp,
    StringAttr,
    TensorType,
    TupleType,
)
from xdsl.dialects.func import CallOp, FuncOp, ReturnOp
from xdsl.ir import Attribute, Block, Operation, SSAValue

from xrelay.errors import UserError
from xrelay.pass_manager import Pass, PassContext, PassInfo, register_pass
from xrelay.pass_manager.analysis import ALL
from xrelay.pass_manager.options import option, set_info

RENDERED = (".svg", ".png", ".pdf")
MAX_ATTR_CHARS = 40


class GraphError(UserError):
    """The graph cannot be written or rendered (a one-line message)."""


# ---------------------------------------------------------------------------------------
# Labels
# ---------------------------------------------------------------------------------------


def type_label(ty: Attribute) -> str:
    """``1x64x56x56xf32`` for a tensor; ``tuple(...)`` for a tuple."""
    if isinstance(ty, TensorType):
        dims = ["?" if d < 0 else str(d) for d in ty.get_shape()]
        return "x".join([*dims, str(ty.get_element_type())])
    if isinstance(ty, TupleType):
        return "tuple(" + ", ".join(type_label(t) for t in ty.types.data) + ")"
    return str(ty)


def attr_text(attr: Attribute) -> str:
    if isinstance(attr, IntegerAttr):
        value = attr.value.data
        return str(bool(value)).lower() if attr.type.width.data == 1 else str(value)
    if isinstance(attr, FloatAttr):
        return f"{attr.value.data:g}"
    if isinstance(attr, DenseArrayBase):
        return ",".join(str(v) for v in attr.get_values())
    if isinstance(attr, StringAttr):
        return attr.data
    if isinstance(attr, ArrayAttr):
        return ",".join(attr_text(a) for a in attr.data)
    return str(attr)


def main_attributes(op: Operation) -> list[str]:
    """``name=value`` for the op's properties that differ from Relay's defaults."""
    try:
        definition = op.get_irdl_definition()  # pyright: ignore[reportAttributeAccessIssue]
    except AttributeError:
        return []
    out: list[str] = []
    for name, value in sorted(op.properties.items()):
        prop = definition.properties.get(name)
        if prop is not None and prop.default_value == value:
            continue
        text = attr_text(value)
        if len(text) > MAX_ATTR_CHARS:
            text = text[: MAX_ATTR_CHARS - 3] + "..."
        out.append(f"{name}={text}")
    return out


def _escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace('"', '\\"')


def _short_name(op: Operation) -> str:
    name = op.name
    return name[len("relay.") :] if name.startswith("relay.") else name


def _is_constant(value: SSAValue) -> bool:
    owner = value.owner
    return isinstance(owner, Operation) and owner.name == "relay.constant"


def _value_name(value: SSAValue, fallback: str) -> str:
    return value.name_hint or fallback


# ---------------------------------------------------------------------------------------
# The graph
# ---------------------------------------------------------------------------------------


class _Graph:
    """DOT lines for one function; fused kernels expanded as clusters."""

    def __init__(self, module: ModuleOp, times: Mapping[str, float]):
        self.funcs = {f.sym_name.data: f for f in module.ops if isinstance(f, FuncOp)}
        self.times = dict(times)
        self.slowest = max(self.times.values(), default=0.0)
        self.lines: list[str] = []
        self.edges: list[str] = []
        """Edges, written after every node: an edge inside a cluster would pull its
        ends into it."""
        self.count = 0
        self.sources: dict[SSAValue, str] = {}
        """Which node produces each value (values inside clusters too)."""

    def node_id(self) -> str:
        self.count += 1
        return f"n{self.count}"

    def colour(self, name: str) -> tuple[str, str]:
        """Fill colour and label suffix for a kernel with a time."""
        ms = self.times.get(name)
        if ms is None or self.slowest <= 0:
            return "", ""
        share = ms / self.slowest
        # pale yellow (hue 60°) to salmon red (0°): HSV in Graphviz's "h s v" form
        hue = 0.1667 * (1.0 - share)
        return f"{hue:.3f} {0.15 + 0.5 * share:.3f} 1.000", f"\\n{ms:.3f} ms"

    def function(self, func: FuncOp) -> None:
        name = func.sym_name.data
        self.lines.append(f'digraph "{_escape(name)}" {{')
        self.lines += [
            "  rankdir=TB;",
            '  node [shape=box, style="rounded,filled", fillcolor="#eef3fb", '
            'fontname="Helvetica", fontsize=10];',
            '  edge [fontname="Helvetica", fontsize=8, color="#555555"];',
        ]
        block = func.body.block
        for i, arg in enumerate(block.args):
            node = self.node_id()
            self.sources[arg] = node
            label = (
                _escape(f"%{_value_name(arg, f'arg{i}')}")
                + "\\n"
                + _escape(type_label(arg.type))
            )
            self.lines.append(
                f'  {node} [label="{label}", shape=ellipse, fillcolor="#ffffff"];'
            )
        self.block(block, "  ")
        self.lines += self.edges
        self.lines.append("}")

    def block(self, block: Block, indent: str) -> None:
        for op in block.ops:
            if op.name == "relay.constant":
                continue
            if isinstance(op, ReturnOp):
                self.output(op, indent)
            elif isinstance(op, CallOp) and self.is_kernel(op):
                self.kernel(op, indent)
            else:
                self.op_node(op, indent)

    def is_kernel(self, call: CallOp) -> bool:
        callee = self.funcs.get(call.callee.string_value())
        return (
            callee is not None
            and bool(callee.body.blocks)
            and "relay.primitive" in callee.attributes
        )

    def op_node(
        self, op: Operation, indent: str, operands: Sequence[SSAValue] | None = None
    ) -> None:
        """One op: a node, its constant operands in its label, edges from the
        producers of the others. ``operands``: what its operands stand for (inside
        a kernel, the call's operands in place of the kernel's parameters)."""
        node = self.node_id()
        lines = [_short_name(op)]
        if isinstance(op, CallOp):
            lines[0] = f"call @{op.callee.string_value()}"
        lines += main_attributes(op)
        values = list(op.operands) if operands is None else list(operands)
        for i, value in enumerate(values):
            if _is_constant(value):
                hint = _value_name(value, f"const{i}")
                lines.append(f"{hint}: {type_label(value.type)}")
                continue
            source = self.sources.get(value)
            if source is not None:
                self.edge(source, node, value)
        fill, suffix = self.colour(str(lines[0]))
        style = f', fillcolor="{fill}"' if fill else ""
        label = "\\n".join(_escape(line) for line in lines) + suffix
        self.lines.append(f'{indent}{node} [label="{label}"{style}];')
        for res in op.results:
            self.sources[res] = node

    def kernel(self, call: CallOp, indent: str) -> None:
        """A fused kernel: its ops in a cluster, its parameters standing for the
        call's operands."""
        name = call.callee.string_value()
        callee = self.funcs[name]
        block = callee.body.block
        bound: dict[SSAValue, SSAValue] = dict(
            zip(block.args, call.operands, strict=False)
        )
        self.count += 1
        fill, suffix = self.colour(name)
        self.lines.append(f"{indent}subgraph cluster_{self.count} {{")
        inner = indent + "  "
        self.lines += [
            f'{inner}label="{_escape(name)}{suffix}";',
            f'{inner}style="rounded,filled"; fillcolor="{fill or "#f7f7f7"}"; '
            'color="#999999"; fontname="Helvetica"; fontsize=9;',
        ]
        for op in block.ops:
            if op.name == "relay.constant":
                continue
            if isinstance(op, ReturnOp):
                for value, res in zip(op.operands, call.results, strict=False):
                    source = self.sources.get(bound.get(value, value))
                    if source is not None:
                        self.sources[res] = source
                continue
            operands = [bound.get(v, v) for v in op.operands]
            self.op_node(op, inner, operands)
        self.lines.append(f"{indent}}}")

    def output(self, ret: ReturnOp, indent: str) -> None:
        node = self.node_id()
        self.lines.append(
            f'{indent}{node} [label="return", shape=ellipse, fillcolor="#ffffff"];'
        )
        for value in ret.operands:
            source = self.sources.get(value)
            if source is not None:
                self.edge(source, node, value)

    def edge(self, source: str, target: str, value: SSAValue) -> None:
        label = _escape(type_label(value.type))
        self.edges.append(f'  {source} -> {target} [label="{label}"];')


def entry_function(module: ModuleOp, name: str = "") -> FuncOp:
    """The function to draw: ``name``, else ``main``, else the first one with a
    body that is not a fused kernel."""
    funcs = [f for f in module.ops if isinstance(f, FuncOp) and f.body.blocks]
    if name:
        for f in funcs:
            if f.sym_name.data == name:
                return f
        raise GraphError(f"view-graph: the module has no function @{name}")
    for f in funcs:
        if f.sym_name.data == "main":
            return f
    for f in funcs:
        if "relay.primitive" not in f.attributes:
            return f
    raise GraphError("view-graph: the module has no function to draw")


def to_dot(
    module: ModuleOp, func: str = "", times: Mapping[str, float] | None = None
) -> str:
    """The DOT text of the dataflow graph of ``func`` (default ``main``)."""
    graph = _Graph(module, times or {})
    graph.function(entry_function(module, func))
    return "\n".join(graph.lines) + "\n"


def read_times(path: str | Path) -> dict[str, float]:
    """Per-kernel times from a JSON file: ``{"kernel": milliseconds, ...}``."""
    try:
        data = json.loads(Path(path).read_text())
    except OSError as e:
        raise GraphError(f"view-graph: cannot read times {path}: {e.strerror}") from e
    except json.JSONDecodeError as e:
        raise GraphError(
            f"view-graph: {path}: not JSON: {e.msg} (line {e.lineno})"
        ) from e
    if not isinstance(data, dict) or not all(
        isinstance(v, int | float) and not isinstance(v, bool)
        for v in data.values()  # pyright: ignore[reportUnknownVariableType]
    ):
        raise GraphError(
            f"view-graph: {path}: expected an object of kernel name to milliseconds"
        )
    return {str(k): float(v) for k, v in data.items()}  # pyright: ignore[reportUnknownArgumentType, reportUnknownVariableType]


def dot_program() -> str | None:
    """Graphviz's ``dot``: ``$XRELAY_DOT`` (a name or path) or ``dot`` on PATH."""
    return shutil.which(os.environ.get("XRELAY_DOT") or "dot")


def write_graph(
    module: Any,
    path: str | Path,
    func: str = "",
    times: Mapping[str, float] | None = None,
) -> Path:
    """Write the graph of ``func`` to ``path`` (format from its suffix: ``.dot``/
    ``.gv``, or ``.svg``/``.png``/``.pdf`` rendered by Graphviz, the DOT written
    beside it). Returns the path written; raises :class:`GraphError`."""
    op: ModuleOp = getattr(module, "module", module)
    path = Path(path)
    dot_text = to_dot(op, func, times)
    suffix = path.suffix.lower()
    dot_path = path if suffix not in RENDERED else path.with_suffix(".dot")
    try:
        dot_path.write_text(dot_text)
    except OSError as e:
        raise GraphError(f"view-graph: cannot write {dot_path}: {e.strerror}") from e
    if suffix not in RENDERED:
        return path
    program = dot_program()
    if program is None:
        raise GraphError(
            f"view-graph: cannot render {path}: Graphviz's 'dot' is not installed "
            f"(Debian: apt-get install graphviz); the DOT is in {dot_path}"
        )
    done = subprocess.run(
        [program, f"-T{suffix[1:]}", "-o", str(path), str(dot_path)],
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        message = (done.stderr.strip().splitlines() or ["failed"])[0]
        raise GraphError(f"view-graph: dot cannot render {path}: {message}")
    return path


@register_pass("ViewGraph", "view-graph")
@dataclass(frozen=True, eq=False, repr=False)
class ViewGraph(Pass):
    """Write the dataflow graph of a function as Graphviz DOT, or SVG/PNG/PDF by the
    path's suffix (``path``; empty: DOT on stderr), fused kernels as clusters;
    ``times``: a JSON file of per-kernel milliseconds colouring them. The IR is left
    alone."""

    MUTATES_INPUT = False
    PRESERVES = ALL

    path: str = option("", ".dot, .svg, .png or .pdf file (empty: DOT on stderr)")
    func: str = option("", "the function drawn (empty: @main)")
    times: str = option("", "JSON file of per-kernel milliseconds colouring them")

    def __post_init__(self) -> None:
        set_info(self, PassInfo(0, "ViewGraph"))

    def apply(self, op: ModuleOp, ctx: PassContext, kind: Any) -> ModuleOp:
        times = read_times(self.times) if self.times else None
        if self.path:
            write_graph(op, self.path, self.func, times)
        else:
            sys.stderr.write(to_dot(op, self.func, times))
        return op


__all__ = ["GraphError", "ViewGraph", "read_times", "to_dot", "write_graph"]
