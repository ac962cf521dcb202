"""scf → cf with each structured op rewritten once (xrelay.lowering.llvm.scf_to_cf):
the same ops and blocks as xDSL's greedy convert-scf-to-cf, no scf op left."""

from __future__ import annotations

from collections import Counter

from xdsl.context import Context
from xdsl.dialects import arith, builtin, cf, func, scf
from xdsl.dialects.builtin import ModuleOp
from xdsl.parser import Parser
from xdsl.transforms.convert_scf_to_cf import ConvertScfToCf

from xrelay.lowering.llvm.scf_to_cf import convert_scf_to_cf

SOURCE = """
func.func @f(%n: index, %x: i64) -> i64 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %z = arith.constant 0 : i64
  %s = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %z) -> (i64) {
    %t = scf.for %j = %c0 to %i step %c1 iter_args(%a2 = %acc) -> (i64) {
      %p = arith.cmpi slt, %j, %c1 : index
      %v = scf.if %p -> (i64) {
        %w = arith.addi %a2, %x : i64
        scf.yield %w : i64
      } else {
        scf.yield %a2 : i64
      }
      scf.yield %v : i64
    }
    %u = scf.for %k = %c0 to %n step %c1 iter_args(%a3 = %t) -> (i64) {
      %m = arith.muli %a3, %x : i64
      scf.yield %m : i64
    }
    scf.yield %u : i64
  }
  func.return %s : i64
}
"""


def _module() -> ModuleOp:
    ctx = Context()
    for d in (arith.Arith, builtin.Builtin, cf.Cf, func.Func, scf.Scf):
        ctx.load_dialect(d)
    return Parser(ctx, SOURCE).parse_module()


def _shape(module: ModuleOp) -> tuple[Counter[str], int]:
    ops = Counter(op.name for op in module.walk())
    blocks = sum(len(r.blocks) for op in module.walk() for r in op.regions)
    return ops, blocks


def test_same_result_as_xdsl_pass_and_no_scf_left():
    ours, theirs = _module(), _module()
    convert_scf_to_cf(ours)
    ConvertScfToCf().apply(Context(), theirs)
    ours.verify()
    assert not any(op.name.startswith("scf.") for op in ours.walk())
    assert _shape(ours) == _shape(theirs)
    assert _shape(ours)[0]["cf.cond_br"] == 4  # three loops and the if


SIDE_EFFECTS = """
func.func @g(%p: i1, %n: index, %buf: memref<4xi64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %z = arith.constant 0 : i64
  scf.if %p {
    memref.store %z, %buf[%c0] : memref<4xi64>
  }
  scf.for %i = %c0 to %n step %c1 {
    scf.if %p {
      memref.store %z, %buf[%i] : memref<4xi64>
    } else {
      memref.store %z, %buf[%c1] : memref<4xi64>
    }
  }
  %r = scf.index_switch %n -> i64
  case 2 {
    scf.yield %z : i64
  }
  default {
    scf.yield %z : i64
  }
  memref.store %r, %buf[%c0] : memref<4xi64>
  func.return
}
"""


def _parse(source: str) -> ModuleOp:
    from xdsl.dialects import memref

    ctx = Context()
    for d in (arith.Arith, builtin.Builtin, cf.Cf, func.Func, scf.Scf, memref.MemRef):
        ctx.load_dialect(d)
    return Parser(ctx, source).parse_module()


def test_ifs_without_results_or_else_and_a_switch():
    ours, theirs = _parse(SIDE_EFFECTS), _parse(SIDE_EFFECTS)
    convert_scf_to_cf(ours)
    ConvertScfToCf().apply(Context(), theirs)
    ours.verify()
    assert not any(op.name.startswith("scf.") for op in ours.walk())
    assert _shape(ours) == _shape(theirs)
    assert str(ours) == str(theirs)


def test_same_text_as_xdsl_pass():
    """Blocks and ops in the same order as xDSL's rewrites (the LLVM IR of a model is
    byte-identical)."""
    ours, theirs = _module(), _module()
    convert_scf_to_cf(ours)
    ConvertScfToCf().apply(Context(), theirs)
    assert str(ours) == str(theirs)


def test_branches_equal_the_irdl_constructors():
    from xdsl.dialects import test
    from xdsl.dialects.builtin import i1, i64
    from xdsl.ir import Block

    from xrelay.lowering.llvm.scf_to_cf import branch, cond_branch

    c, a, b = test.TestOp(result_types=[i1, i64, i64]).results
    then, other = Block(arg_types=[i64, i64]), Block(arg_types=[i64])
    pairs = [
        (branch(then, (a, b)), cf.BranchOp(then, a, b)),
        (branch(other, ()), cf.BranchOp(other)),
        (
            cond_branch(c, then, (a, b), other, (b,)),
            cf.ConditionalBranchOp(c, then, (a, b), other, (b,)),
        ),
        (
            cond_branch(c, other, (), then, ()),
            cf.ConditionalBranchOp(c, other, (), then, ()),
        ),
    ]
    for fast, slow in pairs:
        assert fast.name == slow.name
        assert list(fast.operands) == list(slow.operands)
        assert list(fast.successors) == list(slow.successors)
        assert fast.properties == slow.properties
        assert fast.attributes == slow.attributes
