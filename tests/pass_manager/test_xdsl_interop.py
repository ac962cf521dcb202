"""xDSL interop both ways: xDSL passes in a Sequential (``from_xdsl``), xrelay passes
in an xDSL ``PassPipeline`` (``to_xdsl``), and FunctionPasses made from xDSL rewrite
patterns (``pattern_pass``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pytest
from xdsl.dialects.builtin import ModuleOp, UnitAttr
from xdsl.ir import Operation
from xdsl.passes import PassPipeline
from xdsl.pattern_rewriter import (
    PatternRewriter,
    RewritePattern,
    op_type_rewrite_pattern,
)
from xdsl.transforms.canonicalize import CanonicalizePass
from xdsl.transforms.common_subexpression_elimination import (
    CommonSubexpressionElimination,
)
from xdsl.transforms.dead_code_elimination import DeadCodeElimination

from xrelay import relay
from xrelay.dialects.relay import AddOp, ConstantOp, MultiplyOp, SubtractOp
from xrelay.pass_manager import (
    FunctionPass,
    PassContext,
    PassInfo,
    PassInstrument,
    PatternPass,
    Sequential,
    from_xdsl,
    get_pass,
    module_pass,
    pattern_pass,
    to_xdsl,
)
from xrelay.pass_manager.xdsl_interop import xdsl_context
from xrelay.runtime.interpreter import interpret

REDUNDANT = """
func.func @main(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %dead = relay.exp %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %a = relay.add %x, %x : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %b = relay.add %x, %x : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %c = relay.multiply %a, %b : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  func.return %c : tensor<2x3xf32>
}
"""


class Names(PassInstrument):
    def __init__(self) -> None:
        self.names: list[str] = []

    def run_before_pass(self, mod: Any, info: PassInfo) -> None:
        self.names.append(info.name)


def op_names(mod: ModuleOp) -> list[str]:
    return [op.name for op in mod.walk() if op.name.startswith("relay.")]


@pytest.mark.parametrize(
    ("xdsl_pass", "name", "expected"),
    [
        (
            CanonicalizePass,
            "canonicalize",
            ["relay.add", "relay.add", "relay.multiply"],
        ),
        (CommonSubexpressionElimination, "cse", ["relay.add", "relay.multiply"]),
        (DeadCodeElimination, "dce", ["relay.add", "relay.add", "relay.multiply"]),
    ],
)
def test_from_xdsl_in_a_sequential(parse, xdsl_pass, name, expected):
    mod = parse(REDUNDANT)
    text = str(mod)
    wrapped = from_xdsl(xdsl_pass)
    assert wrapped.info == PassInfo(0, name)
    names = Names()
    with PassContext(instruments=[names]):
        out = Sequential([get_pass("InferType"), wrapped])(mod)
    assert op_names(out) == expected
    assert names.names == ["sequential", "InferType", name]
    assert str(mod) == text  # the functional contract holds for xDSL passes too
    x = np.arange(6, dtype="float32").reshape(2, 3)
    np.testing.assert_allclose(interpret(out, x), (2 * x) * (2 * x))


def test_from_xdsl_is_gated_by_opt_level(parse):
    seq = Sequential(
        [
            from_xdsl(CommonSubexpressionElimination(), opt_level=3, name="XCSE"),
            from_xdsl(DeadCodeElimination, opt_level=1),
        ]
    )
    names = Names()
    with PassContext(opt_level=2, instruments=[names]):
        out = seq(parse(REDUNDANT))
    assert names.names == ["sequential", "dce"]
    assert op_names(out) == ["relay.add", "relay.add", "relay.multiply"]
    names.names.clear()
    with PassContext(opt_level=3, disabled_pass=["dce"], instruments=[names]):
        out = seq(parse(REDUNDANT))
    assert names.names == ["sequential", "XCSE"]
    assert op_names(out) == ["relay.add", "relay.multiply"]


def test_to_xdsl_in_a_pass_pipeline(parse):
    """The xDSL pipeline mutates its module in place; the xrelay passes in it run
    under ``PassContext.current()`` with its instruments."""
    ran: list[str] = []

    @module_pass(opt_level=0)
    def builds_new(mod: Any, ctx: PassContext) -> Any:
        ran.append("builds_new")
        new = mod.clone()
        new.attributes["rebuilt"] = UnitAttr()
        return new

    mod = parse(REDUNDANT)
    names = Names()
    between: list[str] = []
    pipeline = PassPipeline(
        (
            to_xdsl(get_pass("InferType")),
            CommonSubexpressionElimination(),
            to_xdsl(Sequential([builds_new], name="seq")),
            DeadCodeElimination(),
        ),
        callback=lambda prev, op, nxt: between.append(nxt.name if nxt else "end"),
    )
    assert [p.name for p in pipeline.passes] == ["infer-type", "cse", "seq", "dce"]
    with PassContext(instruments=[names]):
        pipeline.apply(xdsl_context(), mod)
    assert names.names == ["InferType", "seq", "builds_new"]
    assert ran == ["builds_new"]
    assert op_names(mod) == ["relay.add", "relay.multiply"]
    # the module the pass built replaced the old one's contents
    assert "rebuilt" in mod.attributes
    assert between == ["infer-type", "cse", "seq", "dce", "end"]


class AddSelfToMultiply(RewritePattern):
    """``relay.add(x, x)`` → ``relay.multiply(x, 2)``."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: AddOp, rewriter: PatternRewriter) -> None:
        x = op.operands[0]
        if x is not op.operands[1]:
            return
        two = ConstantOp.from_numpy(np.array(2, np.float32))
        rewriter.replace(op, [two, MultiplyOp.make([x, two.results[0]])])


def test_pattern_pass():
    x = relay.var("x", shape=(2, 3))
    y = relay.var("y", shape=(2, 3))
    body = relay.subtract(relay.add(x, x), relay.add(x, y))
    mod = relay.IRModule.from_expr(relay.Function([x, y], relay.exp(body)))
    p = pattern_pass("AddSelfToMultiply", [AddSelfToMultiply()], opt_level=1)
    assert isinstance(p, FunctionPass)
    assert p.info == PassInfo(1, "AddSelfToMultiply")
    names = Names()
    with PassContext(instruments=[names]):
        out = p(mod)
    assert names.names == ["AddSelfToMultiply", "InferType"]
    ops = [op.name for op in out["main"].walk()][1:]
    assert ops == [
        "relay.constant",
        "relay.multiply",
        "relay.add",
        "relay.subtract",
        "relay.exp",
        "func.return",
    ]
    a = np.linspace(0, 1, 6, dtype="float32").reshape(2, 3)
    b = a[::-1].copy()
    np.testing.assert_allclose(interpret(out, a, b), interpret(mod, a, b), rtol=1e-6)
    assert [op.name for op in mod["main"].walk()].count("relay.multiply") == 0

    # in a Sequential, gated like any pass
    with PassContext(opt_level=0):
        out = Sequential([p])(mod)
    assert "relay.multiply" not in [op.name for op in out["main"].walk()]


class AddToSubtractTwice(RewritePattern):
    """``relay.add(x, y)`` → ``relay.add(relay.subtract(x, y), y)``: a rewrite whose
    result it matches again (a fixed point would never come)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: AddOp, rewriter: PatternRewriter) -> None:
        x, y = op.operands
        sub = SubtractOp.make([x, y])
        rewriter.replace(op, [sub, AddOp.make([sub.results[0], y])])


@dataclass(frozen=True, eq=False, repr=False)
class OneWalk(PatternPass):
    def __post_init__(self) -> None:
        super().__init__([AddToSubtractTwice()], PassInfo(0, "OneWalk"), roots=(AddOp,))


def test_pattern_pass_with_roots_walks_once(parse: Any):
    """With ``roots`` each op of those classes is offered once: the ops a rewrite
    makes are not (else this rewrite would never end), dead ops stay, a function
    with no root op is reported unchanged."""
    mod = parse(REDUNDANT)
    out = OneWalk()(mod)
    names = [op.name for op in out.walk() if op.name.startswith("relay.")]
    assert names == [
        "relay.exp",  # dead, kept
        "relay.subtract",
        "relay.add",
        "relay.subtract",
        "relay.add",
        "relay.multiply",
    ]


class TagOffered(RewritePattern):
    """Tag every op it is offered, whatever its class."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        op.attributes["test.offered"] = UnitAttr()
        rewriter.notify_op_modified(op)


def test_pattern_pass_roots_filter_the_ops_offered(parse: Any):
    mod = parse(REDUNDANT)
    p = PatternPass([TagOffered()], PassInfo(0, "TagAdds"), roots=(AddOp,))
    out = p(mod)
    tagged = [op.name for op in out.walk() if "test.offered" in op.attributes]
    assert tagged == ["relay.add", "relay.add"]
    # a function without a root op: nothing offered, nothing changed
    no_add = parse(REDUNDANT.replace("relay.add", "relay.multiply"))
    assert not [op for op in p(no_add).walk() if "test.offered" in op.attributes]


class TagOnce(RewritePattern):
    """Tag the op it is offered (once): ``OPS`` says which classes it can match."""

    def __init__(self, tag: str, ops: tuple[type[Operation], ...] | None) -> None:
        self.tag = tag
        if ops is not None:
            self.OPS = ops

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if self.tag not in op.attributes:
            op.attributes[self.tag] = UnitAttr()
            rewriter.notify_op_modified(op)


def test_pattern_pass_offers_an_op_only_the_patterns_of_its_class(parse: Any):
    """Under the walker, a pattern with ``OPS`` is offered only ops of those classes
    (subclasses included), one without ``OPS`` every op; order is kept."""
    mod = parse(REDUNDANT)
    p = PatternPass(
        [TagOnce("test.adds", (AddOp,)), TagOnce("test.any", None)],
        PassInfo(0, "Tags"),
    )
    out = p(mod)
    relay_ops = [op for op in out.walk() if op.name.startswith("relay.")]
    assert [op.name for op in relay_ops] == ["relay.add", "relay.add", "relay.multiply"]
    assert [("test.adds" in op.attributes) for op in relay_ops] == [True, True, False]
    # the first pattern rewrote the adds, so the second one saw the multiply only
    # before the rewrite repeated them; by the fixed point every op has both tags
    # where it could
    assert all("test.any" in op.attributes for op in relay_ops)


class AddSameToItself(RewritePattern):
    """``relay.add(x, y)`` → ``x``, whatever the types."""

    OPS = (AddOp,)

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        rewriter.replace(op, [], [op.operands[0]])


class AddAsUnrankedSubtract(RewritePattern):
    """``relay.add(x, y)`` → a ``relay.subtract(x, y)`` declared unranked."""

    OPS = (AddOp,)

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        from xdsl.dialects.builtin import UnrankedTensorType, f32

        sub = SubtractOp.make(list(op.operands), result_types=[UnrankedTensorType(f32)])
        rewriter.replace(op, [sub])


def _infer_count(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    import xrelay.transforms.infer_type as infer_type

    seen: list[str] = []
    real = infer_type.infer_function

    def counted(func: Any) -> None:
        seen.append(func.sym_name.data)
        real(func)

    monkeypatch.setattr(infer_type, "infer_function", counted)
    return seen


def test_types_checked_pattern_pass_keeps_the_types(parse: Any, monkeypatch: Any):
    """Rewrites that keep every type and insert ops typed by their relations:
    the InferType after the pass does not infer the function again."""
    mod = parse(REDUNDANT)
    inferred = _infer_count(monkeypatch)
    p = PatternPass([AddSelfToMultiply()], PassInfo(0, "Twice"), types_checked=True)
    with PassContext(opt_level=0):
        out = Sequential([get_pass("InferType"), p])(mod)
    assert inferred == ["main"]  # the first InferType only
    assert "relay.add" not in op_names(out)
    # without the check: inferred again after the pass
    inferred.clear()
    q = PatternPass([AddSelfToMultiply()], PassInfo(0, "Twice"))
    with PassContext(opt_level=0):
        Sequential([get_pass("InferType"), q])(mod)
    assert inferred == ["main", "main"]


RETYPED = """
func.func @main(%x: tensor<1x3xf32>, %y: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %a = relay.add %x, %y : (tensor<1x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %b = relay.exp %a : (tensor<2x3xf32>) -> tensor<2x3xf32>
  func.return %b : tensor<2x3xf32>
}
"""


def test_types_checked_pattern_pass_infers_again_after_a_retyping_replacement(
    parse: Any,
):
    """A replacement of another type: InferType checks the function again (and
    finds the user's declared type stale) instead of trusting the cached types."""
    from xrelay.transforms.infer_type import TypeInferenceError

    mod = parse(RETYPED)
    p = PatternPass([AddSameToItself()], PassInfo(0, "Retype"), types_checked=True)
    with PassContext(opt_level=0), pytest.raises(TypeInferenceError, match="relay.exp"):
        Sequential([get_pass("InferType"), p])(mod)


def test_types_checked_pattern_pass_infers_again_an_untyped_insert(
    parse: Any, monkeypatch: Any
):
    """An inserted op whose types are not its relation's: inferred again."""
    mod = parse(RETYPED)
    inferred = _infer_count(monkeypatch)
    p = PatternPass(
        [AddAsUnrankedSubtract()], PassInfo(0, "Unranked"), types_checked=True
    )
    with PassContext(opt_level=0):
        out = Sequential([get_pass("InferType"), p])(mod)
    assert inferred == ["main", "main"]
    text = str(out)
    assert "relay.subtract" in text
    assert "tensor<*" not in text
