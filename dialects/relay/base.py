"""The shared machinery of every relay op.

Every op of the dialect subclasses :class:`RelayOp` and declares, in one place:

* its operands and results (``operand_def`` / ``result_def`` on tensor types);
* its attributes as properties with Relay's defaults (the ``*_prop`` helpers below);
* ``pattern``: its fusion pattern kind (:class:`OpPattern`), read by FuseOps;
* ``type_relation``: result types from operand types and attributes; a mismatch raises
  :class:`TypeRelationError` with a message naming the mismatch (the op name is added
  by the caller);
* ``compute``: its numpy reference semantics, used by the interpreter and FoldConstant.

Passes ask the op; they never keep their own per-op tables.

Result types written unranked (``tensor<*xf32>``) are *incomplete*: the verifier accepts
them and InferType fills them in from ``type_relation``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from enum import IntEnum
from typing import TYPE_CHECKING, Any, ClassVar, TypeAlias, cast

import numpy as np
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    I64,
    ArrayAttr,
    BoolAttr,
    DenseArrayBase,
    Float64Type,
    FloatAttr,
    IntegerAttr,
    IntegerType,
    NoneType,
    StringAttr,
    TensorType,
    TupleType,
    UnrankedTensorType,
    i64,
)
from xdsl.ir import Attribute, ErasedSSAValue, SSAValue, TypeAttribute
from xdsl.irdl import (
    IRDLOperation,
    ParsePropInAttrDict,
    VerificationContext,
    opt_prop_def,
    prop_def,
    traits_def,
)
from xdsl.traits import Pure
from xdsl.utils.exceptions import VerifyException

from xrelay.dialects.relay import dtypes
from xrelay.dialects.relay.known_attributes import KnownAttributes
from xrelay.dialects.relay.layout_rules import InferredLayouts, MaybeLayout
from xrelay.dialects.relay.mixed_precision import (
    ACCUMULATION_TYPE,
    MixedPrecisionCategory,
)

if TYPE_CHECKING:
    from xrelay.dialects.relay.fake_quantization import FakeQuantRewrite, Quantized

Array: TypeAlias = np.ndarray[Any, Any]
"""A numpy array, the value of a tensor in the reference semantics."""

Value: TypeAlias = "Array | tuple[Value, ...]"
"""A runtime value: a tensor or a (nested) tuple of values."""

ANY_TENSOR = TensorType | UnrankedTensorType
"""Operand/result constraint: a ranked tensor, or an unranked (incomplete) one."""

FORMAT = "operands attr-dict `:` functional-type(operands, results)"
"""The custom assembly format shared by most ops:
``%r = relay.add %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>``."""

NULLARY_FORMAT = "attr-dict `:` type(results)"
"""The format of ops without operands: ``%r = relay.zeros {shape = ...} : tensor<2xf32>``."""


class OpPattern(IntEnum):
    """Relay's ``TOpPattern``: how an op may take part in fusion (FuseOps)."""

    ELEMWISE = 0
    BROADCAST = 1
    INJECTIVE = 2
    COMM_REDUCE = 3
    OUT_ELEMWISE_FUSABLE = 4
    TUPLE = 7
    OPAQUE = 8


class TypeRelationError(Exception):
    """Operand types and attributes do not fit an op's type relation."""


class IncompleteTypeError(TypeRelationError):
    """An operand type is not known yet (unranked), so no result type can be derived."""


# ---------------------------------------------------------------------------------------
# Property helpers: Relay attributes as xDSL properties with Relay's defaults.
# ---------------------------------------------------------------------------------------

IntArray: TypeAlias = DenseArrayBase[IntegerType]


def int_prop(default: int | None = None) -> IntegerAttr[I64]:
    """An integer attribute (``axis = 1 : i64``); required when no default is given."""
    if default is None:
        return prop_def(IntegerAttr[I64])
    return prop_def(IntegerAttr[I64], IntegerAttr(default, i64))


def opt_int_prop() -> IntegerAttr[I64] | None:
    """An integer attribute that may be absent (Relay's ``None``)."""
    return opt_prop_def(IntegerAttr[I64])


def ints_prop(default: Sequence[int] | None = None) -> IntArray:
    """A list of integers (``strides = array<i64: 1, 1>``)."""
    if default is None:
        return prop_def(DenseArrayBase[IntegerType])
    return prop_def(DenseArrayBase[IntegerType], DenseArrayBase.from_list(i64, default))


def opt_ints_prop() -> IntArray | None:
    """A list of integers that may be absent (Relay's ``None``)."""
    return opt_prop_def(DenseArrayBase[IntegerType])


def float_prop(default: float | None = None) -> FloatAttr[Float64Type]:
    """A floating-point attribute (``epsilon = 1.0e-05 : f64``)."""
    if default is None:
        return prop_def(FloatAttr[Float64Type])
    return prop_def(FloatAttr[Float64Type], FloatAttr(default, Float64Type()))


def bool_prop(default: bool) -> BoolAttr:
    """A boolean attribute (``keepdims = true``)."""
    return prop_def(BoolAttr, IntegerAttr.from_bool(default))


def str_prop(default: str | None = None) -> StringAttr:
    """A string attribute (``data_layout = "NCHW"``)."""
    if default is None:
        return prop_def(StringAttr)
    return prop_def(StringAttr, StringAttr(default))


def dtype_prop() -> TypeAttribute:
    """An element-type attribute (``dtype = f32``)."""
    return prop_def(TypeAttribute)


def opt_dtype_prop() -> TypeAttribute | None:
    """An element-type attribute that may be absent (Relay's ``""``: same as input)."""
    return opt_prop_def(TypeAttribute)


def to_attribute(value: object) -> Attribute:
    """Convert a Python attribute value to the IR attribute holding it.

    ``bool`` → ``BoolAttr``; ``int`` → ``i64``; ``float`` → ``f64``; ``str`` →
    ``StringAttr``; a list/tuple of ints → ``array<i64: ...>``; a nested list of ints
    (Relay's ``pad_width``) is flattened. Attributes pass through unchanged.
    """
    if isinstance(value, Attribute):
        return value
    if isinstance(value, bool | np.bool_):
        return IntegerAttr.from_bool(bool(value))
    if isinstance(value, int | np.integer):
        return IntegerAttr(int(value), i64)
    if isinstance(value, float | np.floating):
        return FloatAttr(float(value), Float64Type())
    if isinstance(value, str):
        return StringAttr(value)
    if isinstance(value, list | tuple | np.ndarray):
        flat = [int(v) for v in np.asarray(value, dtype=np.int64).reshape(-1)]
        return DenseArrayBase.from_list(i64, flat)
    raise TypeError(f"cannot use {value!r} as an attribute value")


def get_int(attr: Attribute) -> int:
    assert isinstance(attr, IntegerAttr)
    return cast(IntegerAttr[IntegerType], attr).value.data


def get_ints(attr: Attribute) -> tuple[int, ...]:
    assert isinstance(attr, DenseArrayBase)
    return cast(IntArray, attr).get_values()


def get_float(attr: Attribute) -> float:
    if isinstance(attr, IntegerAttr):
        return float(get_int(attr))
    assert isinstance(attr, FloatAttr)
    return cast(FloatAttr, attr).value.data


def get_bool(attr: Attribute) -> bool:
    return bool(get_int(attr))


def get_str(attr: Attribute) -> str:
    assert isinstance(attr, StringAttr)
    return attr.data


# ---------------------------------------------------------------------------------------
# Shape helpers used by the type relations.
# ---------------------------------------------------------------------------------------

DYN = DYNAMIC_INDEX
"""A dynamic dimension (``?``): xDSL's marker, what parsing ``?`` gives."""


def normalize_axis(axis: int, rank: int, what: str = "axis") -> int:
    """Map a possibly negative axis into ``[0, rank)``; raise if out of range."""
    if not -rank <= axis < rank:
        raise TypeRelationError(f"{what} {axis} is out of range for rank {rank}")
    return axis % rank if rank else 0


def broadcast_shapes(a: Sequence[int], b: Sequence[int]) -> tuple[int, ...]:
    """numpy-style broadcasting, right-aligned; a dim of 1 stretches; ``?`` takes the
    other side; otherwise the dims must be equal."""
    rank = max(len(a), len(b))
    pa = [1] * (rank - len(a)) + list(a)
    pb = [1] * (rank - len(b)) + list(b)
    out: list[int] = []
    for x, y in zip(pa, pb, strict=True):
        if x == y or y == 1:
            out.append(x)
        elif x == 1:
            out.append(y)
        elif x == DYN or y == DYN:
            out.append(max(x, y))
        else:
            raise TypeRelationError(
                f"shapes {shape_str(a)} and {shape_str(b)} do not broadcast"
            )
    return tuple(out)


def shape_str(shape: Sequence[int]) -> str:
    return "[" + ", ".join("?" if d == DYN else str(d) for d in shape) + "]"


def type_str(ty: Attribute) -> str:
    """A short form of a type for diagnostics (``tensor<2x3xf32>``)."""
    return str(ty)


def ranked(ty: Attribute, what: str = "operand") -> TensorType:
    """The operand type as a ranked tensor, or raise if it is incomplete."""
    if isinstance(ty, TensorType):
        return cast(TensorType, ty)
    if isinstance(ty, UnrankedTensorType):
        raise IncompleteTypeError(f"{what} type {ty} is incomplete")
    raise TypeRelationError(f"{what} must be a tensor, got {ty}")


MAX_RANK = 64
"""The largest rank a type relation gives (numpy's limit): a larger one is an error,
not minutes of work (``expand_dims`` with ``num_newaxis = 1e8``)."""


def tensor(shape: Sequence[int], elem: Attribute) -> TensorType:
    if len(shape) > MAX_RANK:
        raise TypeRelationError(
            f"the result would have rank {len(shape)} (at most {MAX_RANK})"
        )
    return TensorType(elem, list(shape))


def same_elem(types: Sequence[TensorType], names: Sequence[str]) -> Attribute:
    """Check that all tensors share one element type (Relay never promotes)."""
    first = types[0].get_element_type()
    for ty, name in zip(types[1:], names[1:], strict=True):
        if ty.get_element_type() != first:
            raise TypeRelationError(
                f"{name} has element type {ty.get_element_type()} but {names[0]} has "
                f"{first} (relay does not promote dtypes)"
            )
    return first


def types_compatible(declared: Attribute, inferred: Attribute) -> bool:
    """Whether a declared result type agrees with the inferred one.

    An unranked tensor with the right element type is an incomplete type and agrees;
    ``?`` dims in the declaration agree with any size.
    """
    if isinstance(declared, UnrankedTensorType) and isinstance(
        declared.element_type, NoneType
    ):
        return True  # nothing known (an untyped variable): agrees with anything
    if isinstance(declared, UnrankedTensorType):
        return isinstance(inferred, TensorType | UnrankedTensorType) and (
            declared.element_type == inferred.element_type
        )
    if isinstance(declared, TensorType) and isinstance(inferred, TensorType):
        d, i = cast(TensorType, declared), cast(TensorType, inferred)
        if d.get_element_type() != i.get_element_type():
            return False
        ds, is_ = d.get_shape(), i.get_shape()
        return len(ds) == len(is_) and all(
            x == y or x == DYN or y == DYN for x, y in zip(ds, is_, strict=True)
        )
    if isinstance(declared, TupleType) and isinstance(inferred, TupleType):
        dt, it = declared.types.data, inferred.types.data
        return len(dt) == len(it) and all(
            types_compatible(x, y) for x, y in zip(dt, it, strict=True)
        )
    return declared == inferred


UNKNOWN = UnrankedTensorType(NoneType())
"""Relay's ``IncompleteType`` for a tensor of which nothing is known, not even its
dtype (``tensor<*xnone>``): the type of a ``relay.var`` made without one. InferType
solves it from the variable's uses (:meth:`RelayOp.solve_operand_types`)."""


def is_unknown(ty: Attribute) -> bool:
    """Whether ``ty`` is :data:`UNKNOWN` (an untyped variable's type)."""
    return isinstance(ty, UnrankedTensorType) and isinstance(ty.element_type, NoneType)


def is_complete(ty: Attribute) -> bool:
    """A type with no unknown part (no unranked tensor inside)."""
    if isinstance(ty, UnrankedTensorType):
        return False
    if isinstance(ty, TupleType):
        return all(is_complete(t) for t in ty.types.data)
    return True


# ---------------------------------------------------------------------------------------
# The op base class.
# ---------------------------------------------------------------------------------------


_MEMO_LIMIT = 1 << 16
"""Entries each of the memos of :class:`RelayOp` holds at most (emptied when full)."""
Signature: TypeAlias = tuple[object, ...]
_VERIFIED: dict[Signature, tuple[Attribute, ...]] = {}
"""Signatures (:meth:`RelayOp.signature`) of ops that verified, each with the
attributes it names (held: see there)."""
_RELATED: dict[Signature, tuple[tuple[Attribute, ...], tuple[Attribute, ...]]] = {}
"""By op signature: (the attributes it names, the result types the type relation
gave)."""


def _remember(memo: dict[Signature, Any], key: Signature, value: Any) -> None:
    if len(memo) >= _MEMO_LIMIT:
        memo.clear()
    memo[key] = value


class RelayOp(IRDLOperation):
    """Base class of every relay op (see the module docstring).

    Verification and the type relation are functions of an op's class, operand
    types, properties and attributes (and result types, for verification) for ops
    without regions: both are remembered by the identities of those attributes
    (:meth:`signature`), so the verification after each pass and InferType's runs
    cost a lookup for every op a pass left alone, and for ops sharing their type
    objects. Only successes are remembered; an error is found again each time.
    """

    MEMOIZED: ClassVar[bool] = True
    """Whether verification and the type relation may be remembered by signature
    (``False``: an op whose attributes are large, a constant's value)."""

    PATTERN: ClassVar[OpPattern] = OpPattern.OPAQUE
    """Fusion pattern kind (Relay's ``TOpPattern``)."""

    STATEFUL: ClassVar[bool] = False
    """Relay's ``TOpIsStateful``: never folded or merged by CSE."""

    LOWERING_HINT: ClassVar[str] = ""
    """What to do when the op reaches the lowering, which has no kernel for it (added
    to the "no lowering" error: the QNN ops name the pass that rewrites them)."""

    RELAYOUT: ClassVar[bool] = False
    """The op only moves its one operand's elements into a new shape or order (a
    layout transform, transpose, reshape): FoldConstant folds it on a constant
    whatever its size, as long as the result is no larger than the operand (packing
    a large weight once at build time rather than on every run)."""

    traits = traits_def(Pure(), KnownAttributes())
    irdl_options = (ParsePropInAttrDict(),)

    def type_relation(self, operand_types: Sequence[Attribute]) -> Sequence[Attribute]:
        """Result types from operand types and attributes.

        Raises :class:`TypeRelationError` when they do not fit and
        :class:`IncompleteTypeError` when an operand type is not known yet.
        """
        raise NotImplementedError(f"{self.name} has no type relation")

    def solve_operand_types(
        self, operand_types: Sequence[Attribute]
    ) -> Sequence[Attribute | None]:
        """The types of incomplete operands that the other operands and the attributes
        determine (Relay's type relations assigning an ``IncompleteType``: the weight
        of ``conv2d`` from the data, ``channels`` and ``kernel_size``); ``None`` for an
        operand not determined. InferType asks this for untyped variables."""
        return [None] * len(operand_types)

    def compute(self, *args: Value) -> Value | Sequence[Value]:
        """The op's numpy reference semantics: one value per result (a single value
        for single-result ops)."""
        raise NotImplementedError(f"{self.name} has no reference semantics")

    # -- mixed precision (ToMixedPrecision; see mixed_precision) -----------------------

    MIXED_PRECISION: ClassVar[MixedPrecisionCategory] = MixedPrecisionCategory.FOLLOW
    """The op's ToMixedPrecision category: ``FOLLOW`` (Relay's default for ops with
    no registered conversion) unless the class says ``ALWAYS`` or ``NEVER``."""

    def mixed_precision_conversion(
        self, mixed_precision_type: str
    ) -> tuple[MixedPrecisionCategory, str, str]:
        """Relay's ``FTVMMixedPrecisionConversionType``: the category, the dtype the
        op accumulates in and the dtype it returns, when converting to
        ``mixed_precision_type``. ``ALWAYS`` ops with an ``out_dtype`` attribute keep
        a ``float32`` accumulator (the pass sets ``out_dtype`` and casts after)."""
        category = self.MIXED_PRECISION
        has_out_dtype = "out_dtype" in self.get_irdl_definition().properties
        if category is MixedPrecisionCategory.ALWAYS and has_out_dtype:
            return category, ACCUMULATION_TYPE, mixed_precision_type
        return category, mixed_precision_type, mixed_precision_type

    # -- FakeQuantizationToInteger (see fake_quantization) --------------------------------

    KEEPS_QUANTIZATION: ClassVar[bool] = False
    """The op's integer form gives its result its (first) operand's quantized type
    (layout-only ops, max pooling, ReLU, clip): FakeQuantizationToInteger passes the
    type wanted of the result on to that operand."""

    def fake_quantize(self, rewrite: FakeQuantRewrite) -> Quantized | None:
        """Relay's ``FTVMFakeQuantizationToInteger``: this op on the quantized twins
        of its operands (``rewrite.input(i)``), emitted with ``rewrite.emit``, and the
        twin of its result; ``None`` (the default: no integer form) leaves the
        region float. See :mod:`xrelay.dialects.relay.fake_quantization`."""
        return None

    # -- layout hooks (ConvertLayout / AlterOpLayout; see layout_rules) -----------------

    IS_LAYER: ClassVar[bool] = False
    """Whether ConvertLayout counts the op as a layer that ``LayoutConfig(
    skip_layers=...)`` can leave alone (Relay counts its 2-D convolutions)."""

    DESIRED_LAYOUTS: ClassVar[tuple[str, ...]] = ()
    """The roles of the layouts ConvertLayout's ``desired_layouts`` gives this op
    (``("data", "kernel")`` for convolutions); empty for ops without
    :meth:`convert_layout`."""

    def infer_correct_layout(
        self,
        new_layouts: Sequence[MaybeLayout] | None,
        old_layouts: Sequence[MaybeLayout],
        old_types: Sequence[Attribute],
    ) -> InferredLayouts | None:
        """Relay's ``FInferCorrectLayout``: the layouts this op wants for its operands
        and gives its results, with the attribute changes that make it work in them
        (see :mod:`xrelay.dialects.relay.layout_rules`). ``None`` (the default): the op
        cannot adapt and needs its operands in their original layouts."""
        return None

    def convert_layout(
        self, desired: Sequence[str], operand_types: Sequence[Attribute]
    ) -> RelayOp | None:
        """Relay's ``FTVMConvertOpLayout``: a detached copy of this op (see
        :meth:`layout_variant`) working in the ``desired`` layouts (one per role of
        ``DESIRED_LAYOUTS``; ``"default"`` lets the op choose), or ``None`` to keep
        the op. Raises ``LayoutConversionError`` for layouts the op cannot take."""
        return None

    def alter_layout(
        self, target: str, operand_types: Sequence[Attribute]
    ) -> RelayOp | None:
        """Relay's ``FTVMAlterOpLayout``: a detached replacement preferred by
        ``target`` (e.g. a blocked convolution on CPUs), or ``None`` to keep the op."""
        return None

    def layout_variant(
        self,
        op_class: type[RelayOp] | None = None,
        updates: Mapping[str, object] | None = None,
    ) -> RelayOp:
        """A detached op (no operands, untyped results) of ``op_class`` (default: this
        op's class) with this op's attributes that ``op_class`` has, changed by
        ``updates`` (``None`` unsets one). The layout passes ask such templates for
        their layouts and build the real op with :meth:`make` from its properties."""
        cls = op_class or type(self)
        definition = cls.get_irdl_definition()
        props = {k: v for k, v in self.properties.items() if k in definition.properties}
        for key, value in (updates or {}).items():
            if key not in definition.properties:
                raise TypeError(f"{cls.name} has no attribute '{key}'")
            if value is None:
                props.pop(key, None)
            else:
                props[key] = _attribute_for(definition.properties[key].constr, value)
        for name, prop in definition.properties.items():
            if name not in props and prop.default_value is not None:
                props[name] = prop.default_value
        return cls.create(
            properties=props,
            result_types=[UnrankedTensorType(i64)] * len(definition.results),
        )

    # -- derived helpers ----------------------------------------------------------------

    def signature(
        self, with_results: bool
    ) -> tuple[Signature, tuple[Attribute, ...]] | None:
        """What verification (``with_results``) or the type relation of this op
        depend on: its class, the identities of its operand types (and result
        types), of its properties and attributes, with the attributes themselves
        (a memo holds them: an identity stays theirs while the entry lives). Equal
        attributes that are distinct objects only miss the memo. ``None`` for an
        op not remembered (see the class): with regions, successors, operands of
        erased ops, or (for verification) last in its block (where xDSL checks
        terminators)."""
        if not self.MEMOIZED or self.regions or self.successors:
            return None
        held: list[Attribute] = []
        for o in self.operands:
            if isinstance(o, ErasedSSAValue):
                return None
            held.append(o.type)
        count = len(held)
        if with_results:
            parent = self.parent
            if parent is None or parent.last_op is self:
                return None
            held.extend(r.type for r in self.results)
        names: list[str] = [*self.properties, *self.attributes]
        held.extend(self.properties.values())
        held.extend(self.attributes.values())
        key = (type(self), count, *names, *map(id, held))
        return key, tuple(held)

    def verify(self, verify_nested_ops: bool = True) -> None:
        signed = self.signature(with_results=True)
        if signed is not None and signed[0] in _VERIFIED:
            return
        super().verify(verify_nested_ops)
        if signed is not None:
            _remember(_VERIFIED, signed[0], signed[1])

    def infer_result_types(self) -> Sequence[Attribute]:
        """Run the type relation on the current operand types."""
        signed = self.signature(with_results=False)
        if signed is not None:
            known = _RELATED.get(signed[0])
            if known is not None:
                return list(known[1])
        types = self.type_relation([o.type for o in self.operands])
        if signed is not None:
            _remember(_RELATED, signed[0], (signed[1], tuple(types)))
        return types

    WIDENS_BFLOAT16: ClassVar[bool] = True
    """``compute`` sees ``bfloat16`` operands widened to ``float32`` (numpy has few
    bfloat16 kernels); :meth:`evaluate` rounds results back to the result types, so
    a bfloat16 op computes in float32 and rounds once, like the lowered kernels."""

    def evaluate(self, *args: Value) -> tuple[Value, ...]:
        """``compute`` normalised to one value per result, cast to the result types."""
        if self.WIDENS_BFLOAT16:
            args = tuple(_widen_bfloat16(a) for a in args)
        out = self.compute(*args)
        one_of_many = (
            len(self.results) == 1
            and isinstance(out, list | tuple)
            and not isinstance(self.results[0].type, TupleType)
        )  # a variadic-result op (split) with one result gives a list of one
        values: tuple[Value, ...] = (
            (cast(Value, out),)
            if len(self.results) == 1 and not one_of_many
            else tuple(cast(Sequence[Value], out))
        )
        return tuple(
            _cast_value(v, r.type) for v, r in zip(values, self.results, strict=True)
        )

    def verify_(self) -> None:
        try:
            inferred = self.infer_result_types()
        except IncompleteTypeError:
            return
        except TypeRelationError as e:
            raise VerifyException(f"{self.name}: {e}") from e
        if len(inferred) != len(self.results):
            raise VerifyException(
                f"{self.name}: expected {len(inferred)} results, got {len(self.results)}"
            )
        for i, (res, ty) in enumerate(zip(self.results, inferred, strict=True)):
            if not types_compatible(res.type, ty):
                raise VerifyException(
                    f"{self.name}: result #{i} has type {res.type} but the type relation "
                    f"gives {ty}"
                )
            count = _element_count(ty)
            if count >= MAX_ELEMENTS:
                raise VerifyException(
                    f"{self.name}: result #{i} would have {count} elements, more than "
                    f"any array can hold (at most {MAX_ELEMENTS - 1})"
                )

    def attr(self, name: str) -> Attribute | None:
        """A property's value (or its default when unset), ``None`` when absent."""
        if name in self.properties:
            return self.properties[name]
        prop = self.get_irdl_definition().properties.get(name)
        return None if prop is None else prop.default_value

    @classmethod
    def make(
        cls,
        operands: Sequence[SSAValue] = (),
        attrs: dict[str, object] | None = None,
        result_types: Sequence[Attribute] | None = None,
        regions: Sequence[Any] = (),
    ):
        """Create the op from SSA operands and Python attribute values.

        Attributes equal to ``None`` are left unset (their default applies). Without
        ``result_types`` the results are typed by the type relation, which raises
        :class:`TypeRelationError` if the operands and attributes do not fit.
        """
        props: dict[str, Attribute] = {}
        definition = cls.get_irdl_definition()
        for key, value in (attrs or {}).items():
            if value is None:
                continue
            if key not in definition.properties:
                raise TypeError(f"{cls.name} has no attribute '{key}'")
            constr = definition.properties[key].constr
            try:  # a value of the wrong kind (axes="abc") or size fails here
                props[key] = _attribute_for(constr, value)
                constr.verify(props[key], VerificationContext())
            except (VerifyException, OverflowError) as e:
                raise TypeRelationError(
                    f"{cls.name}: attribute {key}: {str(e).splitlines()[0]}"
                ) from None
        from xdsl.irdl import OptPropertyDef

        for name, prop in definition.properties.items():
            if name not in props and prop.default_value is None:
                if not isinstance(prop, OptPropertyDef):
                    raise TypeRelationError(f"missing the required attribute {name}")
        n_results = len(definition.results)
        op = cls.create(
            operands=list(operands),
            result_types=list(result_types)
            if result_types is not None
            else [UnrankedTensorType(i64)] * n_results,
            properties=props,
            regions=list(regions),
        )
        # apply defaults the way IRDLOperation.__init__ does
        for name, prop in definition.properties.items():
            if name not in op.properties and prop.default_value is not None:
                op.properties[name] = prop.default_value
        if result_types is None:
            # a draft op that is not returned is erased: its operands must not keep
            # a use from a detached op (passes would see a phantom user)
            try:
                types = op.infer_result_types()
            except BaseException:
                op.drop_all_references()
                raise
            if len(types) != len(op.results):
                draft = op
                op = cls.create(
                    operands=list(operands),
                    result_types=list(types),
                    properties=dict(op.properties),
                    regions=[],
                )
                for region in draft.regions:  # moved, not copied
                    op.add_region(draft.detach_region(region))
                draft.drop_all_references()
            else:
                for res, ty in zip(op.results, types, strict=True):
                    res._type = ty  # pyright: ignore[reportPrivateUsage]
        return op


MAX_ELEMENTS = 1 << 60
"""A tensor type of this many elements or more cannot exist: its bytes (up to 8 per
element) would not fit in a signed 64-bit size (numpy's, and the generated code's
offsets). A type relation that gives one (a pad of 10**12, a tile of 10**9 x
10**9) fails verification instead of a later allocation."""


def _element_count(ty: Attribute) -> int:
    """The elements of a ranked tensor type with static dims (0 otherwise)."""
    if not isinstance(ty, TensorType):
        return 0
    shape = ty.get_shape()
    if any(d < 0 for d in shape):
        return 0
    return math.prod(shape)


def _attribute_for(constr: Any, value: object) -> Attribute:
    """Convert ``value`` for a property with constraint ``constr``."""
    if isinstance(value, Attribute):
        return value
    bases: set[type[Attribute]] = constr.get_bases() or set()
    base_attr = getattr(constr, "attr", None)
    if base_attr is not None:
        bases.add(base_attr)
    if any(issubclass(b, TypeAttribute) for b in bases):
        return dtypes.element_type(cast(Any, value))
    if FloatAttr in bases and isinstance(value, int | float | np.integer | np.floating):
        return FloatAttr(float(value), Float64Type())
    if ArrayAttr in bases and isinstance(value, list | tuple):
        return ArrayAttr([to_attribute(v) for v in cast(Sequence[object], value)])
    if DenseArrayBase in bases and isinstance(value, int | np.integer):
        return DenseArrayBase.from_list(i64, [int(value)])
    return to_attribute(value)


def _widen_bfloat16(value: Value) -> Value:
    """``bfloat16`` arrays (also inside tuples) as ``float32`` (exact)."""
    if isinstance(value, tuple):
        return tuple(_widen_bfloat16(v) for v in value)
    dtype = getattr(value, "dtype", None)  # a non-array value passes as it is
    if dtype is not None and dtypes.is_bfloat16(dtype):
        return np.asarray(value, dtype=np.float32)
    return value


def _cast_value(value: Value, ty: Attribute) -> Value:
    """Give a computed array the numpy dtype and rank of the declared result type."""
    if isinstance(value, tuple):
        if isinstance(ty, TupleType):
            return tuple(
                _cast_value(v, t) for v, t in zip(value, ty.types.data, strict=True)
            )
        return value
    if isinstance(ty, TensorType | UnrankedTensorType):
        npd = dtypes.numpy_dtype(ty.element_type)
        arr = np.asarray(value)
        return dtypes.astype(arr, npd)
    return value
