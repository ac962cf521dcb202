"""SimplifyExpr / SimplifyExprPostAlterOp: Relay's test_pass_simplify_expr scenarios
on builder models, checked by the shape of the result and by the interpreter's
numerics before and after."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import pytest
from xdsl.dialects.builtin import ModuleOp
from xdsl.dialects.func import FuncOp

from xrelay import relay
from xrelay.dialects.relay.base import RelayOp
from xrelay.dialects.relay.dtypes import BFLOAT16
from xrelay.dialects.relay.structural import ConstantOp
from xrelay.pass_manager import PassContext, Sequential, get_pass, list_passes
from xrelay.runtime import interpret
from xrelay.transforms.simplify_expr import SimplifyExpr
from xrelay.transforms.simplify_expr_post_alter_op import SimplifyExprPostAlterOp

RNG = np.random.default_rng(7)

# ---------------------------------------------------------------------------------------
# Helpers
# ---------------------------------------------------------------------------------------


def module_of(mod: Any) -> ModuleOp:
    return mod if isinstance(mod, ModuleOp) else mod.module


def main_func(mod: Any) -> FuncOp:
    for f in module_of(mod).ops:
        if isinstance(f, FuncOp) and f.sym_name.data == "main":
            return f
    raise KeyError("main")


def op_names(mod: Any) -> list[str]:
    """The ops of @main without constants and the return."""
    return [
        op.name
        for op in main_func(mod).walk()
        if isinstance(op, RelayOp) and not isinstance(op, ConstantOp)
    ]


def ops_of(mod: Any, name: str) -> list[RelayOp]:
    return [
        op
        for op in main_func(mod).walk()
        if isinstance(op, RelayOp) and op.name == name
    ]


def build(body: Any) -> relay.IRModule:
    return relay.IRModule.from_expr(body)


def sample(mod: Any) -> list[np.ndarray[Any, Any]]:
    """Random inputs for @main's parameters."""
    from xdsl.dialects.builtin import TensorType

    from xrelay.dialects.relay.dtypes import numpy_dtype

    arrays: list[np.ndarray[Any, Any]] = []
    for arg in main_func(mod).body.block.args:
        ty = arg.type
        assert isinstance(ty, TensorType)
        npd = numpy_dtype(ty.get_element_type())
        shape = [3 if d < 0 else d for d in ty.get_shape()]
        if npd.kind == "f":
            arrays.append(RNG.uniform(0.5, 3.0, shape).astype(npd))
        elif npd.kind == "b":
            arrays.append(RNG.integers(0, 2, shape).astype(npd))
        else:
            arrays.append(RNG.integers(1, 5, shape).astype(npd))
    return arrays


def assert_same(before: Any, after: Any) -> None:
    args = sample(before)
    expected = interpret(before, *args)
    got = interpret(after, *args)
    if isinstance(expected, tuple):
        for e, g in zip(expected, got, strict=True):
            np.testing.assert_allclose(g, e, rtol=1e-5, atol=1e-6)
    else:
        np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-6)


def simplify(body: Any, pass_: Callable[[], Any] = SimplifyExpr) -> tuple[Any, Any]:
    before = build(body)
    after = pass_()(before)
    assert_same(before, after)
    return before, after


def returns_param(mod: Any, index: int = 0) -> bool:
    func = main_func(mod)
    ret = func.body.block.last_op
    assert ret is not None
    return ret.operands[0] is func.body.block.args[index]


# ---------------------------------------------------------------------------------------
# Registration
# ---------------------------------------------------------------------------------------


def test_registered_with_relay_names_and_levels():
    listing = {p.name: p for p in list_passes()}
    for name, pipeline in (
        ("SimplifyExpr", "simplify-expr"),
        ("SimplifyExprPostAlterOp", "simplify-expr-post-alter-op"),
    ):
        entry = listing[name]
        assert entry.pipeline_name == pipeline
        assert entry.opt_level == 0
        assert entry.required == ("InferType",)
        assert get_pass(pipeline).info.name == name


def test_runs_in_a_sequential_with_infer_type_first():
    x = relay.var("x", shape=(2, 3))
    mod = build(relay.Function([x], relay.add(x, x)))
    with PassContext(opt_level=0):
        after = Sequential([get_pass("SimplifyExpr")])(mod)
    assert op_names(after) == ["relay.multiply"]


# ---------------------------------------------------------------------------------------
# Reshape, transpose, layout_transform
# ---------------------------------------------------------------------------------------


def test_simplify_reshape():
    x = relay.var("x", shape=(1, 16, 8, 8))
    w = relay.var("w", shape=(32, 16, 3, 3))
    y = relay.nn.conv2d(x, w, padding=(1, 1))
    y = relay.reshape(y, newshape=(1, 16, -1))
    y = relay.reshape(y, newshape=(4, 8, -1, 16))
    y = relay.reshape(y, newshape=(32, 0, -1))
    _, after = simplify(relay.Function([x, w], y))
    assert op_names(after) == ["relay.nn.conv2d", "relay.reshape"]
    (reshape,) = ops_of(after, "relay.reshape")
    assert list(reshape.results[0].type.get_shape()) == [32, 8, 8]  # type: ignore[attr-defined]


def test_reshape_to_same_shape_is_dropped():
    x = relay.var("x", shape=(2, 6))
    y = relay.reshape(relay.reshape(x, (12,)), (2, 6))
    _, after = simplify(relay.Function([x], relay.nn.relu(y)))
    assert op_names(after) == ["relay.nn.relu"]


def _transpose_cases() -> list[tuple[str, Callable[[], Any], list[str]]]:
    def case1():
        x = relay.var("x", shape=(1, 3, 6, 6))
        y = relay.transpose(x, axes=[0, 2, 3, 1])
        y = relay.layout_transform(y, "NHWC", "HWCN")
        return relay.Function([x], relay.transpose(y, axes=[3, 0, 1, 2]))

    def case2():
        x = relay.var("x", shape=(1, 3, 6, 6))
        y = relay.nn.relu(x)
        y = relay.transpose(y, axes=[0, 2, 3, 1])
        y = relay.transpose(y, axes=[1, 2, 3, 0])
        return relay.Function([x], relay.transpose(y, axes=[3, 2, 0, 1]))

    def case3():
        x = relay.var("x", shape=(1, 3, 6, 6))
        y = relay.nn.relu(x)
        y = relay.transpose(relay.transpose(y))
        y = relay.transpose(y, axes=[0, 2, -1, 1])
        return relay.Function([x], relay.transpose(relay.transpose(y)))

    def case4():
        x = relay.var("x", shape=(1, 5, 5, 8))
        y = relay.transpose(x, axes=[0, 3, 1, 2])
        y = relay.layout_transform(y, "NCHW", "NCHW4c")
        y = relay.nn.relu(y)
        y = relay.layout_transform(y, "NCHW4c", "NCHW")
        return relay.Function([x], relay.transpose(y, axes=[0, 2, 3, 1]))

    def case5():
        x = relay.var("x", shape=(1, 5, 5, 8))
        y = relay.layout_transform(x, "NHWC", "NCHW")
        y = relay.layout_transform(y, "NCHW", "NCHW4c")
        y = relay.nn.relu(y)
        y = relay.layout_transform(y, "NCHW4c", "NCHW")
        return relay.Function([x], relay.layout_transform(y, "NCHW", "NHWC"))

    def case6():
        x = relay.var("x", shape=(1, 8, 5, 5))
        y = relay.layout_transform(x, "NCHW", "NHWC")
        y = relay.layout_transform(y, "NHWC", "NCHW")
        return relay.Function([x], relay.nn.relu(y))

    def case7():
        x = relay.var("x", shape=(1, 4, 5, 5, 4))
        y = relay.layout_transform(x, "NCHW4c", "NCHW8c")
        y = relay.layout_transform(y, "NCHW8c", "NCHW4c")
        return relay.Function([x], relay.nn.relu(y))

    def case8():
        x = relay.var("x", shape=(1, 4, 5, 5, 4))
        y = relay.layout_transform(x, "NCHW4c", "NCHW")
        y = relay.layout_transform(y, "NCHW", "NCHW8c")
        return relay.Function([x], relay.nn.relu(y))

    def case9():
        x = relay.var("x", shape=(1, 16, 5, 5))
        y = relay.layout_transform(x, "NCHW", "NCHW4c")
        y = relay.layout_transform(y, "NCHW4c", "NCHW")
        return relay.Function([x], relay.nn.relu(y))

    def case10():
        x = relay.var("x", shape=(1, 16, 5, 5))
        y = relay.layout_transform(x, "NCHW", "NHWC")
        y = relay.layout_transform(y, "NHWC", "CHWN")
        return relay.Function([x], relay.nn.relu(y))

    def case11():
        x = relay.var("x", shape=(1, 16, 5, 5))
        y = relay.transpose(x, axes=[0, 1, 2, 3])
        y = relay.nn.relu(y)
        return relay.Function([x], relay.layout_transform(y, "NCHW", "NCHW"))

    return [
        ("transpose-layout-transpose", case1, ["relay.transpose"]),
        ("all-cancel", case2, ["relay.nn.relu"]),
        ("default-and-negative-axes", case3, ["relay.nn.relu", "relay.transpose"]),
        (
            "transpose-into-blocking",
            case4,
            ["relay.layout_transform", "relay.nn.relu", "relay.layout_transform"],
        ),
        (
            "layout-chain",
            case5,
            ["relay.layout_transform", "relay.nn.relu", "relay.layout_transform"],
        ),
        ("layout-cancel", case6, ["relay.nn.relu"]),
        ("blocked-cancel", case7, ["relay.nn.relu"]),
        ("reblock", case8, ["relay.layout_transform", "relay.nn.relu"]),
        ("block-unblock", case9, ["relay.nn.relu"]),
        ("permuting-layouts", case10, ["relay.transpose", "relay.nn.relu"]),
        ("no-op", case11, ["relay.nn.relu"]),
    ]


@pytest.mark.parametrize(
    ("make", "expected"),
    [(c[1], c[2]) for c in _transpose_cases()],
    ids=[c[0] for c in _transpose_cases()],
)
def test_simplify_transpose(make: Callable[[], Any], expected: list[str]):
    _, after = simplify(make())
    assert op_names(after) == expected


def test_simplify_transpose_results():
    # the transposes and layouts left are the ones Relay leaves
    _, after = simplify(_transpose_cases()[0][1]())
    (t,) = ops_of(after, "relay.transpose")
    assert list(t.properties["axes"].get_values()) == [0, 2, 3, 1]  # type: ignore[attr-defined]
    _, after = simplify(_transpose_cases()[3][1]())
    first, last = ops_of(after, "relay.layout_transform")
    assert (
        first.properties["src_layout"].data,
        first.properties["dst_layout"].data,
    ) == (  # type: ignore[attr-defined]
        "NHWC",
        "NCHW4c",
    )
    assert (last.properties["src_layout"].data, last.properties["dst_layout"].data) == (  # type: ignore[attr-defined]
        "NCHW4c",
        "NHWC",
    )
    _, after = simplify(_transpose_cases()[9][1]())
    (t,) = ops_of(after, "relay.transpose")
    assert list(t.properties["axes"].get_values()) == [1, 2, 3, 0]  # type: ignore[attr-defined]


# ---------------------------------------------------------------------------------------
# full / ones / zeros operands and identities
# ---------------------------------------------------------------------------------------


ELEM_OPS = {
    "add": relay.add,
    "multiply": relay.multiply,
    "subtract": relay.subtract,
    "divide": relay.divide,
}


def _full_ops(x: Any, shape: Sequence[int], value: int, dtype: str) -> list[Any]:
    ops: list[Any] = []
    if value == 0:
        ops += [relay.zeros(shape, dtype), relay.zeros_like(x)]
    if value == 1:
        ops += [relay.ones(shape, dtype), relay.ones_like(x)]
    else:
        ops += [
            relay.full(relay.const(value, dtype), shape),
            relay.full_like(x, relay.const(value, dtype)),
        ]
    return ops


@pytest.mark.parametrize("shape", [[10], [4, 5], [2, 3, 4]])
@pytest.mark.parametrize("dtype", ["float32", "int32", "bool"])
@pytest.mark.parametrize("value", [0, 1, 2])
def test_simplify_full_elementwise(shape: list[int], dtype: str, value: int):
    for name, elem_op in ELEM_OPS.items():
        if dtype == "bool" and name in ("subtract", "divide"):
            continue  # numpy has no boolean subtract
        x = relay.var("x", shape=shape, dtype=dtype)
        for full in _full_ops(x, shape, value, dtype):
            for left in (True, False):
                body = elem_op(full, x) if left else elem_op(x, full)
                _, after = simplify(relay.Function([x], body))
                fill = bool(value) if dtype == "bool" else value
                identity = (name == "add" and fill == 0) or (
                    name == "multiply" and fill == 1
                )
                if not left:
                    identity = identity or (name == "subtract" and fill == 0)
                    identity = identity or (name == "divide" and fill == 1)
                if identity:
                    assert op_names(after) == [], (name, left)
                    assert returns_param(after)
                else:
                    assert op_names(after) == [f"relay.{name}"], (name, left)
                    consts = [
                        op
                        for op in main_func(after).walk()
                        if isinstance(op, ConstantOp)
                    ]
                    assert len(consts) == 1
                    assert consts[0].numpy().shape == ()


def test_full_that_broadcasts_x_stays():
    for name, elem_op in ELEM_OPS.items():
        x = relay.var("x", shape=(10,))
        for full in (
            relay.zeros((10, 10), "float32"),
            relay.ones((10, 10), "float32"),
            relay.full(relay.const(2.0), (10, 10)),
        ):
            _, after = simplify(relay.Function([x], elem_op(x, full)))
            assert f"relay.{name}" in op_names(after)
            assert len(op_names(after)) == 2


IdentityCase = tuple[Callable[..., Any], Callable[..., Any], Callable[..., Any], float]
SHAPE = [2, 3, 4]


def _identity_forms(
    case: IdentityCase, commutative: bool
) -> list[Callable[[Any], Any]]:
    op, op_like, id_op, value = case
    right = [
        lambda x: id_op(x, op_like(x)),
        lambda x: id_op(x, op(SHAPE, "float32")),
        lambda x: id_op(x, relay.const(value, "float32")),
        lambda x: id_op(x, op(SHAPE[1:], "float32")),
    ]
    left = [
        lambda x: id_op(op_like(x), x),
        lambda x: id_op(op(SHAPE, "float32"), x),
        lambda x: id_op(relay.const(value, "float32"), x),
        lambda x: id_op(op(SHAPE[1:], "float32"), x),
    ]
    return right + left if commutative else right


@pytest.mark.parametrize(
    "case",
    [
        (relay.zeros, relay.zeros_like, relay.add, 0.0),
        (relay.ones, relay.ones_like, relay.multiply, 1.0),
        (relay.zeros, relay.zeros_like, relay.subtract, 0.0),
        (relay.ones, relay.ones_like, relay.divide, 1.0),
    ],
    ids=["add", "multiply", "subtract", "divide"],
)
def test_eliminate_identity(case: IdentityCase):
    op, _, id_op, _ = case
    commutative = id_op in (relay.add, relay.multiply)
    for make in _identity_forms(case, commutative):
        x = relay.var("x", shape=SHAPE)
        _, after = simplify(relay.Function([x], make(x)))
        assert op_names(after) == []
        assert returns_param(after)
    # do nothing: the zeros/ones make the result bigger than x
    for bigger in (
        lambda x: id_op(x, op([2, *SHAPE], "float32")),
        lambda x: id_op(op([2, *SHAPE], "float32"), x),
    ):
        x = relay.var("x", shape=SHAPE)
        _, after = simplify(relay.Function([x], bigger(x)))
        names = op_names(after)
        assert len(names) == 2
        assert f"relay.{id_op.__name__}" in names
    if not commutative:
        # zeros - x and ones / x are no identities; the op gets a scalar operand
        x = relay.var("x", shape=SHAPE)
        _, after = simplify(relay.Function([x], id_op(op(SHAPE, "float32"), x)))
        assert op_names(after) == [f"relay.{id_op.__name__}"]


def test_identity_with_non_scalar_constant():
    x = relay.var("x", shape=(2, 3))
    zeros = relay.const(np.zeros((2, 3), "float32"))
    _, after = simplify(relay.Function([x], relay.add(x, zeros)))
    assert returns_param(after)
    twos = relay.const(np.array([1.0, 2.0, 1.0], "float32"))
    _, after = simplify(relay.Function([x], relay.multiply(x, twos)))
    assert op_names(after) == ["relay.multiply"]


# ---------------------------------------------------------------------------------------
# Casts
# ---------------------------------------------------------------------------------------


def test_simplify_same_cast():
    data = relay.var("data", shape=(3, 4, 5), dtype="int32")
    _, after = simplify(relay.Function([data], relay.cast(data, "int32")))
    assert returns_param(after)
    data = relay.var("data", shape=(3, 4, 5), dtype="int32")
    like = relay.var("like", shape=(2, 2, 2), dtype="int32")
    _, after = simplify(relay.Function([data, like], relay.cast_like(data, like)))
    assert returns_param(after)


def test_simplify_consecutive_cast():
    x = relay.var("x", shape=(3, 4, 5), dtype="int8")
    y = relay.var("y", shape=(3, 4), dtype="int64")
    z = relay.var("z", shape=(3,), dtype="float32")
    e2 = relay.cast(relay.cast(x, "int16"), "int32")
    e3 = relay.cast_like(e2, y)
    e4 = relay.cast_like(e3, z)
    for body, dtype in ((e2, "i32"), (e3, "i64"), (e4, "f32")):
        _, after = simplify(relay.Function([x, y, z], body))
        (c,) = ops_of(after, "relay.cast")
        assert c.operands[0] is main_func(after).body.block.args[0]
        assert str(c.properties["dtype"]) == dtype


@pytest.mark.parametrize(
    ("src", "mid", "dst"),
    [
        ("float32", "int32", "float32"),  # float -> int truncates
        ("int64", "bool", "int32"),  # int -> bool loses values
        ("float32", "float16", "float32"),  # narrowing float
        ("int32", "float32", "int64"),  # int32 -> f32 is not exact
        ("int8", "uint8", "int32"),  # negative values wrap
    ],
)
def test_narrowing_cast_stays(src: str, mid: str, dst: str):
    x = relay.var("x", shape=(3, 4), dtype=src)
    _, after = simplify(relay.Function([x], relay.cast(relay.cast(x, mid), dst)))
    assert op_names(after) == ["relay.cast", "relay.cast"]


def test_concretize_cast_like_dynamic():
    data = relay.var("data", shape=(3, relay.Any(), 5), dtype="float32")
    like = relay.var("like", shape=(relay.Any(), 3, 3), dtype="int32")
    after = SimplifyExpr()(
        build(relay.Function([data, like], relay.cast_like(data, like)))
    )
    assert op_names(after) == ["relay.cast"]


# ---------------------------------------------------------------------------------------
# Concretize *_like
# ---------------------------------------------------------------------------------------


def test_concretize_reshape_like():
    data = relay.var("data", shape=(2, 3, 4))
    like = relay.var("like", shape=(6, 2, 2))
    _, after = simplify(relay.Function([data, like], relay.reshape_like(data, like)))
    assert op_names(after) == ["relay.reshape"]
    _, after = simplify(
        relay.Function(
            [data, like], relay.reshape_like(data, like, lhs_begin=2, rhs_begin=1)
        )
    )
    (r,) = ops_of(after, "relay.reshape")
    assert list(r.properties["newshape"].get_values()) == [2, 3, 2, 2]  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    ("make", "expected"),
    [
        (lambda v: relay.zeros_like(v), "relay.zeros"),
        (lambda v: relay.ones_like(v), "relay.ones"),
    ],
)
def test_concretize_zeros_ones_like(make: Callable[[Any], Any], expected: str):
    like = relay.var("like", shape=(3, 4, 5), dtype="int32")
    _, after = simplify(relay.Function([like], make(like)))
    assert op_names(after) == [expected]


def test_concretize_full_like():
    like = relay.var("like", shape=(3, 4, 5), dtype="int32")
    fill = relay.var("fill", shape=(), dtype="float32")
    _, after = simplify(relay.Function([like, fill], relay.full_like(like, fill)))
    (f,) = ops_of(after, "relay.full")
    assert str(f.results[0].type) == "tensor<3x4x5xi32>"


def test_concretize_collapse_sum_like():
    data = relay.var("data", shape=(3, 3, 3))
    like = relay.var("like", shape=(3,))
    _, after = simplify(
        relay.Function([data, like], relay.collapse_sum_like(data, like))
    )
    assert "relay.collapse_sum_like" not in op_names(after)
    assert op_names(after) == ["relay.collapse_sum_to"]


def test_concretize_broadcast_to_like():
    data = relay.var("data", shape=(3,))
    like = relay.var("like", shape=(3, 3, 3))
    _, after = simplify(
        relay.Function([data, like], relay.broadcast_to_like(data, like))
    )
    assert op_names(after) == ["relay.broadcast_to"]


def test_concretize_multiple():
    x = relay.var("x", shape=(2, 3))
    y = relay.var("y", shape=(3,))
    loss = relay.add(x, y)
    dl = relay.ones_like(loss)
    dx = relay.add(relay.zeros_like(x), relay.collapse_sum_like(dl, x))
    dy = relay.add(relay.zeros_like(y), relay.collapse_sum_like(dl, y))
    _, after = simplify(relay.Function([x, y], relay.Tuple([dx, dy])))
    names = op_names(after)
    assert not any(n.endswith("_like") for n in names)
    assert "relay.add" not in names  # the zeros are identities
    assert names.count("relay.ones") == 1


# ---------------------------------------------------------------------------------------
# Arithmetic
# ---------------------------------------------------------------------------------------


def test_simplify_mul_add():
    n = 8
    c1v, c2v, c3v = (RNG.uniform(size=n).astype("float32") for _ in range(3))

    def check(
        exprs: Sequence[Callable[[Any, Any, Any, Any], Any]], expected: list[str]
    ):
        for make in exprs:
            x = relay.var("x", shape=(n,))
            c1, c2, c3 = relay.const(c1v), relay.const(c2v), relay.const(c3v)
            _, after = simplify(relay.Function([x], make(x, c1, c2, c3)))
            assert op_names(after) == expected

    check([lambda x, a, b, c: x + a + b, lambda x, a, b, c: a + x + b], ["relay.add"])
    check(
        [lambda x, a, b, c: x * a * b, lambda x, a, b, c: a * x * b],
        ["relay.multiply"],
    )
    mul_add = ["relay.multiply", "relay.add"]
    check(
        [
            lambda x, a, b, c: (x + a) * b,
            lambda x, a, b, c: (a + x) * b,
            lambda x, a, b, c: b * (x + a),
            lambda x, a, b, c: b * (a + x),
        ],
        mul_add,
    )
    check(
        [
            lambda x, a, b, c: (x + a) * b + c,
            lambda x, a, b, c: c + b * (a + x),
            lambda x, a, b, c: c + (x + a) * b,
        ],
        mul_add,
    )
    check(
        [
            lambda x, a, b, c: (x * a + b) * c,
            lambda x, a, b, c: (b + a * x) * c,
            lambda x, a, b, c: c * (b + x * a),
        ],
        mul_add,
    )


@pytest.mark.parametrize("c", [1.0, 2.0, 2.5])
def test_simplify_rsqrt(c: float):
    x = relay.var("x", shape=(8, 1, 1))
    _, after = simplify(
        relay.Function([x], relay.divide(relay.const(c), relay.sqrt(x)))
    )
    expected = ["relay.rsqrt"] if c == 1.0 else ["relay.rsqrt", "relay.multiply"]
    assert op_names(after) == expected


def test_simplify_add():
    x = relay.var("x", shape=(1, 3, 10, 10))
    _, after = simplify(relay.Function([x], relay.add(x, x)))
    assert op_names(after) == ["relay.multiply"]
    (c,) = [op for op in main_func(after).walk() if isinstance(op, ConstantOp)]
    assert c.numpy().shape == ()
    assert float(c.numpy()) == 2.0


def test_add_of_bools_is_kept():
    x = relay.var("x", shape=(4,), dtype="bool")
    _, after = simplify(relay.Function([x], relay.add(x, x)))
    assert op_names(after) == ["relay.add"]


# ---------------------------------------------------------------------------------------
# Clips
# ---------------------------------------------------------------------------------------


def _clip_cast_cases() -> list[tuple[str, list[str], list[str]]]:
    """(input dtype, cast chain, ops left)."""
    return [
        ("int32", ["uint8", "int32"], ["relay.clip"]),
        ("int32", ["uint8", "int16", "int32"], ["relay.clip"]),
        ("float32", ["uint8", "int16", "int32"], ["relay.clip", "relay.cast"]),
        (
            "float32",
            ["int8", "int16", "int32"],
            ["relay.clip", "relay.cast", "relay.cast"],
        ),
        ("float32", ["uint8", "float32"], ["relay.clip", "relay.cast", "relay.cast"]),
    ]


@pytest.mark.parametrize(("dtype", "casts", "expected"), _clip_cast_cases())
def test_simplify_clip_cast(dtype: str, casts: list[str], expected: list[str]):
    x = relay.var("x", shape=(4, 8), dtype=dtype)
    y = relay.clip(x, a_min=0.0, a_max=255.0)
    for c in casts:
        y = relay.cast(y, c)
    before = build(relay.Function([x], y))
    after = SimplifyExpr()(before)
    assert op_names(after) == expected
    arg = np.linspace(-300, 300, 32, dtype=dtype).reshape(4, 8)
    np.testing.assert_array_equal(interpret(after, arg), interpret(before, arg))


def test_simplify_cast_clip():
    x = relay.var("x", shape=(4, 8), dtype="int32")
    _, after = simplify(
        relay.Function([x], relay.clip(relay.cast(x, "uint8"), a_min=0.0, a_max=255.0))
    )
    assert op_names(after) == ["relay.cast"]
    x = relay.var("x", shape=(4, 8), dtype="uint8")
    _, after = simplify(relay.Function([x], relay.clip(x, a_min=0.0, a_max=255.0)))
    assert returns_param(after)
    # bf16's range is not covered: the clip stays and still clips
    x = relay.var("x", shape=(4, 8))
    body = relay.clip(relay.cast(x, "bfloat16"), a_min=-0.2, a_max=0.4)
    after = SimplifyExpr()(build(relay.Function([x], body)))
    assert op_names(after) == ["relay.cast", "relay.clip"]
    data = np.linspace(-1, 1, 32, dtype=np.float32).reshape(4, 8)
    got = np.asarray(interpret(after, data)).astype(np.float32)
    want = np.clip(data.astype(BFLOAT16).astype(np.float32), -0.2, 0.4)
    np.testing.assert_array_equal(got, want.astype(BFLOAT16).astype(np.float32))


def test_clip_of_clip():
    x = relay.var("x", shape=(16,))
    body = relay.clip(relay.clip(x, -1.0, 6.0), 0.0, 10.0)
    before = build(relay.Function([x], body))
    after = SimplifyExpr()(before)
    (c,) = ops_of(after, "relay.clip")
    assert (c.properties["a_min"].value.data, c.properties["a_max"].value.data) == (
        0.0,
        6.0,
    )  # type: ignore[attr-defined]
    arg = np.linspace(-5, 12, 16, dtype="float32")
    np.testing.assert_array_equal(interpret(after, arg), interpret(before, arg))
    # disjoint ranges stay
    x = relay.var("x", shape=(16,))
    after = SimplifyExpr()(
        build(relay.Function([x], relay.clip(relay.clip(x, 0.0, 1.0), 2.0, 3.0)))
    )
    assert op_names(after) == ["relay.clip", "relay.clip"]


# ---------------------------------------------------------------------------------------
# SimplifyExprPostAlterOp: the subset
# ---------------------------------------------------------------------------------------


def test_post_alter_op_subset():
    x = relay.var("x", shape=(2, 6))
    y = relay.add(x, relay.const(0.0))
    y = relay.reshape(relay.reshape(y, (12,)), (4, 3))
    y = relay.cast(relay.cast(y, "float32"), "float64")
    _, after = simplify(relay.Function([x], y), SimplifyExprPostAlterOp)
    assert op_names(after) == ["relay.reshape", "relay.cast"]

    x = relay.var("x", shape=(2, 3))
    y = relay.transpose(relay.transpose(relay.add(x, x)))
    _, after = simplify(relay.Function([x], y), SimplifyExprPostAlterOp)
    assert op_names(after) == ["relay.add", "relay.transpose", "relay.transpose"]


# ---------------------------------------------------------------------------------------
# A bigger model: everything together keeps the numerics
# ---------------------------------------------------------------------------------------


def test_model_numerics():
    x = relay.var("x", shape=(1, 4, 6, 6))
    w = relay.const(RNG.standard_normal((8, 4, 3, 3)).astype("float32"))
    y = relay.nn.conv2d(x, w, padding=(1, 1))
    y = relay.multiply(
        relay.add(y, relay.const(np.ones((8, 1, 1), "float32"))), relay.const(2.0)
    )
    y = relay.divide(y, relay.sqrt(relay.add(relay.ones_like(y), relay.zeros_like(y))))
    y = relay.transpose(relay.layout_transform(y, "NCHW", "NHWC"), axes=[0, 3, 1, 2])
    y = relay.reshape(relay.reshape(y, (8, -1)), (1, 8, 6, 6))
    y = relay.clip(relay.clip(relay.nn.relu(y), 0.0, 100.0), -1.0, 50.0)
    y = relay.cast(relay.cast(y, "float64"), "float32")
    before, after = simplify(relay.Function([x], relay.add(y, y)))
    assert len(op_names(after)) < len(op_names(before))
    assert "relay.transpose" not in op_names(after)
    assert "relay.layout_transform" not in op_names(after)


# ---------------------------------------------------------------------------------------
# Random programs built from the patterns' inputs keep their numerics
# ---------------------------------------------------------------------------------------


def _random_program(rng: np.random.Generator) -> Any:
    x = relay.var("x", shape=(2, 3, 4))
    v: Any = x
    shape = [2, 3, 4]

    def const(value: float) -> Any:
        return relay.const(np.float32(value))

    for _ in range(int(rng.integers(2, 9))):
        kind = int(rng.integers(14))
        if kind == 0:
            v = relay.add(v, v)
        elif kind == 1:
            v = relay.add(v, const(float(rng.choice([0.0, 1.0, 2.5]))))
        elif kind == 2:
            v = relay.multiply(const(float(rng.choice([1.0, 0.5, 2.0]))), v)
        elif kind == 3:
            v = relay.divide(v, relay.sqrt(relay.add(relay.abs(v), const(1.0))))
        elif kind == 4:
            perm = [int(p) for p in rng.permutation(len(shape))]
            v = relay.transpose(v, perm)
            shape = [shape[p] for p in perm]
        elif kind == 5:
            n = int(np.prod(shape))
            v = relay.reshape(relay.reshape(v, (-1,)), (2, -1))
            shape = [2, n // 2]
        elif kind == 6:
            v = relay.subtract(v, relay.zeros_like(v))
        elif kind == 7:
            v = relay.multiply(v, relay.ones(shape[1:], "float32"))
        elif kind == 8:
            mid = str(rng.choice(["float64", "float16", "int32"]))
            v = relay.cast(relay.cast(v, mid), "float32")
        elif kind == 9:
            lo1, hi1, lo2, hi2 = (
                rng.uniform(-3, 0),
                rng.uniform(0, 3),
                rng.uniform(-3, 0),
                rng.uniform(0, 3),
            )
            v = relay.clip(relay.clip(v, lo1, hi1), lo2, hi2)
        elif kind == 10:
            v = relay.multiply(
                relay.add(v, const(rng.uniform(-1, 1))), const(rng.uniform(-2, 2))
            )
        elif kind == 11:
            v = relay.maximum(v, relay.full(const(0.5), shape))
        elif kind == 12:
            v = relay.add(relay.add(v, const(1.0)), const(2.0))
        else:
            v = relay.cast(relay.clip(relay.cast(v, "int32"), 0.0, 100.0), "uint8")
            v = relay.cast(relay.cast(v, "int16"), "float32")
    return relay.Function([x], v)


@pytest.mark.parametrize("seed", range(40))
def test_random_programs_keep_numerics(seed: int):
    rng = np.random.default_rng(seed)
    before = build(_random_program(rng))
    arg = rng.uniform(-4, 4, (2, 3, 4)).astype("float32")
    expected = interpret(before, arg)
    for pass_ in (SimplifyExpr, SimplifyExprPostAlterOp):
        got = interpret(pass_()(before), arg)
        np.testing.assert_allclose(got, expected, rtol=1e-3, atol=1e-3)
