"""Relay's non-operator expressions in SSA form: constants, tuples, projections and
``if``; plus the function attributes with pass meaning.

* ``relay.constant`` holds a dense tensor. Its bytes are the numpy array's bytes (no
  per-element Python objects); printing can elide large ones (see
  :mod:`xrelay.dialects.relay.printing`).
* ``relay.tuple`` / ``relay.tuple_get_item`` build and project builtin ``tuple<...>``
  values (Relay's ``Tuple`` / ``TupleGetItem``).
* ``relay.if`` is a region op with a then and an else region, each ending in
  ``relay.yield`` (Relay's ``If``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar, cast

import numpy as np
from xdsl.dialects.builtin import (
    BytesAttr,
    DenseIntOrFPElementsAttr,
    TensorType,
    TupleType,
    UnrankedTensorType,
)
from xdsl.ir import Attribute, Region, SSAValue, TypeAttribute
from xdsl.irdl import (
    irdl_op_definition,
    operand_def,
    prop_def,
    region_def,
    result_def,
    traits_def,
    var_operand_def,
    var_result_def,
)
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.traits import (
    ConstantLike,
    IsTerminator,
    Pure,
    RecursivelySpeculatable,
    RecursiveMemoryEffect,
    ReturnLike,
)
from xdsl.utils.exceptions import VerifyException

from xrelay.dialects.relay import dtypes, printing
from xrelay.dialects.relay.base import (
    ANY_TENSOR,
    FORMAT,
    Array,
    OpPattern,
    RelayOp,
    TypeRelationError,
    get_int,
    int_prop,
    ranked,
    types_compatible,
)
from xrelay.dialects.relay.known_attributes import KnownAttributes

# Function attributes (unit attributes on ``func.func``) with Relay's meaning.
SKIP_OPTIMIZATION = "relay.skip_optimization"
"""Relay's ``SkipOptimization``: function passes leave this function alone."""
PRIMITIVE = "relay.primitive"
"""Relay's ``Primitive``: a fused kernel made by FuseOps; nothing optimises inside it."""
INLINE = "relay.inline"
"""Relay's ``Inline``: the Inline pass splices this function into its callers."""
FUNCTION_ATTRIBUTES = (SKIP_OPTIMIZATION, PRIMITIVE, INLINE)


def dense_from_numpy(array: Array) -> DenseIntOrFPElementsAttr:
    """A dense elements attribute holding exactly the bytes of ``array``."""
    arr = np.asarray(array)
    elem = dtypes.element_type(arr.dtype)
    little = arr.dtype.newbyteorder("<")
    if arr.dtype != little:
        arr = arr.astype(little)
    data = arr.tobytes()  # row-major, one copy whatever the strides
    ty = TensorType(elem, list(arr.shape))
    return DenseIntOrFPElementsAttr(ty, BytesAttr(data))  # pyright: ignore[reportCallIssue, reportArgumentType]


def numpy_from_dense(attr: DenseIntOrFPElementsAttr) -> Array:
    """A read-only numpy view of a dense attribute's bytes (no copy)."""
    ty = cast(TensorType, attr.get_type())
    npd = dtypes.numpy_dtype(ty.get_element_type()).newbyteorder("<")
    shape = ty.get_shape()
    raw = attr.data.data
    count = int(np.prod(shape)) if shape else 1
    if len(raw) == npd.itemsize and count != 1:  # a splat
        return np.broadcast_to(np.frombuffer(raw, dtype=npd), shape)
    return np.frombuffer(raw, dtype=npd).reshape(shape)


def _needs_hex(attr: DenseIntOrFPElementsAttr) -> bool:
    """Whether the decimal list form would not read back bit-exactly: xDSL writes NaN
    and infinities inside a list as hex integers, which read back as numbers."""
    if not dtypes.is_float(attr.get_element_type()) or len(attr) > 100:
        return False
    return not bool(np.isfinite(numpy_from_dense(attr)).all())


def _normalize_bools(attr: DenseIntOrFPElementsAttr) -> DenseIntOrFPElementsAttr:
    """xDSL reads ``true`` in an ``i1`` literal as the byte 0xFF; numpy's bool is 1."""
    if not dtypes.is_bool(attr.get_element_type()):
        return attr
    raw = attr.data.data
    fixed = bytes(1 if b else 0 for b in raw) if any(b > 1 for b in raw) else raw
    return DenseIntOrFPElementsAttr(attr.type, BytesAttr(fixed))  # pyright: ignore[reportCallIssue, reportArgumentType]


@irdl_op_definition
class ConstantOp(RelayOp):
    """A constant tensor (Relay's ``Constant``)."""

    name = "relay.constant"
    value = prop_def(DenseIntOrFPElementsAttr)
    result = result_def(TensorType)
    traits = traits_def(Pure(), ConstantLike(), KnownAttributes())
    PATTERN: ClassVar[OpPattern] = OpPattern.OPAQUE
    MEMOIZED: ClassVar[bool] = False  # its value: large, costly to hash

    def __init__(self, value: DenseIntOrFPElementsAttr | Array):
        if not isinstance(value, DenseIntOrFPElementsAttr):
            value = dense_from_numpy(value)
        super().__init__(properties={"value": value}, result_types=[value.get_type()])

    @staticmethod
    def from_numpy(array: Array | float | int | bool) -> ConstantOp:
        return ConstantOp(dense_from_numpy(np.asarray(array)))

    def numpy(self) -> Array:
        """The value as a read-only numpy array."""
        return numpy_from_dense(self.value)

    def type_relation(self, operand_types: Sequence[Attribute]) -> Sequence[Attribute]:
        return [self.value.get_type()]

    def compute(self, *args: Any) -> Any:
        return self.numpy()

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        ty = self.value.get_type()
        if printing.should_elide(len(self.value)):
            printer.print_string(f"dense_resource<{printing.ELIDED}>")
        elif _needs_hex(self.value):
            printer.print_string(f'dense<"0x{self.value.data.data.hex().upper()}">')
        else:
            self.value.print_without_type(printer)
        printer.print_string(" : ")
        printer.print_attribute(ty)
        if self.attributes:
            printer.print_op_attributes(self.attributes)

    @classmethod
    def parse(cls, parser: Parser) -> ConstantOp:
        pos = parser.pos
        if parser.parse_optional_keyword("dense_resource"):
            parser.parse_punctuation("<")
            parser.parse_identifier()
            parser.parse_punctuation(">")
            parser.raise_error(
                "the data of this constant was elided when the IR was printed; print it "
                "in full (without --elide-constants) to read it back",
                pos,
                parser.pos,
            )
        value = parser.parse_attribute()
        if not isinstance(value, DenseIntOrFPElementsAttr):
            parser.raise_error("expected a dense tensor literal", pos, parser.pos)
        op = ConstantOp(_normalize_bools(cast(DenseIntOrFPElementsAttr, value)))
        attrs = parser.parse_optional_attr_dict()
        op.attributes.update(attrs)
        return op

    def verify_(self) -> None:
        if self.result.type != self.value.get_type():
            raise VerifyException(
                f"{self.name}: result type {self.result.type} differs from the value's "
                f"type {self.value.get_type()}"
            )


@irdl_op_definition
class TupleOp(RelayOp):
    """A tuple of values (Relay's ``Tuple``)."""

    name = "relay.tuple"
    fields = var_operand_def()
    result = result_def(TupleType)
    assembly_format = FORMAT
    PATTERN: ClassVar[OpPattern] = OpPattern.TUPLE

    def type_relation(self, operand_types: Sequence[Attribute]) -> Sequence[Attribute]:
        for i, ty in enumerate(operand_types):
            if isinstance(ty, UnrankedTensorType):
                ranked(ty, f"field {i}")
        return [TupleType(tuple(cast(Sequence[TypeAttribute], operand_types)))]

    def compute(self, *args: Any) -> Any:
        return tuple(args)


@irdl_op_definition
class TupleGetItemOp(RelayOp):
    """Field ``index`` of a tuple (Relay's ``TupleGetItem``)."""

    name = "relay.tuple_get_item"
    tuple = operand_def(TupleType)
    result = result_def()
    index = int_prop()
    assembly_format = FORMAT
    PATTERN: ClassVar[OpPattern] = OpPattern.INJECTIVE

    def type_relation(self, operand_types: Sequence[Attribute]) -> Sequence[Attribute]:
        ty = operand_types[0]
        if not isinstance(ty, TupleType):
            raise TypeRelationError(f"operand must be a tuple, got {ty}")
        fields = ty.types.data
        index = get_int(self.index)
        if not 0 <= index < len(fields):
            raise TypeRelationError(
                f"index {index} is out of range for a tuple of {len(fields)} fields"
            )
        field = fields[index]
        if isinstance(field, UnrankedTensorType):
            ranked(field, f"field {index}")
        return [field]

    def compute(self, *args: Any) -> Any:
        return args[0][get_int(self.index)]


@irdl_op_definition
class YieldOp(RelayOp):
    """Ends a region of ``relay.if``, giving its values."""

    name = "relay.yield"
    values = var_operand_def()
    traits = traits_def(IsTerminator(), ReturnLike(), Pure(), KnownAttributes())
    assembly_format = "attr-dict ($values^ `:` type($values))?"

    def type_relation(self, operand_types: Sequence[Attribute]) -> Sequence[Attribute]:
        return []

    def verify_(self) -> None:
        return


@irdl_op_definition
class IfOp(RelayOp):
    """``then`` if the 0-d ``condition`` holds, else ``else`` (Relay's ``If``)."""

    name = "relay.if"
    condition = operand_def(ANY_TENSOR)
    results_ = var_result_def()
    then_region = region_def("single_block")
    else_region = region_def("single_block")
    traits = traits_def(
        RecursiveMemoryEffect(), RecursivelySpeculatable(), KnownAttributes()
    )
    PATTERN: ClassVar[OpPattern] = OpPattern.OPAQUE

    def __init__(
        self,
        condition: SSAValue,
        result_types: Sequence[Attribute],
        then_region: Region,
        else_region: Region,
    ):
        super().__init__(
            operands=[condition],
            result_types=[list(result_types)],
            regions=[then_region, else_region],
        )

    def type_relation(self, operand_types: Sequence[Attribute]) -> Sequence[Attribute]:
        cond = ranked(operand_types[0], "condition")
        if len(cond.get_shape()) != 0 or not dtypes.is_bool(cond.get_element_type()):
            raise TypeRelationError(f"condition must be a 0-d i1 tensor, got {cond}")
        return list(self._yield_types(self.then_region, "then"))

    @staticmethod
    def _yield_types(region: Region, which: str) -> Sequence[Attribute]:
        block = region.block
        last = block.last_op
        if not isinstance(last, YieldOp):
            raise TypeRelationError(f"the {which} region must end in relay.yield")
        return [v.type for v in last.values]

    def infer_result_types(self) -> Sequence[Attribute]:
        self.type_relation([self.condition.type])
        return self._yield_types(self.then_region, "then")

    def verify_(self) -> None:
        try:
            cond = ranked(self.condition.type, "condition")
            if len(cond.get_shape()) != 0 or not dtypes.is_bool(
                cond.get_element_type()
            ):
                raise TypeRelationError(
                    f"condition must be a 0-d i1 tensor, got {cond}"
                )
            for region, which in (
                (self.then_region, "then"),
                (self.else_region, "else"),
            ):
                types = self._yield_types(region, which)
                if len(types) != len(self.results):
                    raise TypeRelationError(
                        f"the {which} region yields {len(types)} values but the op has "
                        f"{len(self.results)} results"
                    )
                for i, (res, ty) in enumerate(zip(self.results, types, strict=True)):
                    if not types_compatible(res.type, ty):
                        raise TypeRelationError(
                            f"result #{i} has type {res.type} but the {which} region "
                            f"yields {ty}"
                        )
        except TypeRelationError as e:
            if "incomplete" in str(e):
                return
            raise VerifyException(f"{self.name}: {e}") from e

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.condition)
        printer.print_string(" : ")
        printer.print_attribute(self.condition.type)
        if self.results:
            printer.print_string(" -> (")
            printer.print_list(self.result_types, printer.print_attribute)
            printer.print_string(")")
        printer.print_string(" ")
        printer.print_region(self.then_region)
        printer.print_string(" else ")
        printer.print_region(self.else_region)
        if self.attributes:
            printer.print_op_attributes(self.attributes)

    @classmethod
    def parse(cls, parser: Parser) -> IfOp:
        unresolved = parser.parse_unresolved_operand()
        parser.parse_punctuation(":")
        cond_type = parser.parse_type()
        cond = parser.resolve_operand(unresolved, cond_type)
        types: list[Attribute] = []
        if parser.parse_optional_punctuation("->"):
            types = parser.parse_comma_separated_list(
                parser.Delimiter.PAREN, parser.parse_type
            )
        then_region = parser.parse_region()
        parser.parse_keyword("else")
        else_region = parser.parse_region()
        op = IfOp(cond, types, then_region, else_region)
        op.attributes.update(parser.parse_optional_attr_dict())
        return op

    def compute(self, *args: Any) -> Any:
        raise NotImplementedError("relay.if is evaluated by the interpreter")


STRUCTURAL_OPS: list[type[RelayOp]] = [
    ConstantOp,
    TupleOp,
    TupleGetItemOp,
    YieldOp,
    IfOp,
]
