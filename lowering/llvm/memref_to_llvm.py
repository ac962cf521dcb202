"""``memref`` (and the ``ptr_xdsl`` ops of :mod:`.host_abi`) → ``llvm``, in one walk.

xrelay's memrefs are static, contiguous and row-major, and a kernel receives each
buffer as one pointer (MLIR's bare-pointer convention). So:

* every ``memref`` value (function and block arguments) becomes an ``!llvm.ptr``;
* ``memref.load`` / ``memref.store`` become one ``llvm.getelementptr inbounds`` of
  the element type at the row-major linear index, then ``llvm.load`` /
  ``llvm.store`` (``vector.load`` / ``vector.store`` too: a load or store of the
  vector type, aligned as one element). Index terms that are constants are folded into one constant at
  build time; a 1-D access (the kernels' flat views) costs no arithmetic at all;
* ``memref.reinterpret_cast`` (a reshape or flat view: offset 0, contiguous) is the
  same pointer (whatever its sizes: a ``memref<?x...>`` is addressed like the static
  one, its first extent never enters the address); a static offset becomes a ``getelementptr``;
* ``ptr_xdsl.to_ptr`` / ``from_ptr`` and the casts between the two pointer types
  disappear; ``ptr_xdsl.ptradd`` becomes ``getelementptr i8``.

This replaces xDSL's ``convert-memref-to-ptr``, ``convert-ptr-type-offsets`` and
``convert-ptr-to-llvm``: those make an address with a byte ``ptradd`` of ``index *
sizeof(element)`` (three to five ops per access, a ``ptrtoint``/``inttoptr`` pair
that hides addresses from LLVM's alias analysis), and their pattern rewriters took
most of the lowering time of large models. The typed, ``inbounds`` address is also
what LLVM's vectorisers read best.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.builder import Builder
from xdsl.dialects import arith, func, llvm, memref, ptr, vector
from xdsl.dialects.builtin import (
    Float32Type,
    Float64Type,
    FunctionType,
    IntegerAttr,
    IntegerType,
    MemRefType,
    ModuleOp,
    UnrealizedConversionCastOp,
    i64,
)
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.rewriter import Rewriter

from xrelay.lowering.errors import LoweringError
from xrelay.lowering.llvm import fast_ops
from xrelay.lowering.llvm.common import (
    Converter,
    apply_converters,
    blocks_of,
    module_ops,
)

POINTER = llvm.LLVMPointerType()
_I8 = IntegerType(8)


def _pointer_type(ty: Attribute) -> Attribute:
    return POINTER if isinstance(ty, MemRefType | ptr.PtrType) else ty


def _row_major_strides(shape: Sequence[int]) -> list[int]:
    strides: list[int] = []
    step = 1
    for d in reversed(shape):
        strides.append(step)
        step *= d
    return strides[::-1]


def _constant_int(value: SSAValue) -> int | None:
    op = value.owner
    if isinstance(op, arith.ConstantOp) and isinstance(op.value, IntegerAttr):
        return op.value.value.data
    return None


class _Constants:
    """``i64`` constants, one per value and function, at the top of the function."""

    def __init__(self) -> None:
        self._cache: dict[tuple[int, int], SSAValue] = {}

    def get(self, at: Operation, value: int) -> SSAValue:
        fn = at.parent_op()
        while fn is not None and not isinstance(fn, func.FuncOp):
            fn = fn.parent_op()
        assert fn is not None
        key = (id(fn), value)
        found = self._cache.get(key)
        if found is None:
            const = fast_ops.constant(fast_ops.int_attr(value, i64), i64)
            entry = fn.body.blocks[0]
            if entry.first_op is None:
                entry.add_op(const)
            else:
                entry.insert_op_before(const, entry.first_op)
            found = self._cache[key] = const.result
        return found


def _address(
    b: Builder,
    consts: _Constants,
    at: Operation,
    base: SSAValue,
    ty: Attribute,
    indices: Sequence[SSAValue],
) -> SSAValue:
    """``&base[indices]`` of a row-major memref of type ``ty`` (for the access
    ``at``)."""
    assert isinstance(ty, MemRefType)
    shape = ty.get_shape()
    # row-major strides never involve the first extent: it may be dynamic (the
    # 1-D views of buffers with a runtime extent)
    if any(d < 0 for d in shape[1:]):
        raise LoweringError(f"cannot lower a memref of dynamic shape {ty}")
    constant = 0
    terms: list[SSAValue] = []
    for index, stride in zip(indices, _row_major_strides(shape), strict=True):
        known = _constant_int(index)
        if known is not None:
            constant += known * stride
            continue
        # an ``index`` operand is used as it is: every ``index`` value becomes an
        # ``i64`` later in the conversion (arith_to_llvm)
        if stride != 1:
            stride_c = consts.get(at, stride)
            index = b.insert(fast_ops.binary(llvm.MulOp, index, stride_c, i64)).res
        terms.append(index)
    if not terms and constant == 0:
        return base
    if constant:
        terms.append(consts.get(at, constant))
    linear = terms[0]
    for term in terms[1:]:
        linear = b.insert(fast_ops.binary(llvm.AddOp, linear, term, i64)).res
    return b.insert(fast_ops.gep(base, ty.get_element_type(), linear)).result


def _load(
    op: Operation, b: Builder, ty: Attribute, consts: _Constants
) -> Sequence[SSAValue]:
    assert isinstance(op, memref.LoadOp)
    addr = _address(b, consts, op, op.memref, ty, op.indices)
    return [b.insert(fast_ops.load(addr, op.res.type)).dereferenced_value]


def _store(
    op: Operation, b: Builder, ty: Attribute, consts: _Constants
) -> Sequence[SSAValue]:
    assert isinstance(op, memref.StoreOp)
    addr = _address(b, consts, op, op.memref, ty, op.indices)
    b.insert(fast_ops.store(op.value, addr))
    return []


def _element_bytes(ty: Attribute) -> int:
    assert isinstance(ty, MemRefType)
    elem = ty.get_element_type()
    if isinstance(elem, IntegerType) and elem.width.data in (8, 16, 32, 64):
        return elem.width.data // 8
    assert isinstance(elem, Float32Type | Float64Type), elem
    return 4 if isinstance(elem, Float32Type) else 8


def _vector_load(
    op: Operation, b: Builder, ty: Attribute, consts: _Constants
) -> Sequence[SSAValue]:
    """``vector.load``: a load of the vector type from the first element's
    address, aligned as the element (the buffers are not aligned to vectors)."""
    assert isinstance(op, vector.LoadOp)
    addr = _address(b, consts, op, op.base, ty, op.indices)
    load = fast_ops.load(addr, op.result.type, _element_bytes(ty))
    return [b.insert(load).dereferenced_value]


def _vector_store(
    op: Operation, b: Builder, ty: Attribute, consts: _Constants
) -> Sequence[SSAValue]:
    assert isinstance(op, vector.StoreOp)
    addr = _address(b, consts, op, op.base, ty, op.indices)
    b.insert(fast_ops.store(op.vector, addr, _element_bytes(ty)))
    return []


def _reinterpret(op: Operation, b: Builder) -> Sequence[SSAValue]:
    assert isinstance(op, memref.ReinterpretCastOp)
    offsets = op.static_offsets.get_values()
    if op.offsets or any(o < 0 for o in offsets):
        raise LoweringError(f"{op.name}: only static offsets can be lowered", op)
    result = op.result.type
    assert isinstance(result, MemRefType)
    offset = sum(offsets)
    if offset == 0:
        return [op.source]
    c = b.insert(arith.ConstantOp(IntegerAttr(offset, i64), i64)).result
    gep = llvm.GEPOp(
        op.source,
        [llvm.GEP_USE_SSA_VAL],
        result.get_element_type(),
        ssa_indices=[c],
        inbounds=True,
    )
    return [b.insert(gep).result]


def _forward(op: Operation, b: Builder) -> Sequence[SSAValue]:
    return [op.operands[0]]


def _ptr_add(op: Operation, b: Builder) -> Sequence[SSAValue]:
    assert isinstance(op, ptr.PtrAddOp)
    offset = op.offset
    if not isinstance(offset.type, IntegerType):
        offset = b.insert(arith.IndexCastOp(offset, i64)).result
    gep = fast_ops.gep(op.addr, _I8, offset, inbounds=False)
    return [b.insert(gep).result]


def _cast(op: Operation, b: Builder) -> Sequence[SSAValue] | None:
    """Unrealized casts between pointer types (memref, ``ptr_xdsl``, ``llvm``)
    disappear."""
    assert isinstance(op, UnrealizedConversionCastOp)
    if len(op.inputs) != 1 or len(op.outputs) != 1:
        return None
    kinds = (ptr.PtrType, llvm.LLVMPointerType, MemRefType)
    if isinstance(op.inputs[0].type, kinds) and isinstance(op.outputs[0].type, kinds):
        return [op.inputs[0]]
    return None


def convert_memref_to_llvm(module: ModuleOp) -> None:
    """Convert every ``memref`` and ``ptr_xdsl`` op and value of ``module`` (see the
    module docstring)."""
    consts = _Constants()
    # the memref type each access reads, taken before the conversion retypes the
    # operands
    types: dict[Operation, Attribute] = {}
    table: dict[type[Operation], Converter] = {
        memref.LoadOp: lambda op, b: _load(op, b, types[op], consts),
        memref.StoreOp: lambda op, b: _store(op, b, types[op], consts),
        vector.LoadOp: lambda op, b: _vector_load(op, b, types[op], consts),
        vector.StoreOp: lambda op, b: _vector_store(op, b, types[op], consts),
        memref.ReinterpretCastOp: _reinterpret,
        ptr.ToPtrOp: _forward,
        ptr.FromPtrOp: _forward,
        ptr.PtrAddOp: _ptr_add,
        UnrealizedConversionCastOp: _cast,
    }
    ops = module_ops(module)
    # the converted ops have no regions: the blocks are those of the functions
    blocks = blocks_of(module, ops)
    for op in ops:
        if isinstance(op, memref.LoadOp | memref.StoreOp):
            types[op] = op.memref.type
        elif isinstance(op, vector.LoadOp | vector.StoreOp):
            types[op] = op.base.type
        elif isinstance(op, func.FuncOp):
            ty = op.function_type
            op.function_type = FunctionType.from_lists(
                [_pointer_type(t) for t in ty.inputs.data],
                [_pointer_type(t) for t in ty.outputs.data],
            )
        elif type(op) not in table and op.name.startswith(_MEMORY_OPS):
            raise LoweringError(f"{op.name}: cannot be lowered to llvm", op)
    apply_converters(module, table, ops)
    # arguments last: the converters above read the memref types of their operands
    for block in blocks:
        for arg in block.args:
            if isinstance(arg.type, MemRefType | ptr.PtrType):
                Rewriter.replace_value_with_new_type(arg, POINTER)


_MEMORY_OPS = ("memref.", "ptr_xdsl.", "vector.load", "vector.store")
"""The ops that must all be converted (the others are left as they are)."""


__all__ = ["convert_memref_to_llvm"]
