"""ToMixedPrecision: run a float32 model in ``bfloat16`` or ``float16`` where that is
safe (mirrors Relay's ``ToMixedPrecision(mixed_precision_type)``, a function pass at
opt_level 0).

Each relay op is asked what it does under the conversion
(:meth:`~xrelay.dialects.relay.base.RelayOp.mixed_precision_conversion`, or the
function registered for it with ``relay.op.register_mixed_precision_conversion``;
see :mod:`xrelay.dialects.relay.mixed_precision`), in program order:

* ``ALWAYS`` ops get their float32 operands cast to the low type. When the op
  accumulates in another dtype than it returns (convolutions and matrix products:
  ``float32``), its ``out_dtype`` is set to the accumulation dtype and a cast to the
  output dtype follows it.
* ``FOLLOW`` ops act as ``ALWAYS`` when every floating operand is already in the low
  type or is a parameter or a constant (which can be cast), else as ``NEVER``.
* ``NEVER`` ops, calls of functions, terminators and ops with regions get their
  operands back in their original types.

Casts are shared: a value is cast to a dtype once (right after its definition), and
casting a cast back gives the value it was cast from, so a float32 result that fed
a cast keeps its full precision for a ``NEVER`` user. Constants are cast by
``relay.cast`` ops that FoldConstant folds at build time. Parameters keep their
types; the results take the low type unless the PassContext config
``relay.ToMixedPrecision.keep_orig_output_dtype`` is set (then they are cast back),
or the function is called by another one.

The pass options ``always_ops``, ``follow_ops`` and ``never_ops`` (comma-separated op
names, ``nn.dense,nn.conv2d``) override the ops' own categories for one run.

Differences from Relay: float64 values are never converted (Relay casts every float
type); init ops (``zeros``, ``full``) keep their ``dtype``; a FOLLOW op whose type
relation refuses the low type falls back to NEVER instead of failing.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from xdsl.dialects.builtin import FunctionType, TensorType, TupleType
from xdsl.dialects.func import CallOp, FuncOp, ReturnOp
from xdsl.ir import Attribute, BlockArgument, Operation, OpResult, SSAValue
from xdsl.rewriter import InsertPoint, Rewriter
from xdsl.traits import IsTerminator
from xdsl.utils.exceptions import DiagnosticException

from xrelay.dialects.relay import OPS_BY_NAME, dtypes
from xrelay.dialects.relay.base import RelayOp, TypeRelationError
from xrelay.dialects.relay.elementwise import CastOp
from xrelay.dialects.relay.mixed_precision import (
    CONVERSION_KEY,
    MIXED_PRECISION_TYPES,
    MixedPrecisionCategory,
)
from xrelay.dialects.relay.op_attrs import get_op_attr
from xrelay.dialects.relay.structural import ConstantOp, TupleGetItemOp, TupleOp
from xrelay.pass_manager import (
    FunctionPass,
    PassContext,
    PassInfo,
    config,
    register_pass,
)
from xrelay.pass_manager.options import argument, normalise, option

ALWAYS = MixedPrecisionCategory.ALWAYS
FOLLOW = MixedPrecisionCategory.FOLLOW
NEVER = MixedPrecisionCategory.NEVER

KEEP_ORIG_OUTPUT_DTYPE = config.KEEP_ORIG_OUTPUT_DTYPE.name
BUILD_MIXED_PRECISION_TYPE = config.BUILD_MIXED_PRECISION_TYPE.name

F32 = dtypes.element_type("float32")

Conversion = tuple[MixedPrecisionCategory, str, str]


class ToMixedPrecisionError(DiagnosticException, ValueError):
    """A bad option of ToMixedPrecision (unknown type or op name)."""


def check_mixed_precision_type(name: str) -> str:
    """``name`` if it is a type ToMixedPrecision converts to, else a one-line
    :class:`ToMixedPrecisionError`."""
    if name not in MIXED_PRECISION_TYPES:
        raise ToMixedPrecisionError(
            f"ToMixedPrecision: mixed_precision_type must be one of "
            f"{', '.join(MIXED_PRECISION_TYPES)}, got {name!r}"
        )
    return name


def parse_op_list(text: str | Sequence[str], option: str) -> frozenset[str]:
    """Op names (``nn.dense``, ``relay.nn.dense``) as IR names, checked."""
    names = text.split(",") if isinstance(text, str) else list(text)
    out: set[str] = set()
    for raw in names:
        name = raw.strip()
        if not name:
            continue
        full = name if name.startswith("relay.") else "relay." + name
        if full not in OPS_BY_NAME:
            raise ToMixedPrecisionError(
                f"ToMixedPrecision: {option} names an unknown op {name!r}"
            )
        out.add(full)
    return frozenset(out)


def _float_elem(elem: Attribute) -> bool:
    """A float element type the conversion casts (float64 is left alone)."""
    return dtypes.is_float(elem) and elem != dtypes.element_type("float64")


class _Converter:
    """Converts one function in place."""

    def __init__(
        self,
        mixed: str,
        overrides: dict[str, MixedPrecisionCategory],
    ) -> None:
        self.mixed_name = mixed
        self.mixed = dtypes.element_type(mixed)
        self.overrides = overrides
        self.casts: dict[tuple[SSAValue, Attribute], SSAValue] = {}
        self.original: dict[SSAValue, Attribute] = {}
        self.changed = False
        self.made: list[Operation] = []

    # -- casts ------------------------------------------------------------------------

    def original_type(self, value: SSAValue) -> Attribute:
        return self.original.get(value, value.type)

    def _insert_after_definition(self, op: Operation, value: SSAValue) -> None:
        if isinstance(value, OpResult):
            Rewriter.insert_op(op, InsertPoint.after(value.op))
        else:
            assert isinstance(value, BlockArgument)
            Rewriter.insert_op(op, InsertPoint.at_start(value.block))

    def cast_tensor(self, value: SSAValue, elem: Attribute) -> SSAValue:
        ty = value.type
        assert isinstance(ty, TensorType)
        have: Attribute = ty.element_type
        if have == elem or not _float_elem(have):
            return value
        found = self.casts.get((value, elem))
        if found is not None:
            return found
        op = CastOp.make([value], {"dtype": dtypes.dtype_name(elem)})
        self._insert_after_definition(op, value)
        self.casts[(value, elem)] = op.result
        self.casts[(op.result, have)] = value
        self.original[op.result] = self.original_type(value)
        self.made.append(op)
        self.changed = True
        return op.result

    def convert(self, value: SSAValue, want: Attribute) -> SSAValue:
        """``value`` cast so that its float elements have the element types of
        ``want`` (a tensor or tuple type of the same structure)."""
        ty = value.type
        if isinstance(ty, TensorType) and isinstance(want, TensorType):
            return self.cast_tensor(value, want.element_type)
        if isinstance(ty, TupleType) and isinstance(want, TupleType):
            have_fields = list(ty.types.data)
            want_fields = list(want.types.data)
            if have_fields == want_fields or len(have_fields) != len(want_fields):
                return value
            found = self.casts.get((value, want))
            if found is not None:
                return found
            fields: list[SSAValue] = []
            for i, field in enumerate(want_fields):
                get = TupleGetItemOp.make([value], {"index": i})
                self._insert_after_definition(get, value)
                fields.append(self.convert(get.result, field))
            tup = TupleOp.make(fields)
            Rewriter.insert_op(tup, InsertPoint.after(fields[-1].owner))  # pyright: ignore[reportArgumentType]
            self.casts[(value, want)] = tup.result
            self.casts[(tup.result, ty)] = value
            self.original[tup.result] = self.original_type(value)
            self.made.extend([*(f.owner for f in fields), tup])  # pyright: ignore[reportArgumentType]
            self.changed = True
            return tup.result
        return value

    def lowered(self, ty: Attribute) -> Attribute:
        """``ty`` with its float32 elements in the low type."""
        if isinstance(ty, TensorType) and ty.element_type == F32:
            return TensorType(self.mixed, ty.get_shape())
        if isinstance(ty, TupleType):
            return TupleType([self.lowered(t) for t in ty.types.data])  # pyright: ignore[reportArgumentType]
        return ty

    def restore(self, op: Operation) -> None:
        """Give ``op`` its operands in their original types."""
        new = [self.convert(v, self.original_type(v)) for v in op.operands]
        if any(a is not b for a, b in zip(new, op.operands, strict=True)):
            op.operands = new

    # -- ops --------------------------------------------------------------------------

    def conversion(self, op: RelayOp) -> Conversion:
        forced = self.overrides.get(op.name)
        if forced is not None:
            _, acc, out = op.mixed_precision_conversion(self.mixed_name)
            if forced is not ALWAYS:
                acc = out = self.mixed_name
            elif "out_dtype" in op.get_irdl_definition().properties:
                acc = "float32"
            return forced, acc, out
        hook: Callable[..., Any] | None = get_op_attr(op.name, CONVERSION_KEY)
        if hook is not None:
            from xrelay.dialects.relay import frontend_calls

            run_conversion_hook = frontend_calls.require(
                frontend_calls.RUN_MIXED_PRECISION_HOOK
            )
            types = [self.original_type(v) for v in op.operands]
            return run_conversion_hook(hook, op, types, self.mixed_name)
        return op.mixed_precision_conversion(self.mixed_name)

    def compatible(self, value: SSAValue) -> bool:
        """A FOLLOW op may run in the low type on this operand."""
        if isinstance(value, BlockArgument) or isinstance(value.owner, ConstantOp):
            return True
        return self._all_low(value.type)

    def _all_low(self, ty: Attribute) -> bool:
        if isinstance(ty, TensorType):
            elem: Attribute = ty.element_type
            return elem == self.mixed or not _float_elem(elem)
        if isinstance(ty, TupleType):
            return all(self._all_low(t) for t in ty.types.data)
        return True

    def _convertible(self, ty: Attribute) -> bool:
        """Every float element of ``ty`` is float32 or the low type."""
        if isinstance(ty, TensorType):
            elem: Attribute = ty.element_type
            return not dtypes.is_float(elem) or elem in (F32, self.mixed)
        if isinstance(ty, TupleType):
            return all(self._convertible(t) for t in ty.types.data)
        return False

    def rewrite(self, op: RelayOp) -> None:
        types = [self.original_type(v) for v in op.operands]
        types += [r.type for r in op.results]
        if not all(self._convertible(t) for t in types):
            self.restore(op)  # float64 (or another float type): left as it is
            return
        category, acc, out = self.conversion(op)
        if category is FOLLOW:
            ok = all(self.compatible(v) for v in op.operands)
            category = ALWAYS if ok else NEVER
        if category is NEVER:
            self.restore(op)
            return
        old_operands = list(op.operands)
        old_out_dtype = op.properties.get("out_dtype")
        old_types = [r.type for r in op.results]
        op.operands = [
            self.convert(v, self.lowered(self.original_type(v))) for v in old_operands
        ]
        acc_elem = dtypes.element_type(acc)
        if acc != out and "out_dtype" in op.get_irdl_definition().properties:
            if old_out_dtype is None or _float_elem(old_out_dtype):
                op.properties["out_dtype"] = acc_elem
        try:
            types = op.infer_result_types()
        except TypeRelationError:  # the op does not take the low type: keep it
            op.operands = old_operands
            if old_out_dtype is None:
                op.properties.pop("out_dtype", None)
            else:
                op.properties["out_dtype"] = old_out_dtype
            self.restore(op)
            return
        out_elem = dtypes.element_type(out)
        for res, old, new in zip(op.results, old_types, types, strict=True):
            if new != old:
                res._type = new  # pyright: ignore[reportPrivateUsage]
                self.original[res] = old
                self.changed = True
            if acc != out and isinstance(new, TensorType):
                # the accumulator's dtype is not the output's: cast after the op
                narrow = self.cast_tensor(res, out_elem)
                if narrow is not res:
                    cast_op = narrow.owner
                    res.replace_uses_with_if(
                        narrow, lambda use, c=cast_op: use.operation is not c
                    )
                    self.original[narrow] = old
        if any(a is not b for a, b in zip(op.operands, old_operands, strict=True)):
            self.changed = True

    def run(self, func: FuncOp, keep_output: bool) -> bool:
        for op in list(func.body.walk()):
            if op is func:
                continue
            if isinstance(op, ReturnOp) and op.parent_op() is func:
                if keep_output:
                    self.restore(op)
                continue
            if (
                not isinstance(op, RelayOp)
                or op.regions
                or op.has_trait(IsTerminator)
                or isinstance(op, CallOp)
            ):
                self.restore(op)
                continue
            if not op.operands:
                continue
            self.rewrite(op)
        for made in reversed(self.made):  # casts nothing uses (their users went back)
            if made.parent is not None and not any(r.uses for r in made.results):
                Rewriter.erase_op(made)
        if not keep_output:
            ret = func.body.block.last_op
            assert isinstance(ret, ReturnOp)
            outputs = [v.type for v in ret.arguments]
            if outputs != list(func.function_type.outputs.data):
                func.function_type = FunctionType.from_lists(
                    list(func.function_type.inputs.data), outputs
                )
        return self.changed


def _called(func: FuncOp) -> bool:
    module = func.parent_op()
    if module is None:
        return False
    name = func.sym_name.data
    return any(
        isinstance(op, CallOp) and op.callee.root_reference.data == name
        for op in module.walk()
    )


def to_mixed_precision(
    func: FuncOp,
    mixed_precision_type: str = "float16",
    keep_orig_output_dtype: bool = False,
    overrides: dict[str, MixedPrecisionCategory] | None = None,
) -> bool:
    """Convert one function in place; True if anything changed."""
    if func.is_declaration or "relay.primitive" in func.attributes:
        return False
    keep = keep_orig_output_dtype or _called(func)
    converter = _Converter(
        check_mixed_precision_type(mixed_precision_type), overrides or {}
    )
    return converter.run(func, keep)


@register_pass("ToMixedPrecision")
@dataclass(frozen=True, eq=False, repr=False)
class ToMixedPrecision(FunctionPass):
    """Convert float32 computations to ``mixed_precision_type`` where the ops allow
    it, with float32 accumulation in convolutions and matrix products (Relay's
    ToMixedPrecision: function pass, opt_level 0).

    ``keep_orig_output_dtype`` (xrelay's, keyword only): cast the results back to
    their dtypes; ``None`` reads the PassContext config
    ``relay.ToMixedPrecision.keep_orig_output_dtype``, as Relay does."""

    mixed_precision_type: str = option("float16", "bfloat16 or float16")
    always_ops: str | Sequence[str] = option(
        "", "ops run in the low type (comma-separated names)", parse_as=str
    )
    follow_ops: str | Sequence[str] = option(
        "", "ops that follow their operands' type", parse_as=str
    )
    never_ops: str | Sequence[str] = option("", "ops kept in float32", parse_as=str)
    keep_orig_output_dtype: bool | None = argument(None, kw_only=True)
    overrides: dict[str, MixedPrecisionCategory] = field(init=False)
    """The categories the op lists give, by op name."""

    def __post_init__(self) -> None:
        normalise(
            self,
            "mixed_precision_type",
            check_mixed_precision_type(self.mixed_precision_type),
        )
        overrides: dict[str, MixedPrecisionCategory] = {}
        for option_name, text, category in (
            ("always_ops", self.always_ops, ALWAYS),
            ("follow_ops", self.follow_ops, FOLLOW),
            ("never_ops", self.never_ops, NEVER),
        ):
            for name in parse_op_list(text, option_name):
                if name in overrides:
                    raise ToMixedPrecisionError(
                        f"ToMixedPrecision: {name.removeprefix('relay.')} is given "
                        "two categories"
                    )
                overrides[name] = category
        normalise(self, "overrides", overrides)
        super().__init__(self._run, PassInfo(0, "ToMixedPrecision", ["InferType"]))

    def _run(self, func: FuncOp, mod: Any, ctx: PassContext) -> FuncOp:
        keep = self.keep_orig_output_dtype
        if keep is None:
            keep = bool(ctx.get_config(KEEP_ORIG_OUTPUT_DTYPE))
        if not to_mixed_precision(
            func, self.mixed_precision_type, keep, self.overrides
        ):
            ctx.analyses.preserve()  # nothing changed
        return func


def build_pipeline_pass(ctx: PassContext) -> ToMixedPrecision | None:
    """The ToMixedPrecision relay.build's pipeline runs in ``ctx`` (config
    ``xrelay.mixed_precision_type``), results kept in their dtypes; ``None`` when
    the config is empty."""
    name = str(ctx.get_config(BUILD_MIXED_PRECISION_TYPE) or "")
    if not name:
        return None
    return ToMixedPrecision(name, keep_orig_output_dtype=True)
