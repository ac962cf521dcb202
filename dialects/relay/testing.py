"""Helpers for testing relay ops one at a time: typed placeholder values, the type
relation on given operand types, and the reference semantics on given arrays."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, cast

import numpy as np
from xdsl.dialects.builtin import TensorType
from xdsl.ir import Attribute, Block, SSAValue, TypeAttribute

from xrelay.dialects.relay import dtypes
from xrelay.dialects.relay.base import RelayOp, Value


def placeholders(*types: Attribute) -> tuple[SSAValue, ...]:
    """SSA values of the given types (arguments of a detached block)."""
    return tuple(Block(arg_types=list(types)).args)


def type_of(value: Any) -> Attribute:
    """The tensor type of a numpy array (or scalar)."""
    arr = np.asarray(value)
    return TensorType(dtypes.element_type(arr.dtype), list(arr.shape))


def infer(
    op_cls: type[RelayOp], *operand_types: Attribute, **attrs: object
) -> Sequence[Attribute]:
    """The result types the op's type relation gives (raises TypeRelationError)."""
    op = op_cls.make(placeholders(*operand_types), attrs)
    op.verify()
    return op.result_types


def run_op(op_cls: type[RelayOp], *args: Value, **attrs: object) -> tuple[Value, ...]:
    """Build the op on operands typed like ``args``, verify it, and evaluate it with
    its reference semantics; one value per result."""
    types = [_value_type(a) for a in args]
    op = op_cls.make(placeholders(*types), attrs)
    op.verify()
    return op.evaluate(*args)


def _value_type(value: Value) -> Attribute:
    if isinstance(value, tuple):
        from xdsl.dialects.builtin import TupleType

        return TupleType(tuple(cast(TypeAttribute, _value_type(v)) for v in value))
    return type_of(value)


def onnx_node_outputs(
    op_type: str,
    inputs: Sequence[Any] | dict[str, Any],
    n_outputs: int = 1,
    opset: int = 18,
    **attrs: Any,
) -> list[Any]:
    """Evaluate a one-node ONNX model with ``onnx.reference.ReferenceEvaluator`` (an
    implementation independent of xrelay's); every output as a numpy array.

    ``inputs`` is a list (named ``x0, x1, ...``) or a dict of input name → array.
    """
    from onnx import TensorProto, helper
    from onnx.reference import ReferenceEvaluator

    named = (
        dict(inputs)
        if isinstance(inputs, dict)
        else {f"x{i}": a for i, a in enumerate(inputs)}
    )
    arrays = {name: np.asarray(a) for name, a in named.items()}
    outputs = [f"y{k}" for k in range(n_outputs)]
    node = helper.make_node(op_type, list(arrays), outputs, **attrs)
    graph = helper.make_graph(
        [node],
        "g",
        [
            helper.make_tensor_value_info(
                n, helper.np_dtype_to_tensor_dtype(a.dtype), a.shape
            )
            for n, a in arrays.items()
        ],
        [
            helper.make_tensor_value_info(y, TensorProto.UNDEFINED, None)
            for y in outputs
        ],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    results: list[Any] = list(ReferenceEvaluator(model).run(None, arrays))
    return [np.asarray(r) for r in results]


def onnx_node(
    op_type: str, inputs: Sequence[Any] | dict[str, Any], opset: int = 18, **attrs: Any
) -> Any:
    """The first output of :func:`onnx_node_outputs`."""
    return onnx_node_outputs(op_type, inputs, opset=opset, **attrs)[0]
