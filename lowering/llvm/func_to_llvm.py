"""``func`` → ``llvm`` (xDSL 0.74 has no such conversion): ``func.func`` becomes
``llvm.func`` with the same body, ``func.return`` ``llvm.return``, ``func.call``
``llvm.call`` (MLIR's ``convert-func-to-llvm`` with bare pointers: memrefs were
already lowered to pointers, one per buffer).

Argument attributes are kept: kernels mark their buffers ``llvm.noalias`` (a kernel's
buffers never overlap: the memory planner keeps buffers alive at the same time apart),
which lets LLVM vectorise without run-time overlap checks.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.builder import Builder
from xdsl.dialects import func, llvm
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation, Region, SSAValue
from xdsl.rewriter import Rewriter

from xrelay.lowering.llvm import fast_ops
from xrelay.lowering.llvm.common import Converter, apply_converters, convert_type


def _function(op: func.FuncOp) -> llvm.FuncOp:
    inputs = [convert_type(t) for t in op.function_type.inputs.data]
    outputs = [convert_type(t) for t in op.function_type.outputs.data]
    if len(outputs) > 1:
        raise NotImplementedError(f"@{op.sym_name.data}: several results")
    fn_type = llvm.LLVMFunctionType(inputs, outputs[0] if outputs else None)
    body = Region()
    op.body.move_blocks(body)
    new = llvm.FuncOp(
        op.sym_name.data,
        fn_type,
        linkage=llvm.LinkageAttr("external"),
        body=body,
    )
    if op.arg_attrs is not None:
        new.arg_attrs = op.arg_attrs
    return new


def _return(op: Operation, b: Builder) -> Sequence[SSAValue]:
    b.insert(llvm.ReturnOp(op.operands[0] if op.operands else None))
    return []


def _call(op: Operation, b: Builder) -> Sequence[SSAValue]:
    assert isinstance(op, func.CallOp)
    result = convert_type(op.results[0].type) if op.results else None
    return b.insert(
        fast_ops.call(op.callee.string_value(), op.arguments, result)
    ).results


FUNC_CONVERTERS: dict[type[Operation], Converter] = {
    func.ReturnOp: _return,
    func.CallOp: _call,
}
"""The converters of the ops inside functions (``return``, ``call``)."""


def convert_func_to_llvm(module: ModuleOp, bodies: bool = True) -> None:
    """Convert every ``func`` op of ``module``; ``bodies=False``: only the functions,
    their returns and calls being converted already (:data:`FUNC_CONVERTERS`, run in
    another walk)."""
    if bodies:
        apply_converters(module, FUNC_CONVERTERS)
    for op in list(module.ops):
        if isinstance(op, func.FuncOp):
            Rewriter.replace_op(op, _function(op))
