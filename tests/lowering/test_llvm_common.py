"""The walk, builder and replacement of xrelay.lowering.llvm.common (the lean
stand-ins for xDSL's ``walk``, ``Builder`` and ``Rewriter.replace_op``)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import pytest
from xdsl.builder import Builder
from xdsl.context import Context
from xdsl.dialects import arith, builtin, cf, func, scf, test
from xdsl.dialects.builtin import ModuleOp, i64
from xdsl.ir import Attribute, Block, Operation, SSAValue
from xdsl.parser import Parser

from xrelay.lowering.llvm.common import (
    apply_converters,
    blocks_of,
    module_ops,
    replace_uses,
)

SOURCE = """
func.func @f(%n: index, %x: i64) -> i64 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %s = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %x) -> (i64) {
    %w = arith.addi %acc, %x : i64
    %p = arith.cmpi slt, %w, %x : i64
    %v = scf.if %p -> (i64) {
      scf.yield %w : i64
    } else {
      scf.yield %acc : i64
    }
    scf.yield %v : i64
  }
  func.return %s : i64
}
func.func @g() {
  func.return
}
"""


def _module() -> ModuleOp:
    ctx = Context()
    for dialect in (arith.Arith, builtin.Builtin, cf.Cf, func.Func, scf.Scf):
        ctx.load_dialect(dialect)
    return Parser(ctx, SOURCE).parse_module()


def test_module_ops_is_the_walk_order() -> None:
    module = _module()
    assert module_ops(module) == list(module.walk())
    blocks = [b for op in module.walk() for r in op.regions for b in r.blocks]
    assert blocks_of(module) == blocks


def test_replace_uses_moves_every_use_once() -> None:
    users = test.TestOp(result_types=[i64, i64])
    old, new = users.results
    old.name_hint = "old"
    a = test.TestOp(operands=[old, new, old])
    b = test.TestOp(operands=[old])
    replace_uses(old, new)
    assert list(a.operands) == [new, new, new]
    assert list(b.operands) == [new]
    assert old.first_use is None
    assert sorted((u.operation.name, u.index) for u in new.uses) == sorted(
        [(a.name, 0), (a.name, 1), (a.name, 2), (b.name, 0)]
    )
    assert {id(u.operation) for u in new.uses} == {id(a), id(b)}
    assert new.name_hint == "old"
    replace_uses(new, new)  # a value replaced by itself keeps its uses
    assert len(list(new.uses)) == 4


def test_apply_converters_inserts_before_and_erases() -> None:
    module = _module()
    add = next(op for op in module.walk() if isinstance(op, arith.AddiOp))
    before = add.prev_op

    def to_mul(op: Operation, b: Builder) -> list[SSAValue]:
        lhs, rhs = op.operands
        mul = b.insert(arith.MuliOp(lhs, rhs)).result
        return [b.insert(arith.MuliOp(mul, rhs)).result]

    apply_converters(module, {arith.AddiOp: to_mul})
    assert add.parent is None
    muls = [op for op in module.walk() if isinstance(op, arith.MuliOp)]
    assert len(muls) == 2
    assert muls[0].prev_op is before
    assert muls[1].prev_op is muls[0]
    cmp = next(op for op in module.walk() if isinstance(op, arith.CmpiOp))
    assert cmp.lhs is muls[1].result
    assert not any(isinstance(op, arith.AddiOp) for op in module.walk())
    module.verify()


KERNEL = """
func.func @k(%a: memref<4x8xf32>, %b: memref<32xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %z = arith.constant 0.0 : f32
  scf.for %i = %c0 to %n step %c1 {
    %acc = scf.for %j = %c0 to %c8 step %c1 iter_args(%s = %z) -> (f32) {
      %x = memref.load %a[%i, %j] : memref<4x8xf32>
      %t = arith.cmpf olt, %x, %z : f32
      %y = arith.select %t, %z, %x : f32
      %e = math.exp %y : f32
      %r = arith.addf %s, %e : f32
      scf.yield %r : f32
    }
    %k = arith.muli %i, %c8 : index
    memref.store %acc, %b[%k] : memref<32xf32>
  }
  func.return
}
"""


def _lowered_kernel() -> str:
    from xdsl.dialects import math, memref

    from xrelay.lowering.llvm import lower_functions_to_llvm

    ctx = Context()
    for dialect in (
        arith.Arith,
        builtin.Builtin,
        cf.Cf,
        func.Func,
        scf.Scf,
        memref.MemRef,
        math.Math,
    ):
        ctx.load_dialect(dialect)
    module = Parser(ctx, KERNEL).parse_module()
    lower_functions_to_llvm(module)
    module.verify()
    return str(module)


def test_lean_steps_build_the_generic_module(monkeypatch: pytest.MonkeyPatch) -> None:
    """The conversion of a small kernel with ops made by ``fast_ops.create`` and one
    list of the ops per conversion equals that with ``Operation.create`` and a fresh
    walk per step."""
    from xrelay.lowering.llvm import common, fast_ops

    lean = _lowered_kernel()
    assert "llvm.getelementptr" in lean
    assert "llvm.cond_br" in lean

    def generic_create(
        cls: type[Operation],
        operands: Sequence[SSAValue] = (),
        result_types: Sequence[Attribute] = (),
        properties: dict[str, Attribute] | None = None,
        successors: Sequence[Block] = (),
    ) -> Operation:
        return cls.create(
            operands=operands,
            result_types=result_types,
            properties=properties or {},
            successors=successors,
        )

    apply = common.apply_converters

    def fresh_walk(
        module: ModuleOp,
        table: Mapping[type[Operation], common.Converter],
        ops: Sequence[Operation] | None = None,
    ) -> None:
        apply(module, table)

    monkeypatch.setattr(fast_ops, "create", generic_create)
    for mod in ("common", "memref_to_llvm", "arith_to_llvm"):
        monkeypatch.setattr(f"xrelay.lowering.llvm.{mod}.apply_converters", fresh_walk)
    assert _lowered_kernel() == lean
