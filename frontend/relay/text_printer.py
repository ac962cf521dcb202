"""Relay's text format (``#[version = "0.0.5"]``) from the IR.

    #[version = "0.0.5"]
    def @main(%x: Tensor[(2, 3), float32]) -> Tensor[(2, 3), float32] {
      %0 = add(%x, 1f /* ty=float32 */);
      nn.relu(%0) /* ty=Tensor[(2, 3), float32] */
    }

* Each op result is bound to ``%<n>`` (graph form, as Relay prints); the last
  expression of a body is written in place. Block arguments keep their names.
* Attributes are written when they differ from the op's default, with Relay's
  syntax: ints ``3``, floats ``1e-05f``, bools ``True``, strings and dtypes
  ``"NCHW"``, int lists ``[1, 1]``.
* A multi-result op (``split``, ``nn.batch_norm``) is one tuple-valued binding,
  projected with ``%0.1``; ``relay.tuple`` is ``(%a, %b)``; ``relay.if`` is
  ``if (%c) { ... } else { ... }``.
* A call of a ``relay.primitive`` or private function is written as Relay has it: a
  local ``fn (..., Primitive=1) {...}`` bound once, then called. A call of another
  function is ``@name(...)``.
* 0-d constants are literals (``1f``, ``2i64``, ``True``; ``1f16``); other constants
  are ``meta[relay.Constant][k]``, their values in a ``#[metadata]`` section at the end
  (xrelay's own JSON: dtype, shape and base64 little-endian bytes per constant; with
  ``show_meta_data=False`` the section is left out).
"""

from __future__ import annotations

import base64
import json
from typing import Any, cast

import numpy as np
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    FunctionType,
    ModuleOp,
    TensorType,
    TupleType,
    UnrankedTensorType,
)
from xdsl.dialects.func import CallOp, FuncOp, ReturnOp
from xdsl.ir import Attribute, Block, Operation, SSAValue
from xdsl.irdl import IRDLOperation, VarOperandDef, VarResultDef

from xrelay.dialects.relay import dtypes
from xrelay.dialects.relay.base import RelayOp, is_unknown
from xrelay.dialects.relay.structural import (
    PRIMITIVE,
    ConstantOp,
    IfOp,
    TupleGetItemOp,
    TupleOp,
    YieldOp,
)
from xrelay.frontend.relay.lift import attr_value, function_attrs

VERSION = '#[version = "0.0.5"]'


class TextPrintError(ValueError):
    """The IR has a construct the Relay text format cannot express."""


def type_text(ty: Attribute) -> str:
    """A type in Relay's syntax: ``Tensor[(2, 3), float32]``, ``float32``, ``(T, T)``."""
    if isinstance(ty, TensorType):
        tensor = cast(TensorType[Attribute], ty)
        dtype = dtypes.dtype_name(tensor.get_element_type())
        shape = tensor.get_shape()
        if not shape:
            return dtype
        dims = ", ".join("?" if d == DYNAMIC_INDEX else str(d) for d in shape)
        if len(shape) == 1:
            dims += ","
        return f"Tensor[({dims}), {dtype}]"
    if is_unknown(ty):
        return "_"  # Relay's IncompleteType (an untyped variable)
    if isinstance(ty, UnrankedTensorType):
        return f"Tensor[?, {dtypes.dtype_name(cast(Any, ty).element_type)}]"
    if isinstance(ty, TupleType):
        fields = [type_text(t) for t in ty.types.data]
        if len(fields) == 1:
            return f"({fields[0]},)"
        return "(" + ", ".join(fields) + ")"
    if isinstance(ty, FunctionType):
        args = ", ".join(type_text(t) for t in ty.inputs.data)
        return f"fn ({args}) -> {_ret_text(list(ty.outputs.data))}"
    raise TextPrintError(f"the type {ty} has no Relay text form")


def _ret_text(outputs: list[Attribute]) -> str:
    if len(outputs) == 1:
        return type_text(outputs[0])
    return "(" + ", ".join(type_text(t) for t in outputs) + ")"


def value_text(value: Any) -> str:
    """An attribute value in Relay's syntax."""
    if isinstance(value, bool):
        return "True" if value else "False"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return _float_text(value) + "f"
    if isinstance(value, str):
        return json.dumps(value)
    if isinstance(value, list | tuple):
        return "[" + ", ".join(value_text(v) for v in cast(list[Any], value)) + "]"
    raise TextPrintError(f"the attribute value {value!r} has no Relay text form")


def _float_text(value: float) -> str:
    text = repr(float(value))
    if text in ("inf", "-inf", "nan"):
        raise TextPrintError(f"{text} has no literal form")
    return text


_SUFFIX = {
    "float32": "f",
    "float16": "f16",
    "float64": "f64",
    "int32": "",
    "int64": "i64",
    "int8": "i8",
    "int16": "i16",
    "uint8": "u8",
    "uint16": "u16",
    "uint32": "u32",
    "uint64": "u64",
}


def scalar_literal(array: np.ndarray[Any, Any]) -> str | None:
    """A 0-d constant as a Relay literal, or None if it has none."""
    if array.shape != ():
        return None
    name = str(array.dtype)
    if name == "bool":
        return "True" if bool(array) else "False"
    suffix = _SUFFIX.get(name)
    if suffix is None:
        return None
    if array.dtype.kind == "f":
        if not np.isfinite(array):
            return None
        text = _float_text(float(array)).removesuffix(".0")
        return text + (suffix or "f")
    return f"{int(array)}{suffix}"


def default_free_attrs(op: Operation) -> dict[str, Any]:
    """The op's properties that differ from their defaults, as Python values."""
    out: dict[str, Any] = {}
    if not isinstance(op, IRDLOperation):
        return out
    props = type(op).get_irdl_definition().properties
    for key, attr in op.properties.items():
        prop = props.get(key)
        if prop is not None and prop.default_value == attr:
            continue
        out[key] = attr_value(attr)
    return out


class _FunctionPrinter:
    def __init__(self, printer: RelayTextPrinter):
        self.printer = printer
        self.names: dict[SSAValue, str] = {}
        self.ops: dict[Operation, str] = {}
        self.fns: dict[str, str] = {}
        self.lines: list[str] = []
        self.counter = 0

    def fresh(self) -> str:
        name = f"%{self.counter}"
        self.counter += 1
        return name

    def bind(self, text: str, ty: str | None, indent: str) -> str:
        name = self.fresh()
        comment = f" /* ty={ty} */" if ty else ""
        self.lines.append(f"{indent}{name} = {text}{comment};")
        return name

    def value(self, v: SSAValue) -> str:
        found = self.names.get(v)
        if found is not None:
            return found
        raise TextPrintError(f"a value is used before it is defined ({v})")

    def params(self, block: Block) -> list[str]:
        out: list[str] = []
        used: set[str] = set()
        for i, arg in enumerate(block.args):
            base = arg.name_hint or f"p{i}"
            name, k = base, 0
            while name in used or name.isdigit():
                k += 1
                name = f"{base}_{k}"
            used.add(name)
            self.names[arg] = f"%{name}"
            if is_unknown(arg.type):  # an untyped variable, as Relay prints it
                out.append(f"%{name}")
            else:
                out.append(f"%{name}: {type_text(arg.type)}")
        return out

    def block(self, block: Block, indent: str) -> str:
        """Print the ops of ``block``; the text of its result (its terminator's
        operand)."""
        for op in block.ops:
            if isinstance(op, ReturnOp | YieldOp):
                values = [self.value(v) for v in op.operands]
                if len(values) == 1:
                    return values[0]
                return "(" + ", ".join(values) + ")"  # several results: a tuple
            self.op(op, indent)
        raise TextPrintError("a block without a terminator")

    def op(self, op: Operation, indent: str) -> None:
        ty = _ret_text([r.type for r in op.results]) if op.results else None
        if isinstance(op, ConstantOp):
            array = op.numpy()
            literal = scalar_literal(array)
            if literal is not None:
                self.names[op.results[0]] = f"{literal} /* ty={ty} */"
                return
            ref = self.printer.meta_constant(array)
            self.names[op.results[0]] = f"{ref} /* ty={ty} */"
            return
        args = [self.value(o) for o in op.operands]
        if isinstance(op, TupleOp):
            text = "(" + ", ".join(args) + ("," if len(args) == 1 else "") + ")"
            self.names[op.results[0]] = self.bind(text, ty, indent)
            return
        if isinstance(op, TupleGetItemOp):
            index = op.index.value.data
            self.names[op.results[0]] = self.bind(f"{args[0]}.{index}", ty, indent)
            return
        if isinstance(op, IfOp):
            if len(op.results) != 1:
                raise TextPrintError("relay.if with several results has no Relay form")
            inner = indent + "  "
            name = self.fresh()
            self.lines.append(f"{indent}{name} = if ({args[0]}) {{")
            then = self.block(op.then_region.block, inner)
            self.lines.append(f"{inner}{then}")
            self.lines.append(f"{indent}}} else {{")
            other = self.block(op.else_region.block, inner)
            self.lines.append(f"{inner}{other}")
            self.lines.append(f"{indent}}};")
            self.names[op.results[0]] = name
            return
        if isinstance(op, CallOp):
            callee = self.printer.callee(op)
            if callee is not None and self.printer.is_local(callee):
                fn = self.local_function(callee, indent)
                text = f"{fn}({', '.join(args)})"
            else:
                text = f"@{op.callee.string_value()}({', '.join(args)})"
            self.results(op, text, ty, indent)
            return
        if not isinstance(op, RelayOp):
            raise TextPrintError(f"{op.name} has no Relay text form")
        definition = type(op).get_irdl_definition()
        operand_defs = [d for _, d in definition.operands]
        if len(operand_defs) == 1 and isinstance(operand_defs[0], VarOperandDef):
            args = ["(" + ", ".join(args) + ("," if len(args) == 1 else "") + ")"]
        attrs = [f"{k}={value_text(v)}" for k, v in default_free_attrs(op).items()]
        text = f"{op.name.removeprefix('relay.')}({', '.join(args + attrs)})"
        self.results(op, text, ty, indent)

    def results(self, op: Operation, text: str, ty: str | None, indent: str) -> None:
        multi = len(op.results) != 1
        if isinstance(op, IRDLOperation) and not isinstance(op, CallOp):
            multi = multi or any(
                isinstance(d, VarResultDef)
                for _, d in type(op).get_irdl_definition().results
            )
        name = self.bind(text, ty, indent)
        if multi:
            for i, r in enumerate(op.results):
                self.names[r] = f"{name}.{i}"
        else:
            self.names[op.results[0]] = name

    def local_function(self, func: FuncOp, indent: str) -> str:
        key = func.sym_name.data
        known = self.fns.get(key)
        if known is not None:
            return known
        name = self.fresh()
        sub = _FunctionPrinter(self.printer)
        sub.counter = self.counter  # one numbering for the whole definition
        head = sub.params(func.body.block)
        attrs = [f"{k}={value_text(v)}" for k, v in function_attrs(func).items()]
        inner = indent + "  "
        body = sub.block(func.body.block, inner)
        ret = _ret_text(list(func.function_type.outputs.data))
        self.counter = sub.counter
        self.lines.append(
            f"{indent}{name} = fn ({', '.join(head + attrs)}) -> {ret} {{"
        )
        self.lines.extend(sub.lines)
        self.lines.append(f"{inner}{body}")
        self.lines.append(f"{indent}}};")
        self.fns[key] = name
        return name


class RelayTextPrinter:
    """Prints a module (or one function) in Relay's text format."""

    def __init__(self, module: ModuleOp | None, show_meta_data: bool = True):
        self.module = module
        self.show_meta_data = show_meta_data
        self.constants: list[np.ndarray[Any, Any]] = []

    def meta_constant(self, array: np.ndarray[Any, Any]) -> str:
        self.constants.append(array)
        return f"meta[relay.Constant][{len(self.constants) - 1}]"

    def callee(self, call: CallOp) -> FuncOp | None:
        if self.module is None:
            return None
        name = call.callee.string_value()
        for op in self.module.ops:
            if isinstance(op, FuncOp) and op.sym_name.data == name:
                return op
        return None

    @staticmethod
    def is_local(func: FuncOp) -> bool:
        return PRIMITIVE in func.attributes

    def function(self, func: FuncOp) -> str:
        fp = _FunctionPrinter(self)
        if not func.body.blocks:
            raise TextPrintError(f"@{func.sym_name.data} has no body")
        params = fp.params(func.body.block)
        attrs = [f"{k}={value_text(v)}" for k, v in function_attrs(func).items()]
        body = fp.block(func.body.block, "  ")
        ret = _ret_text(list(func.function_type.outputs.data))
        lines = [f"def @{func.sym_name.data}({', '.join(params + attrs)}) -> {ret} {{"]
        lines += fp.lines
        lines.append(f"  {body}")
        lines.append("}")
        return "\n".join(lines)

    def print_module(self, module: ModuleOp) -> str:
        parts = [
            self.function(f)
            for f in module.ops
            if isinstance(f, FuncOp) and not self.is_local(f)
        ]
        return self.finish("\n\n".join(parts))

    def finish(self, program: str) -> str:
        text = f"{VERSION}\n{program}\n"
        if self.constants and self.show_meta_data:
            table = [
                {
                    "dtype": str(a.dtype),
                    "shape": list(a.shape),
                    "data": base64.b64encode(
                        np.ascontiguousarray(
                            a, dtype=a.dtype.newbyteorder("<")
                        ).tobytes()
                    ).decode("ascii"),
                }
                for a in self.constants
            ]
            text += "\n#[metadata]\n" + json.dumps({"relay.Constant": table}) + "\n"
        return text


def to_relay_text(program: Any, show_meta_data: bool = True) -> str:
    """``program`` (an IRModule, ``builtin.module``, ``func.func`` or function view)
    in Relay's text format."""
    from xrelay.frontend.relay.function_view import FunctionView
    from xrelay.frontend.relay.module import IRModule

    if isinstance(program, IRModule):
        program = program.module
    if isinstance(program, FunctionView):
        program = program.func_op
    try:
        return _print_relay(program, show_meta_data)
    except RecursionError as e:
        from xrelay.nesting import too_deep

        raise too_deep(e, "the Relay text printer", program) from e


def _print_relay(program: Any, show_meta_data: bool) -> str:
    if isinstance(program, ModuleOp):
        return RelayTextPrinter(program, show_meta_data).print_module(program)
    if isinstance(program, FuncOp):
        parent = program.parent_op()
        printer = RelayTextPrinter(
            parent if isinstance(parent, ModuleOp) else None, show_meta_data
        )
        return printer.finish(printer.function(program))
    raise TypeError(f"cannot print {type(program).__name__} as Relay text")
