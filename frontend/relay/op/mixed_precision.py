"""TVM's ``relay.op.register_mixed_precision_conversion``: replace what an op answers
ToMixedPrecision (its category, accumulation dtype and output dtype)::

    @relay.op.register_mixed_precision_conversion("nn.softmax", level=11)
    def softmax_in_bf16(call_node, mixed_precision_type):
        return [MIXED_PRECISION_FOLLOW, mixed_precision_type, mixed_precision_type]

The function gets a :class:`~xrelay.frontend.relay.expr.Call` of the op on typed
variables (``call_node.op.name``, ``call_node.attrs``, ``call_node.args``) and the
low-precision type's name, and returns ``[category, accumulation_dtype,
output_dtype]``; a higher ``level`` replaces a lower one, and ``TempOpAttr(op,
"FTVMMixedPrecisionConversionType", fn)`` overrides it inside a ``with`` block.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from xdsl.ir import Attribute

from xrelay.dialects.relay import dtypes, frontend_calls
from xrelay.dialects.relay.base import RelayOp
from xrelay.dialects.relay.mixed_precision import (
    CONVERSION_KEY,
    MIXED_PRECISION_ALWAYS,
    MIXED_PRECISION_FOLLOW,
    MIXED_PRECISION_NEVER,
    MixedPrecisionCategory,
)
from xrelay.dialects.relay.op_attrs import register_op_attr
from xrelay.frontend.relay.expr import Attrs, Call, Op, Var
from xrelay.frontend.relay.lift import attr_value
from xrelay.frontend.relay.ty import from_ir

__all__ = [
    "MIXED_PRECISION_ALWAYS",
    "MIXED_PRECISION_FOLLOW",
    "MIXED_PRECISION_NEVER",
    "MixedPrecisionHookError",
    "register_mixed_precision_conversion",
    "run_conversion_hook",
]

_F = TypeVar("_F", bound=Callable[..., Any])


class MixedPrecisionHookError(ValueError):
    """A registered conversion function returned something ToMixedPrecision cannot
    use."""


def register_mixed_precision_conversion(
    op_name: str, func: Callable[..., Any] | None = None, level: int = 10
) -> Any:
    """Register ``func(call_node, mixed_precision_type)`` as the op's
    ``FTVMMixedPrecisionConversionType`` (a decorator without ``func``)."""

    def decorate(f: _F) -> _F:
        register_op_attr(op_name, CONVERSION_KEY, f, level)
        return f

    return decorate if func is None else decorate(func)  # pyright: ignore[reportArgumentType]


def _dtype_name(value: Any, what: str, op: RelayOp) -> str:
    name = str(value)
    try:
        elem = dtypes.element_type(name)
    except (KeyError, ValueError, TypeError):
        elem = None
    if elem is None or not dtypes.is_float(elem):
        raise MixedPrecisionHookError(
            f"the mixed precision conversion of {op.name} returned {what} {name!r}, "
            "not a float dtype"
        )
    return name


def run_conversion_hook(
    fn: Callable[..., Any],
    op: RelayOp,
    types: Sequence[Attribute],
    mixed_precision_type: str,
) -> tuple[MixedPrecisionCategory, str, str]:
    """Call a TVM-style conversion function for ``op`` (whose operands have
    ``types``) and check its answer."""
    tinfos = [from_ir(t) for t in types]
    args = [Var(f"arg{i}", t) for i, t in enumerate(tinfos)]
    attrs = Attrs({k: attr_value(v) for k, v in op.properties.items()})
    call = Call(Op.get(op.name), args, dict(attrs))
    out = fn(call, mixed_precision_type)
    if not isinstance(out, (list, tuple)) or len(out) != 3:  # pyright: ignore[reportUnnecessaryIsInstance]
        raise MixedPrecisionHookError(
            f"the mixed precision conversion of {op.name} must return "
            f"[category, accumulation_dtype, output_dtype], got {out!r}"
        )
    seq: Sequence[Any] = out  # pyright: ignore[reportUnknownVariableType]
    try:
        category = MixedPrecisionCategory(int(seq[0]))
    except (TypeError, ValueError):
        raise MixedPrecisionHookError(
            f"the mixed precision conversion of {op.name} returned category "
            f"{seq[0]!r}; expected 0 (ALWAYS), 1 (FOLLOW) or 2 (NEVER)"
        ) from None
    accumulation = _dtype_name(seq[1], "accumulation dtype", op)
    output = _dtype_name(seq[2], "output dtype", op)
    return category, accumulation, output


frontend_calls.install(frontend_calls.RUN_MIXED_PRECISION_HOOK, run_conversion_hook)
