"""Operators defined from Python (TVM's ``relay.op.op.register`` and the ``Op``
setters), and the attribute queries of ``relay.op.get(name)``.

    reg.register("custom_log", "log of a tensor")
    reg.get("custom_log").set_num_inputs(1)
    reg.get("custom_log").add_type_rel("Identity")          # or "Broadcast"
    reg.get("custom_log").add_type_rel("custom_rel", fn)    # fn(arg_types, attrs) -> type
    reg.register_pattern("custom_log", reg.OpPattern.ELEMWISE)
    y = relay.Call(reg.get("custom_log"), [x])

A registered op becomes a ``relay.<name>`` op of the dialect with variadic operands,
one result and no attributes; its type relation is the one added (``Identity``:
the type of the first input; ``Broadcast``: numpy broadcasting of two inputs; a
Python function: called with the inputs' ``TensorType``s and the call's attributes,
returning the result type). Type inference, the passes that ask an op's pattern or
statefulness (FuseOps, FoldConstant, EliminateCommonSubexpr) and the printers take it
like any op. It has no numpy semantics and no kernel: running it is a one-line
error naming it. Ops of the dialect keep their own definitions: the setters refuse
to change them.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, ClassVar

from xdsl.ir import Attribute
from xdsl.irdl import irdl_op_definition, result_def, var_operand_def

from xrelay.dialects.relay.base import (
    ANY_TENSOR,
    FORMAT,
    OpPattern,
    RelayOp,
    TypeRelationError,
    broadcast_shapes,
)
from xrelay.dialects.relay.op_attrs import get_op_attr, register_op_attr
from xrelay.error import TVMError
from xrelay.frontend.relay.expr import Attrs, Op

__all__ = [
    "OpPattern",
    "get",
    "register",
    "register_pattern",
    "register_stateful",
]

TypeRel = Callable[[list[Any], Any], Any]


class CustomOp(RelayOp):
    """Base class of the ops registered from Python (one subclass per op)."""

    DEFINITION: ClassVar[_Definition]

    def type_relation(self, operand_types: Sequence[Attribute]) -> Sequence[Attribute]:
        return [self.DEFINITION.infer(list(operand_types))]

    def compute(self, *args: Any) -> Any:
        raise NotImplementedError(
            f"{self.name} was registered from Python without semantics: it cannot run"
        )


class _Definition:
    """What the Python setters said about one op."""

    def __init__(self, name: str, describe: str) -> None:
        self.name = name
        self.describe = describe
        self.num_inputs: int | None = None
        self.arguments: list[tuple[str, str, str]] = []
        self.rel_name: str | None = None
        self.rel: TypeRel | None = None
        self.support_level = 10
        self.attrs_type_key = ""
        self.cls = _op_class(self)

    def infer(self, types: list[Attribute]) -> Attribute:
        from xrelay.frontend.relay.ty import TensorType, from_ir, to_ir

        if self.num_inputs is not None and len(types) != self.num_inputs:
            raise TypeRelationError(
                f"{self.name} takes {self.num_inputs} inputs, {len(types)} given"
            )
        if self.rel_name is None:
            raise TypeRelationError(
                f"{self.name} has no type relation (add one with add_type_rel)"
            )
        if self.rel is None:  # a built-in relation, by name
            tensors = [from_ir(t) for t in types]
            if not tensors or not all(isinstance(t, TensorType) for t in tensors):
                raise TypeRelationError(f"{self.name} takes tensors")
            first: Any = tensors[0]
            if self.rel_name == "Identity":
                return types[0]
            # Broadcast (checked in add_type_rel)
            if len(tensors) != 2:
                raise TypeRelationError(f"{self.name}: Broadcast relates two inputs")
            other: Any = tensors[1]
            if first.dtype != other.dtype:
                raise TypeRelationError(
                    f"{self.name}: dtypes {first.dtype} and {other.dtype} differ"
                )
            shape = broadcast_shapes(to_ir_shape(first), to_ir_shape(other))
            return to_ir(TensorType(_dims_back(shape), first.dtype))
        result = self.rel([from_ir(t) for t in types], Attrs())
        if result is None:
            raise TypeRelationError(
                f"the type relation {self.rel_name} of {self.name} gave no type"
            )
        return to_ir(result)


def to_ir_shape(t: Any) -> tuple[int, ...]:
    from xrelay.frontend.relay.ty import DYN
    from xrelay.frontend.relay.ty import Any as AnyDim

    return tuple(DYN if isinstance(d, AnyDim) else int(d) for d in t.shape)


def _dims_back(shape: Sequence[int]) -> list[Any]:
    from xrelay.frontend.relay.ty import DYN
    from xrelay.frontend.relay.ty import Any as AnyDim

    return [AnyDim() if d == DYN else d for d in shape]


_DEFINED: dict[str, _Definition] = {}


def _op_class(definition: _Definition) -> type[CustomOp]:
    cls = type(
        f"Custom_{definition.name.replace('.', '_')}",
        (CustomOp,),
        {
            "name": "relay." + definition.name,
            "data": var_operand_def(ANY_TENSOR),
            "result": result_def(ANY_TENSOR),
            "assembly_format": FORMAT,
            "__doc__": definition.describe
            or f"{definition.name}, registered from Python.",
            "__module__": __name__,
        },
    )
    defined_cls = irdl_op_definition(cls)
    defined_cls.DEFINITION = definition
    return defined_cls


def register(op_name: str, describe: str = "") -> Op:
    """Define a new operator ``op_name`` (TVM's ``relay.op.op.register``); a name
    the dialect or an earlier registration has is a :class:`TVMError`."""
    from xrelay.dialects.relay import OPS_BY_NAME

    full = "relay." + op_name
    if full in OPS_BY_NAME:
        raise TVMError(f"Operator {op_name} is registered before")
    definition = _Definition(op_name, describe)
    _DEFINED[op_name] = definition
    OPS_BY_NAME[full] = definition.cls
    return Op.get(op_name)


def get(op_name: str) -> Op:
    """The operator named ``op_name`` (``"add"``, ``"nn.conv2d"``, or one registered
    from Python); an unknown name is a :class:`TVMError`."""
    from xrelay.dialects.relay import OPS_BY_NAME

    name = op_name.removeprefix("relay.")
    if "relay." + name not in OPS_BY_NAME:
        raise TVMError(f"Operator {name} is not registered")
    return Op.get(name)


def defined(op: Op) -> _Definition:
    """The Python definition of ``op``; ops of the dialect are refused."""
    found = _DEFINED.get(op.name)
    if found is None:
        raise TVMError(
            f"{op.name} is defined by the relay dialect: its definition cannot be "
            "changed from Python"
        )
    return found


def op_class(op: Op) -> type[RelayOp] | None:
    from xrelay.dialects.relay import OPS_BY_NAME

    return OPS_BY_NAME.get(op.ir_name)


def get_attr(op: Op, attr_name: str) -> Any:
    """TVM's ``Op.get_attr``: ``TOpPattern`` and ``TOpIsStateful`` from the op's
    class, other keys as registered (``None`` when unset)."""
    cls = op_class(op)
    if cls is not None and attr_name == "TOpPattern":
        return int(cls.PATTERN)
    if cls is not None and attr_name == "TOpIsStateful":
        return bool(cls.STATEFUL)
    return get_op_attr(op.name, attr_name)


def set_attr(op: Op, attr_name: str, value: Any, plevel: int = 10) -> None:
    """TVM's ``Op.set_attr``: ``TOpPattern`` / ``TOpIsStateful`` of a Python-defined
    op, or a registered attribute (the layout hooks) of any op."""
    if attr_name in ("TOpPattern", "TOpIsStateful"):
        cls = defined(op).cls
        if attr_name == "TOpPattern":
            cls.PATTERN = OpPattern(int(value))
        else:
            cls.STATEFUL = bool(value)
        return
    register_op_attr(op.name, attr_name, value, plevel)


def add_type_rel(op: Op, rel_name: str, type_rel_func: TypeRel | None = None) -> None:
    """Give a Python-defined op its type relation: ``"Identity"``, ``"Broadcast"``,
    or any name with a Python function."""
    definition = defined(op)
    if type_rel_func is None and rel_name not in ("Identity", "Broadcast"):
        raise TVMError(
            f"type relation {rel_name!r} of {op.name}: give a function, or use "
            "'Identity' or 'Broadcast'"
        )
    definition.rel_name = rel_name
    definition.rel = type_rel_func


def register_pattern(op_name: str, pattern: int, level: int = 10) -> None:
    """Set the fusion pattern of a Python-defined op."""
    set_attr(Op.get(op_name), "TOpPattern", pattern, level)


def register_stateful(op_name: str, stateful: bool, level: int = 10) -> None:
    """Mark a Python-defined op stateful (never folded or merged)."""
    set_attr(Op.get(op_name), "TOpIsStateful", stateful, level)
