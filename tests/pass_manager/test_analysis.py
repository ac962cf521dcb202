"""Analyses cached on the PassContext: computed once, invalidated by the passes that
do not preserve them; InferType re-infers only what a pass invalidated."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from xdsl.dialects.builtin import (
    DenseArrayBase,
    ModuleOp,
    TensorType,
    UnrankedTensorType,
    f32,
    i64,
)
from xdsl.dialects.func import FuncOp
from xdsl.rewriter import Rewriter

from xrelay.dialects.relay.transform import ReshapeOp
from xrelay.pass_manager import (
    PassContext,
    Sequential,
    function_pass,
    get_pass,
    module_pass,
)
from xrelay.pass_manager.analysis import (
    CALL_GRAPH,
    USE_COUNTS,
    AnalysisManager,
)
from xrelay.transforms._fusion import POST_DOMINATORS
from xrelay.transforms.infer_type import TYPES

PROGRAM = """
func.func @g(%x: tensor<2x3xf32>) -> tensor<6xf32> {
  %0 = relay.reshape %x {newshape = array<i64: 6>} : (tensor<2x3xf32>) -> tensor<6xf32>
  func.return %0 : tensor<6xf32>
}
func.func @main(%x: tensor<2x3xf32>) -> tensor<6xf32> {
  %0 = func.call @g(%x) : (tensor<2x3xf32>) -> tensor<6xf32>
  %1 = relay.nn.relu %0 : (tensor<6xf32>) -> tensor<6xf32>
  func.return %1 : tensor<6xf32>
}
"""

QUIET = {"xrelay.verify_each": False}


def func_named(module: ModuleOp, name: str) -> FuncOp:
    return next(
        f for f in module.ops if isinstance(f, FuncOp) and f.sym_name.data == name
    )


def reshape_of(func: FuncOp) -> ReshapeOp:
    return next(op for op in func.walk() if isinstance(op, ReshapeOp))


def rewrite_g(newshape: list[int], claim_unchanged: bool) -> Any:
    """A function pass that gives @g's reshape a new shape and an incomplete result
    type (InferType must fill it in), and reports @main unchanged."""

    @function_pass(opt_level=0, name="RewriteG")
    def rewrite(func: FuncOp, mod: Any, ctx: PassContext) -> FuncOp:
        if func.sym_name.data == "g":
            op = reshape_of(func)
            op.properties["newshape"] = DenseArrayBase.from_list(i64, newshape)
            Rewriter.replace_value_with_new_type(op.results[0], UnrankedTensorType(f32))
            if claim_unchanged:  # a false claim: the cache trusts it
                ctx.analyses.preserve()
        else:
            ctx.analyses.preserve()
        return func

    return rewrite


def run(
    parse: Callable[[str], ModuleOp], passes: list[Any], **config: Any
) -> tuple[ModuleOp, AnalysisManager]:
    with PassContext(config={**QUIET, **config}) as ctx:
        out = Sequential(passes)(parse(PROGRAM))
    return out, ctx.analyses


def test_a_changed_function_is_inferred_again(parse: Callable[[str], ModuleOp]):
    infer = get_pass("InferType")
    out, am = run(parse, [infer, rewrite_g([6], False), get_pass("InferType")])
    # 2 functions at first, then only @g after the rewrite; the last InferType: none
    assert am.computed["types"] == 3
    g = func_named(out, "g")
    assert reshape_of(g).results[0].type == TensorType(f32, [6])


def test_a_preserving_pass_triggers_no_inference(parse: Callable[[str], ModuleOp]):
    out, am = run(parse, [get_pass("InferType"), rewrite_g([6], True)])
    assert am.computed["types"] == 2  # the function pass's InferType did nothing
    # ... so the incomplete type the pass left stays: the claim was trusted
    assert isinstance(
        reshape_of(func_named(out, "g")).results[0].type, UnrankedTensorType
    )


def test_without_the_cache_every_inference_runs(parse: Callable[[str], ModuleOp]):
    out, am = run(
        parse,
        [get_pass("InferType"), rewrite_g([6], True)],
        **{"xrelay.cache_analyses": False},
    )
    assert am.computed["types"] == 4
    assert reshape_of(func_named(out, "g")).results[0].type == TensorType(f32, [6])


def test_a_new_callee_signature_reinfers_callers(parse: Callable[[str], ModuleOp]):
    """@main was reported unchanged, but @g now returns 3x2: @main is checked again
    (and its call, declared 6, no longer fits)."""
    from xrelay.transforms.infer_type import TypeInferenceError

    message = (
        "func.call: result #0 is declared tensor<6xf32> but inferred tensor<3x2xf32>"
    )
    with pytest.raises(TypeInferenceError, match=message):
        run(parse, [get_pass("InferType"), rewrite_g([3, 2], False)])


def test_module_passes_invalidate_everything(parse: Callable[[str], ModuleOp]):
    @module_pass(opt_level=0)
    def touch_nothing(mod: Any, ctx: PassContext) -> Any:
        return mod

    infer = get_pass("InferType")
    _, am = run(
        parse, [infer, get_pass("InferType"), touch_nothing, get_pass("InferType")]
    )
    assert am.computed["types"] == 4  # 2, then cached, then 2 again


def test_other_analyses_are_cached_until_invalidated(parse: Callable[[str], ModuleOp]):
    module = parse(PROGRAM)
    am = AnalysisManager()
    main = func_named(module, "main")
    graph = am.get(CALL_GRAPH, module)
    assert graph == {"g": (), "main": ("g",)}
    assert am.get(CALL_GRAPH, module) is graph
    uses = am.get(USE_COUNTS, main)
    assert sorted(uses.values()) == [1, 1, 1]
    nodes, tree = am.get(POST_DOMINATORS, main)
    assert len(nodes) == len(tree) > 0
    assert am.computed == {
        "call_graph": 1,
        "callees": 2,
        "use_counts": 1,
        "post_dominators": 1,
    }
    am.invalidate_function(main, frozenset({"use_counts"}))
    assert am.cached(USE_COUNTS, main) is uses  # kept
    assert am.cached(POST_DOMINATORS, main) is None  # dropped with main
    assert am.cached(CALL_GRAPH, module) is None  # module analyses depend on main
    am.invalidate()
    assert am.cached(USE_COUNTS, main) is None


def test_the_cache_lives_for_one_pipeline_run(parse: Callable[[str], ModuleOp]):
    module = parse(PROGRAM)
    with PassContext() as ctx:
        get_pass("InferType")(module)
        assert not ctx.analyses  # dropped at the end of the outermost call
        assert ctx.analyses.cached(TYPES, func_named(module, "g")) is None


@pytest.mark.parametrize("opt_level", [0, 3])
def test_optimize_agrees_with_and_without_the_cache(
    parse: Callable[[str], ModuleOp], opt_level: int
):
    from xrelay.transform import optimize

    outs: list[str] = []
    for cache in (True, False):
        config = {"xrelay.cache_analyses": cache}
        with PassContext(opt_level=opt_level, config=config):
            outs.append(str(optimize(parse(PROGRAM))))
    assert outs[0] == outs[1]


CONV = """
func.func @main(%x: tensor<1x3x8x8xf32>) -> tensor<1x4x8x8xf32> {
  %w = relay.constant dense<0.5> : tensor<4x3x3x3xf32>
  %0 = relay.nn.conv2d %x, %w {padding = array<i64: 1, 1, 1, 1>, channels = 4 : i64, kernel_size = array<i64: 3, 3>} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x8x8xf32>
  %1 = relay.nn.relu %0 : (tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  %2 = relay.nn.max_pool2d %1 {pool_size = array<i64: 3, 3>, padding = array<i64: 1, 1, 1, 1>} : (tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  %3 = relay.add %2, %1 : (tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  func.return %3 : tensor<1x4x8x8xf32>
}
"""


def test_fuse_ops_leaves_valid_types(parse: Callable[[str], ModuleOp]):
    """FuseOps (and the InferType it requires) reuse the types; the kernels it makes
    are recorded as inferred, and re-inferring them would change nothing."""
    passes = [get_pass("InferType"), get_pass("FuseOps"), get_pass("InferType")]
    with PassContext(opt_level=3) as ctx:
        out = Sequential(passes)(parse(CONV))
    assert ctx.analyses.computed["types"] == 1  # @main, once
    kernels = [f for f in out.ops if isinstance(f, FuncOp)]
    assert len(kernels) == 3  # @main and two kernels
    before = str(out)
    with PassContext(config={"xrelay.cache_analyses": False}):
        assert str(get_pass("InferType")(out)) == before


SCALED_CONV = """
func.func @main(%x: tensor<1x2x4x4xf32>, %w: tensor<3x2x1x1xf32>) -> tensor<1x3x4x4xf32> {
  %s = relay.constant dense<[[[2.0]], [[3.0]]]> : tensor<2x1x1xf32>
  %0 = relay.multiply %x, %s : (tensor<1x2x4x4xf32>, tensor<2x1x1xf32>) -> tensor<1x2x4x4xf32>
  %1 = relay.nn.conv2d %0, %w {channels = 3 : i64, kernel_size = array<i64: 1, 1>} : (tensor<1x2x4x4xf32>, tensor<3x2x1x1xf32>) -> tensor<1x3x4x4xf32>
  %t = relay.constant dense<[[[2.0]], [[3.0]], [[4.0]]]> : tensor<3x1x1xf32>
  %2 = relay.multiply %1, %t : (tensor<1x3x4x4xf32>, tensor<3x1x1xf32>) -> tensor<1x3x4x4xf32>
  func.return %2 : tensor<1x3x4x4xf32>
}
"""


@pytest.mark.parametrize("name", ["ForwardFoldScaleAxis", "BackwardFoldScaleAxis"])
def test_fold_scale_axis_reports_unchanged(
    parse: Callable[[str], ModuleOp], name: str
) -> None:
    """Run twice: the first run folds (the types are inferred again after it), the
    second finds nothing to fold and says so, so no inference follows it."""
    fold = get_pass(name)
    passes = [get_pass("InferType"), fold, get_pass("InferType"), fold]
    with PassContext(opt_level=3) as ctx:
        out = Sequential(passes)(parse(SCALED_CONV))
    text = str(out)
    multiplies = text.count("relay.multiply")
    assert ctx.analyses.computed["types"] == 2  # before, and after the fold only
    with PassContext(opt_level=3) as ctx:
        again = Sequential([get_pass("InferType"), fold])(out)
    assert ctx.analyses.computed["types"] == 1
    assert str(again).count("relay.multiply") == multiplies
    assert "relay.multiply %w" in text  # the first run did fold into the weight


def test_verify_each_skips_passes_that_change_nothing(
    parse: Callable[[str], ModuleOp],
):
    @module_pass(opt_level=0)
    def touch_nothing(mod: Any, ctx: PassContext) -> Any:
        return mod

    infer = get_pass("InferType")
    checks = {"xrelay.verify_each": True}
    # InferType infers (types written: verified), then twice nothing (cached)
    _, am = run(parse, [infer, get_pass("InferType"), get_pass("InferType")], **checks)
    assert am.computed["verified"] == 1
    # a module pass keeps nothing: verified again after it (and after the
    # InferType that then re-infers both functions)
    _, am = run(parse, [infer, touch_nothing, get_pass("InferType")], **checks)
    assert am.computed["verified"] == 3
    # a function pass that changed @g: verified again; one claiming nothing changed
    # on every function: not
    _, am = run(parse, [infer, rewrite_g([6], False)], **checks)
    assert am.computed["verified"] == 2
    _, am = run(parse, [infer, rewrite_g([6], True)], **checks)
    assert am.computed["verified"] == 1
    # without the cache, every pass is verified
    _, am = run(
        parse,
        [infer, get_pass("InferType"), get_pass("InferType")],
        **checks,
        **{"xrelay.cache_analyses": False},
    )
    assert am.computed["verified"] == 3


def test_verify_each_still_names_the_pass_that_broke_the_ir(
    parse: Callable[[str], ModuleOp],
):
    from xrelay.pass_manager.passes import PassVerificationError

    @module_pass(opt_level=0, name="BreakIt")
    def break_it(mod: Any, ctx: PassContext) -> Any:
        module = mod if isinstance(mod, ModuleOp) else mod.module
        main = func_named(module, "main")
        ret = main.body.block.last_op
        assert ret is not None
        ret.operands = [main.args[0]]  # returns 2x3 where 6 is declared
        return mod

    with pytest.raises(PassVerificationError, match="after pass 'BreakIt'"):
        run(
            parse,
            [get_pass("InferType"), get_pass("InferType"), break_it],
            **{"xrelay.verify_each": True},
        )


def test_remove_unused_functions_keeps_analyses_when_it_removes_nothing(
    parse: Callable[[str], ModuleOp],
):
    passes = [get_pass("InferType"), get_pass("RemoveUnusedFunctions")]
    _, am = run(parse, [*passes, get_pass("InferType")], **{"xrelay.verify_each": True})
    assert am.computed["types"] == 2  # nothing removed: nothing inferred again
    assert am.computed["verified"] == 1
    # with @g the only entry, @main is removed: analyses dropped, verified again
    out, am = run(
        parse,
        [passes[0], get_pass("RemoveUnusedFunctions", entry_functions=("g",))],
        **{"xrelay.verify_each": True},
    )
    assert [f.sym_name.data for f in out.ops if isinstance(f, FuncOp)] == ["g"]
    assert am.computed["verified"] == 2
