"""What converters work with: the :class:`Builder` that emits relay ops into ``main``,
the :class:`Node` view of one ONNX node, and the converter registry.

Values are typed SSA values from the start: every op is made with ``RelayOp.make``,
whose type relation gives the result type (so converters can read static shapes) or
raises a ``TypeRelationError`` that the importer reports against the ONNX node.

Constant folding happens here: an op whose operands are all ``relay.constant`` values
is evaluated at once with the op's numpy semantics (``RelayOp.evaluate``) and replaced
by a constant. Shape computations (``Shape`` → ``Gather`` → ``Concat`` → ``Reshape``)
thus become constants, and converters read them with :meth:`Node.static`.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, TypeAlias, cast

import numpy as np
import onnx
from onnx import helper
from xdsl.dialects.builtin import BytesAttr, DenseIntOrFPElementsAttr, TensorType
from xdsl.ir import Attribute, Block, BlockArgument, Operation, OpResult, SSAValue

from xrelay.dialects.relay import OPS_BY_NAME, dtypes
from xrelay.dialects.relay.base import Array
from xrelay.dialects.relay.structural import ConstantOp
from xrelay.frontend.onnx.errors import ConversionError
from xrelay.frontend.relay.emitter import sanitize_name
from xrelay.load_once import LoadModules

# ---------------------------------------------------------------------------------------
# Types
# ---------------------------------------------------------------------------------------

ArrayLike: TypeAlias = "Array | np.generic | float | int | bool"
"""A value a constant can be made of."""


def numpy_dtype_of(elem_type: int, what: str) -> np.dtype[Any]:
    """The numpy dtype of an ONNX ``TensorProto`` element type, if relay has it."""
    try:
        npd = np.dtype(helper.tensor_dtype_to_np_dtype(elem_type))
        dtypes.element_type(npd)
    except Exception:
        name = onnx.TensorProto.DataType.Name(elem_type) if elem_type else "UNDEFINED"
        raise ConversionError(
            f"{what} has the unsupported element type {name}"
        ) from None
    return npd


def tensor_type(shape: Sequence[int], dtype: np.dtype[Any]) -> TensorType:
    return TensorType(dtypes.element_type(dtype), list(shape))


def _owned_bytes(array: Array) -> bytes | None:
    """The ``bytes`` object ``array`` views, when the array is exactly its contents in
    little-endian C order (what ``onnx.numpy_helper.to_array`` gives for ``raw_data``)."""
    if sys.byteorder != "little" or not array.flags.c_contiguous:
        return None
    base = cast(object, array.base)
    while isinstance(base, np.ndarray):
        base = cast(object, cast(Array, base).base)
    if isinstance(base, bytes) and len(base) == array.nbytes:
        return base
    return None


def _dense(ty: TensorType, raw: bytes) -> DenseIntOrFPElementsAttr:
    """A dense elements attribute over ``raw`` (kept, not copied)."""
    return DenseIntOrFPElementsAttr(ty, BytesAttr(raw))  # pyright: ignore[reportCallIssue, reportArgumentType, reportUnknownVariableType]


def constant_op(array: Array) -> ConstantOp:
    """A ``relay.constant`` holding ``array``. When the array is a view of a ``bytes``
    object (a weight read from the model), the constant shares those bytes: no copy;
    otherwise the bytes are written once, in C order."""
    arr = np.asarray(array)
    raw = _owned_bytes(arr)
    if raw is None:
        if arr.dtype.byteorder == ">":
            arr = arr.astype(arr.dtype.newbyteorder("<"))
        raw = arr.tobytes()
    return ConstantOp(_dense(tensor_type(arr.shape, arr.dtype), raw))


# ---------------------------------------------------------------------------------------
# The builder
# ---------------------------------------------------------------------------------------


class Builder:
    """Emits relay ops into the body of ``main``; folds ops on constants."""

    def __init__(self) -> None:
        self.block = Block()
        self.num_inputs = 0
        self._param_keys: list[int] = []
        self._param_names: list[str] = []

    # -- arguments ----------------------------------------------------------------------

    def add_input(
        self, name: str, shape: Sequence[int], dtype: np.dtype[Any]
    ) -> SSAValue:
        """A new parameter of ``main`` for a graph input (inputs come first)."""
        arg = self.block.insert_arg(tensor_type(shape, dtype), self.num_inputs)
        arg.name_hint = sanitize_name(name)
        self.num_inputs += 1
        return arg

    def add_param(self, name: str, array: Array, order: int) -> BlockArgument:
        """A parameter of ``main`` for a weight (after the inputs, in ``order``)."""
        pos = sum(1 for k in self._param_keys if k < order)
        self._param_keys.insert(pos, order)
        self._param_names.insert(pos, name)
        arg = self.block.insert_arg(
            tensor_type(array.shape, array.dtype), self.num_inputs + pos
        )
        arg.name_hint = sanitize_name(name)
        return arg

    @property
    def param_names(self) -> list[str]:
        """The weights that are parameters of ``main``, in their order there."""
        return list(self._param_names)

    def remove_unused_params(self) -> list[str]:
        """Drop the weight parameters nothing uses any more; their names."""
        removed: list[str] = []
        for pos in reversed(range(len(self._param_keys))):
            arg = self.block.args[self.num_inputs + pos]
            if not arg.uses:
                self.block.erase_arg(arg)
                removed.append(self._param_names.pop(pos))
                self._param_keys.pop(pos)
        return removed

    # -- ops ----------------------------------------------------------------------------

    def const(self, array: ArrayLike, dtype: Any = None) -> SSAValue:
        """A constant (``dtype`` converts a Python or numpy value first)."""
        arr = np.asarray(array, dtype=dtype)
        op = constant_op(arr)
        self.block.add_op(op)
        return op.result

    def op(self, name: str, operands: Sequence[SSAValue], **attrs: Any) -> SSAValue:
        """Relay op ``name`` (Relay's name: ``"add"``, ``"nn.conv2d"``) on
        ``operands``; its one result."""
        results = self.ops(name, operands, **attrs)
        if len(results) != 1:
            raise ConversionError(f"relay.{name} has {len(results)} results, not one")
        return results[0]

    def ops(
        self, name: str, operands: Sequence[SSAValue], **attrs: Any
    ) -> list[SSAValue]:
        """Relay op ``name`` on ``operands``; all its results. Folded to constants when
        every operand is a constant."""
        return self.ops_folding(name, operands, True, **attrs)

    def unfolded(
        self, name: str, operands: Sequence[SSAValue], **attrs: Any
    ) -> SSAValue:
        """Relay op ``name`` on ``operands``, never folded (a ``qnn.dequantize`` of a
        weight stays, for FakeQuantizationToInteger to find)."""
        return self.ops_folding(name, operands, False, **attrs)[0]

    def ops_folding(
        self, name: str, operands: Sequence[SSAValue], fold: bool, **attrs: Any
    ) -> list[SSAValue]:
        cls = OPS_BY_NAME.get("relay." + name)
        if cls is None:
            raise ConversionError(f"the relay dialect has no op relay.{name}")
        op = cls.make(list(operands), {k: v for k, v in attrs.items() if v is not None})
        arrays = [self.value(v) for v in operands]
        if fold and not cls.STATEFUL and all(a is not None for a in arrays):
            values = op.evaluate(*cast(list[Array], arrays))
            op.drop_all_references()
            return [self.const(np.asarray(v)) for v in values]
        self.block.add_op(op)
        return list(op.results)

    # -- queries ------------------------------------------------------------------------

    @staticmethod
    def value(v: SSAValue) -> Array | None:
        """The value of a constant, else ``None``."""
        owner = v.owner
        if isinstance(owner, ConstantOp):
            return owner.numpy()
        return None

    @staticmethod
    def shape(v: SSAValue) -> tuple[int, ...]:
        ty = v.type
        assert isinstance(ty, TensorType), f"expected a tensor, got {ty}"
        return tuple(cast(TensorType[Attribute], ty).get_shape())

    @staticmethod
    def dtype(v: SSAValue) -> np.dtype[Any]:
        ty = v.type
        assert isinstance(ty, TensorType), f"expected a tensor, got {ty}"
        return dtypes.numpy_dtype(cast(TensorType[Attribute], ty).get_element_type())

    # -- finishing ----------------------------------------------------------------------

    def remove_dead_ops(self) -> None:
        """Erase ops whose results are unused (constants left by folding, shape
        computations), last to first so that chains go in one sweep."""
        op: Operation | None = self.block.last_op
        while op is not None:
            prev = op.prev_op
            if op.results and all(not r.uses for r in op.results):
                self.block.erase_op(op)
            op = prev


# ---------------------------------------------------------------------------------------
# One node
# ---------------------------------------------------------------------------------------


@dataclass
class Initializer:
    """A weight of the graph: made a constant or a parameter of ``main`` on first use
    as a runtime value; read as its array when used statically."""

    name: str
    array: Array
    order: int
    value: SSAValue | None = None


Entry: TypeAlias = SSAValue | Initializer
"""What an ONNX value name stands for."""


class Graph:
    """The state shared by the converters: ONNX names → values, and the builder."""

    def __init__(self, builder: Builder, freeze_params: bool, opset: int):
        self.builder = builder
        self.freeze_params = freeze_params
        self.opset = opset
        self.env: dict[str, Entry] = {}
        self.params: dict[str, Array] = {}
        self.consumed: set[str] = set()

    def runtime(self, name: str) -> SSAValue:
        """The SSA value of ONNX value ``name`` (a weight becomes a constant or a
        parameter now)."""
        entry = self.env[name]
        if isinstance(entry, Initializer):
            if entry.value is None:
                if self.freeze_params:
                    entry.value = self.builder.const(entry.array)
                else:
                    entry.value = self.builder.add_param(
                        entry.name, entry.array, entry.order
                    )
                    self.params[entry.name] = entry.array
            return entry.value
        return entry

    def static(self, name: str) -> Array | None:
        """The value of ``name`` when it is known at import time, else ``None``."""
        entry = self.env[name]
        if isinstance(entry, Initializer):
            return entry.array
        return Builder.value(entry)


class Node:
    """One ONNX node as a converter sees it: its inputs, attributes and outputs, and
    the builder to emit relay ops with (``node.op``, ``node.const``, ...)."""

    def __init__(self, proto: onnx.NodeProto, graph: Graph):
        self.proto = proto
        self.graph = graph
        self.b = graph.builder
        self.op_type = proto.op_type
        self.opset = graph.opset
        self.inputs = list(proto.input)
        self.outputs = list(proto.output)
        self.attrs: dict[str, Any] = {}
        for attr in proto.attribute:
            value = helper.get_attribute_value(attr)
            if isinstance(value, bytes):
                value = value.decode("utf-8", errors="replace")
            self.attrs[attr.name] = value

    # -- inputs -------------------------------------------------------------------------

    def has_input(self, i: int) -> bool:
        return i < len(self.inputs) and self.inputs[i] != ""

    @property
    def num_inputs(self) -> int:
        """The number of inputs, up to the last given one."""
        n = len(self.inputs)
        while n and self.inputs[n - 1] == "":
            n -= 1
        return n

    def input(self, i: int, what: str | None = None) -> SSAValue:
        """Input ``i`` as a runtime value (it must be given)."""
        if not self.has_input(i):
            raise ConversionError(f"input #{i}{self._what(what)} is missing")
        return self.graph.runtime(self.inputs[i])

    def input_shape(self, i: int) -> tuple[int, ...]:
        """The static shape of input ``i``, without making a weight a value of
        ``main`` when only its shape is read."""
        value = self.graph.static(self.inputs[i]) if self.has_input(i) else None
        if value is not None:
            return tuple(value.shape)
        return self.shape(self.input(i))

    def optional_input(self, i: int) -> SSAValue | None:
        return self.input(i) if self.has_input(i) else None

    def static(self, i: int, what: str | None = None) -> Array:
        """Input ``i``'s value, which must be known at import time (an initializer, a
        Constant or a value computed from them)."""
        if not self.has_input(i):
            raise ConversionError(f"input #{i}{self._what(what)} is missing")
        value = self.graph.static(self.inputs[i])
        if value is None:
            raise ConversionError(
                f"input #{i}{self._what(what)} ('{self.inputs[i]}') must be known at "
                "import time (an initializer, a Constant or computed from them): "
                "dynamic values are not supported there",
                static_input=self.inputs[i],
            )
        return value

    def optional_static(self, i: int, what: str | None = None) -> Array | None:
        return self.static(i, what) if self.has_input(i) else None

    def static_ints(self, i: int, what: str | None = None) -> list[int] | None:
        """Input ``i`` as a list of ints (``None`` when it is not given)."""
        value = self.optional_static(i, what)
        return None if value is None else [int(v) for v in value.reshape(-1)]

    @staticmethod
    def _what(what: str | None) -> str:
        return f" ({what})" if what else ""

    # -- attributes ---------------------------------------------------------------------

    def has_attr(self, name: str) -> bool:
        return name in self.attrs

    def attr_int(self, name: str, default: int | None = None) -> int:
        value = self.attrs.get(name, default)
        if value is None:
            raise ConversionError(f"the required attribute '{name}' is missing")
        if not isinstance(value, int | np.integer):
            raise ConversionError(f"attribute '{name}' must be an int, got {value!r}")
        return int(value)

    def attr_float(self, name: str, default: float | None = None) -> float:
        value = self.attrs.get(name, default)
        if value is None:
            raise ConversionError(f"the required attribute '{name}' is missing")
        if not isinstance(value, int | float | np.number):
            raise ConversionError(f"attribute '{name}' must be a float, got {value!r}")
        return float(value)

    def attr_str(self, name: str, default: str | None = None) -> str:
        value = self.attrs.get(name, default)
        if value is None:
            raise ConversionError(f"the required attribute '{name}' is missing")
        if not isinstance(value, str):
            raise ConversionError(f"attribute '{name}' must be a string, got {value!r}")
        return value

    def attr_ints(self, name: str, default: Sequence[int] | None = None) -> list[int]:
        value = self.attrs.get(name, default)
        if value is None:
            raise ConversionError(f"the required attribute '{name}' is missing")
        if isinstance(value, int | np.integer):
            return [int(value)]
        return [int(v) for v in cast(Sequence[Any], value)]

    def opt_attr_ints(self, name: str) -> list[int] | None:
        return self.attr_ints(name) if name in self.attrs else None

    def attr_floats(
        self, name: str, default: Sequence[float] | None = None
    ) -> list[float]:
        value = self.attrs.get(name, default)
        if value is None:
            raise ConversionError(f"the required attribute '{name}' is missing")
        if isinstance(value, int | float):
            return [float(value)]
        return [float(v) for v in cast(Sequence[Any], value)]

    # -- outputs ------------------------------------------------------------------------

    @property
    def num_outputs(self) -> int:
        return len(self.outputs)

    def output_used(self, i: int) -> bool:
        """Whether output ``i`` is named and read by a node or the graph."""
        return (
            i < len(self.outputs)
            and self.outputs[i] != ""
            and self.outputs[i] in self.graph.consumed
        )

    # -- emitting (the builder's methods) -----------------------------------------------

    def op(self, name: str, operands: Sequence[SSAValue], **attrs: Any) -> SSAValue:
        return self.b.op(name, operands, **attrs)

    def ops(
        self, name: str, operands: Sequence[SSAValue], **attrs: Any
    ) -> list[SSAValue]:
        return self.b.ops(name, operands, **attrs)

    def unfolded(
        self, name: str, operands: Sequence[SSAValue], **attrs: Any
    ) -> SSAValue:
        return self.b.unfolded(name, operands, **attrs)

    def const(self, array: ArrayLike, dtype: Any = None) -> SSAValue:
        return self.b.const(array, dtype)

    def shape(self, v: SSAValue) -> tuple[int, ...]:
        return self.b.shape(v)

    def rank(self, v: SSAValue) -> int:
        return len(self.b.shape(v))

    def dtype(self, v: SSAValue) -> np.dtype[Any]:
        return self.b.dtype(v)

    def scalar(self, value: float | int | bool, like: SSAValue) -> SSAValue:
        """A 0-d constant with the dtype of ``like``."""
        return self.b.const(value, self.dtype(like))

    def reshape(self, v: SSAValue, shape: Sequence[int]) -> SSAValue:
        """``v`` reshaped to the static ``shape`` (no op when it already has it)."""
        shape = tuple(int(d) for d in shape)
        if self.shape(v) == shape:
            return v
        return self.op("reshape", [v], newshape=list(shape), allowzero=0 in shape)

    def axis(self, axis: int, rank: int, what: str = "axis") -> int:
        """``axis`` in ``[0, rank)`` (negative counts from the end)."""
        if not -rank <= axis < rank:
            raise ConversionError(f"{what} {axis} is out of range for rank {rank}")
        return axis % rank if rank else 0


Outputs: TypeAlias = "SSAValue | Sequence[SSAValue | None]"
"""What a converter returns: the value of its one output, or one per output (``None``
for an output it does not produce)."""

Converter: TypeAlias = Callable[[Node], Outputs]

CONVERTERS: dict[str, Converter] = {}
"""Converters by ONNX op type (``"Conv"``; ``"com.microsoft.Gelu"`` for other
domains), filled by :func:`converter` in the modules of this package when
:data:`load_converters` imports them."""

load_converters = LoadModules(__name__.rpartition(".")[0], [os.path.dirname(__file__)])
"""Imports every module of :mod:`xrelay.frontend.onnx`, once (the package does
when imported): the converter modules register themselves, nothing lists them."""


def converter(*op_types: str) -> Callable[[Converter], Converter]:
    """Register a function as the converter of ``op_types``."""

    def register(fn: Converter) -> Converter:
        for op_type in op_types:
            CONVERTERS[op_type] = fn
        return fn

    return register


def mark_result(value: SSAValue, name: str) -> None:
    """Give an op result the ONNX name as its SSA name hint (block arguments keep
    theirs)."""
    if isinstance(value, OpResult) and value.name_hint is None and name:
        value.name_hint = sanitize_name(name)
