"""``InferTypeLocal(expr)``: the type of one expression (TVM's
``relay.transform.InferTypeLocal``), found by emitting it with its free variables as
parameters and running InferType."""

from __future__ import annotations

from xrelay.frontend.relay.expr import Expr, TupleWrapper, to_expr
from xrelay.frontend.relay.ty import TypeLike, from_ir


def InferTypeLocal(expr: Expr | TupleWrapper) -> TypeLike:
    """The checked type of ``expr``: a ``TensorType``/``TupleType``, or a
    ``FuncType`` for a function. Raises ``BuildError`` on a type error."""
    from xrelay.frontend.relay.function import Function
    from xrelay.frontend.relay.module import IRModule
    from xrelay.transforms.infer_type import infer_types

    node = to_expr(expr)
    mod = IRModule.from_expr(node)
    infer_types(mod.module)
    func = mod.func_op("main")
    if isinstance(node, Function):
        return from_ir(func.function_type)
    return from_ir(func.function_type.outputs.data[0])
