"""QnnCanonicalize (``relay.qnn.transform.CanonicalizeOps()``): every QNN op is
rewritten into existing relay ops that compute exactly what the op's reference does
(interpreter before == interpreter after, bit for bit, on ties, saturation, NaN and
infinities), and ``xrelay.build`` (which runs the pass first) gives the same bits."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import xrelay
from xrelay import relay
from xrelay.dialects.relay.qnn import QnnOp
from xrelay.pass_manager import PassContext
from xrelay.runtime.interpreter import interpret
from xrelay.transforms.pipeline import PASS_PREFIX

F32, I32 = "float32", "int32"


def c(value: Any, dtype: str) -> Any:
    return relay.const(np.asarray(value, dtype=dtype), dtype)


def tricky(shape: tuple[int, ...], seed: int, step: float = 0.25) -> np.ndarray:
    """Floats with exact ties of ``step / 2``, huge values, infinities and NaN."""
    rng = np.random.default_rng(seed)
    x = rng.normal(size=shape).astype(np.float32) * 40 * step
    flat = x.reshape(-1)
    n = flat.size // 3
    flat[:n] = (rng.integers(-400, 400, n) + 0.5) * step
    flat[-5:] = [1e30, -1e30, np.inf, -np.inf, np.nan]
    return x


def qnn_ops_in(mod: Any) -> list[str]:
    return [op.name for op in mod.module.walk() if isinstance(op, QnnOp)]


def canonicalized(mod: Any) -> Any:
    mod = relay.transform.InferType()(mod)
    return relay.qnn.transform.CanonicalizeOps()(mod)


def check_canonical(body: Callable[..., Any], *inputs: np.ndarray) -> Any:
    vs = [
        relay.var(f"v{i}", shape=a.shape, dtype=str(a.dtype))
        for i, a in enumerate(inputs)
    ]
    mod = relay.IRModule.from_expr(relay.Function(vs, body(*vs)))
    assert qnn_ops_in(mod)
    want = interpret(mod, *inputs)
    canon = canonicalized(mod)
    assert qnn_ops_in(canon) == []
    got = interpret(canon, *inputs)
    np.testing.assert_array_equal(got, want)
    assert got.dtype == want.dtype
    return mod


# -- every op: the canonical form computes the reference ---------------------------------


@pytest.mark.parametrize("dtype", ["int8", "uint8", "int16", "int32"])
def test_quantize(dtype: str):
    x = tricky((4, 6), 0)
    zp = {"int8": -3, "uint8": 128, "int16": 7, "int32": 0}[dtype]
    check_canonical(
        lambda v: relay.qnn.op.quantize(v, c(0.25, F32), c(zp, I32), out_dtype=dtype), x
    )


def test_quantize_per_channel():
    x = tricky((2, 3, 5), 1)
    check_canonical(
        lambda v: relay.qnn.op.quantize(
            v, c([0.25, 0.5, 0.013], F32), c([0, 5, -9], I32), axis=1
        ),
        x,
    )


def test_quantize_scalar_data():
    x = np.array(2.5, np.float32)
    check_canonical(lambda v: relay.qnn.op.quantize(v, c([1.0], F32), c([0], I32)), x)


def test_dequantize():
    q = np.arange(-128, 128, dtype=np.int8).reshape(16, 16)
    check_canonical(
        lambda v: relay.qnn.op.dequantize(
            v, c(np.linspace(0.01, 0.2, 16), F32), c(np.arange(16) - 8, I32), axis=0
        ),
        q,
    )


@pytest.mark.parametrize("rounding", ["None", "UPWARD", "TONEAREST"])
@pytest.mark.parametrize("out_dtype", ["int8", "uint8", "int32"])
def test_requantize(rounding: str, out_dtype: str):
    rng = np.random.default_rng(2)
    acc = rng.integers(-(2**30), 2**30, size=(2, 4, 6)).astype(np.int32)
    acc[0, :, :3] = [[1, 3, 5], [-1, -3, -5], [7, 9, 11], [-7, -(2**31), 2**31 - 1]]
    check_canonical(
        lambda v: relay.qnn.op.requantize(
            v,
            c([0.5, 0.5, 0.001, 0.02], F32),
            c(3, I32),
            c(1.0, F32),
            c(-2, I32),
            axis=1,
            rounding=rounding,
            out_dtype=out_dtype,
        ),
        acc,
    )


def test_conv2d_dense_batch_matmul():
    rng = np.random.default_rng(3)
    x = rng.integers(0, 256, size=(1, 4, 6, 6)).astype(np.uint8)
    w = rng.integers(-128, 128, size=(4, 2, 3, 3)).astype(np.int8)
    check_canonical(
        lambda a, b: relay.qnn.op.conv2d(
            a,
            b,
            c(120, I32),
            c(-1, I32),
            c(0.1, F32),
            c(np.full(4, 0.2), F32),
            kernel_size=3,
            channels=4,
            padding=1,
            groups=2,
        ),
        x,
        w,
    )
    d = rng.integers(-128, 128, size=(3, 8)).astype(np.int8)
    k = rng.integers(-128, 128, size=(5, 8)).astype(np.int8)
    check_canonical(
        lambda a, b: relay.qnn.op.dense(a, b, c(4, I32), c(2, I32), 0.5, 0.5, units=5),
        d,
        k,
    )
    p = rng.integers(0, 256, size=(2, 3, 8)).astype(np.uint8)
    q = rng.integers(0, 256, size=(2, 5, 8)).astype(np.uint8)
    check_canonical(
        lambda a, b: relay.qnn.op.batch_matmul(
            a, b, c(128, I32), c(127, I32), 1.0, 1.0
        ),
        p,
        q,
    )


def test_conv2d_transpose_canonical_and_built():
    """``qnn.conv2d_transpose`` becomes an int32 ``nn.conv2d_transpose`` (8-bit
    operands legalized to int16 by the build), bit for bit."""
    rng = np.random.default_rng(11)
    x = rng.integers(0, 256, size=(1, 4, 5, 5)).astype(np.uint8)
    w = rng.integers(-128, 128, size=(4, 3, 3, 3)).astype(np.int8)
    mod = check_canonical(
        lambda a, b: relay.qnn.op.conv2d_transpose(
            a,
            b,
            c(131, I32),
            c(-2, I32),
            c(0.1, F32),
            c(0.1, F32),
            strides=2,
            padding=1,
            output_padding=1,
            channels=3,
            kernel_size=3,
        ),
        x,
        w,
    )
    lib = xrelay.build(mod)
    np.testing.assert_array_equal(np.asarray(lib(x, w)), interpret(mod, x, w))


@pytest.mark.parametrize("kind", ["add", "subtract", "mul"])
def test_binary(kind: str):
    rng = np.random.default_rng(4)
    a = rng.integers(0, 256, size=(2, 3, 4)).astype(np.uint8)
    b = rng.integers(0, 256, size=(4,)).astype(np.uint8)
    fn = getattr(relay.qnn.op, kind)
    check_canonical(
        lambda p, q: fn(
            p,
            q,
            c([0.05, 0.1, 0.2], F32),
            c([120, 128, 130], I32),
            c(0.08, F32),
            c(130, I32),
            c(0.1 if kind != "mul" else 3.0, F32),
            c(128, I32),
            lhs_axis=1,
        ),
        a,
        b,
    )


@pytest.mark.parametrize(
    ("kind", "dtype", "scales"),
    [
        ("add", "uint8", (0.5, 0.25, 1.0)),  # ratios 1/2, 1/4: ties everywhere
        ("subtract", "int8", (0.75, 0.5, 1.0)),
        ("add", "uint8", (100.0, 80.0, 0.5)),  # up to 91800: still below 2**22
        ("mul", "uint8", (0.5, 0.25, 1.0)),  # products / 8
        ("mul", "int8", (1.0, 1.0, 1e-4)),
    ],
)
def test_binary_with_constant_parameters_is_bit_exact(
    kind: str, dtype: str, scales: tuple[float, float, float]
):
    """With constant scales and zero points the rounding of ``qnn.add`` /
    ``subtract`` / ``mul`` leaves out the NaN test and the clamp, rounds with the
    two-op ties-to-even form and sums the zero point in int32 (the value is bounded
    by the operands' dtypes); on every pair of 8-bit values (ties included) the
    canonical form and the built code give the reference's bits."""
    info = np.iinfo(np.dtype(dtype))
    values = np.arange(int(info.min), int(info.max) + 1)
    a = np.repeat(values, values.size).astype(dtype).reshape(256, 256)
    b = np.tile(values, values.size).astype(dtype).reshape(256, 256)
    sa, sb, so = scales
    zp = (130, 121, 128) if dtype == "uint8" else (-3, 5, 1)
    fn = getattr(relay.qnn.op, kind)
    mod = check_canonical(
        lambda p, q: fn(
            p,
            q,
            c(sa, F32),
            c(zp[0], I32),
            c(sb, F32),
            c(zp[1], I32),
            c(so, F32),
            c(zp[2], I32),
        ),
        a,
        b,
    )
    text = str(canonicalized(mod).module)
    assert "relay.not_equal" not in text
    assert "i64" not in text
    np.testing.assert_array_equal(xrelay.build(mod)(a, b), interpret(mod, a, b))


@pytest.mark.parametrize("peak", [0.9 * 2**22, 1.5 * 2**22, 2.5 * 2**22])
def test_requantize_of_convolution_sums_is_bit_exact(peak: float):
    """A requantize after a convolution with a constant weight is bounded by the
    sums' reach (data range times the largest sum of ``|weight|`` of an output
    channel), not by int32's: data that drives the sums to that reach, with a
    ratio that puts the largest value just below ``2**22`` (the bounded rounding)
    or beyond it (where that rounding would be wrong: the general one must be
    kept), gives the reference's bits, int32 results so nothing saturates."""
    rng = np.random.default_rng(7)
    w = rng.integers(-128, 128, (2, 64, 1, 1)).astype(np.int8)
    w[0] = 127
    x = rng.integers(0, 256, (1, 64, 6, 6)).astype(np.uint8)
    x[..., 0, 0] = 255  # channel 0 at its reach 64 * 127 * 255
    reach = 64 * 127 * 255
    ratio = np.float32(peak / reach)

    def body(v: Any) -> Any:
        acc = relay.qnn.op.conv2d(
            v,
            c(w, "int8"),
            c(0, I32),
            c(0, I32),
            c(1.0, F32),
            c(1.0, F32),
            kernel_size=(1, 1),
            channels=2,
        )
        return relay.qnn.op.requantize(
            acc, c(ratio, F32), c(0, I32), c(1.0, F32), c(3, I32), out_dtype="int32"
        )

    mod = check_canonical(body, x)
    text = str(canonicalized(mod).module)
    assert ("relay.reinterpret" in text) == (peak < 2**22)
    got = np.asarray(xrelay.build(mod)(x))
    want = interpret(mod, x)
    np.testing.assert_array_equal(got, want)
    assert np.abs(want).max() > 0.8 * peak


@pytest.mark.parametrize("dtype", ["int8", "uint8", "int32"])
def test_qnn_ops_of_constants_become_the_references_constant(dtype: str):
    """A QNN op whose operands are constants (ties, saturation, NaN, infinities)
    canonicalizes to one constant: the bits the op's numpy semantics give."""
    x = tricky((3, 8), 9)
    zp = {"int8": -3, "uint8": 128, "int32": 0}[dtype]
    q = relay.qnn.op.quantize(c(x, F32), c(0.25, F32), c(zp, I32), out_dtype=dtype)
    mod = relay.IRModule.from_expr(relay.Function([], q))
    want = interpret(mod)
    canon = canonicalized(mod)
    names = [op.name for op in canon.module.walk() if op.name.startswith("relay.")]
    assert set(names) == {"relay.constant"}
    got = interpret(canon)
    np.testing.assert_array_equal(got, want)
    assert got.dtype == want.dtype


def test_concatenate_and_avg_pool2d():
    rng = np.random.default_rng(5)
    a = rng.integers(-128, 128, size=(1, 2, 5, 5)).astype(np.int8)
    b = rng.integers(-128, 128, size=(1, 3, 5, 5)).astype(np.int8)
    s, z = c(0.4, F32), c(-1, I32)
    check_canonical(
        lambda p, q: relay.qnn.op.concatenate(
            [p, q], [c(0.1, F32), s], [c(3, I32), z], s, z, axis=1
        ),
        a,
        b,
    )
    check_canonical(
        lambda p: relay.qnn.op.avg_pool2d(
            p,
            c(0.1, F32),
            c(3, I32),
            c(0.05, F32),
            c(-7, I32),
            pool_size=3,
            strides=2,
            padding=1,
            count_include_pad=False,
        ),
        a,
    )


def test_concatenate_with_the_output_parameters_is_a_plain_concatenate():
    s, z = c(0.4, F32), c(-1, I32)
    x = relay.var("x", shape=(2,), dtype="int8")
    mod = relay.IRModule.from_expr(
        relay.Function([x], relay.qnn.op.concatenate([x, x], [s, s], [z, z], s, z, 0))
    )
    names = [op.name for op in canonicalized(mod).module.walk()]
    assert "relay.concatenate" in names
    assert "relay.cast" not in names
    assert "relay.multiply" not in names


# -- the pass and the build --------------------------------------------------------------


def test_the_pass_is_registered_like_relays():
    p = relay.qnn.transform.CanonicalizeOps()
    assert p.info.name == "QnnCanonicalize"
    assert p.info.opt_level == 1
    assert list(p.info.required) == ["InferType"]
    assert PASS_PREFIX.index("QnnCanonicalize") < PASS_PREFIX.index("FoldConstant")


def test_the_input_module_is_left_as_it_was():
    x = relay.var("x", shape=(3,), dtype="float32")
    mod = relay.IRModule.from_expr(
        relay.Function([x], relay.qnn.op.quantize(x, c(0.5, F32), c(0, I32)))
    )
    mod = relay.transform.InferType()(mod)
    before = str(mod)
    relay.qnn.transform.CanonicalizeOps()(mod)
    assert str(mod) == before


def test_fold_constant_folds_qnn_only_when_asked():
    x = c([1.25, -3.0], F32)
    mod = relay.IRModule.from_expr(
        relay.Function([], relay.qnn.op.quantize(x, c(0.5, F32), c(0, I32)))
    )
    kept = relay.transform.FoldConstant()(mod)
    assert qnn_ops_in(kept) == ["relay.qnn.quantize"]
    folded = relay.transform.FoldConstant(fold_qnn=True)(mod)
    assert qnn_ops_in(folded) == []
    assert interpret(folded).tolist() == [2, -6]


def small_qnn_network() -> tuple[Any, np.ndarray]:
    """quantize -> conv (per-channel) -> requantize -> avg_pool -> add / mul ->
    concatenate -> dequantize."""
    rng = np.random.default_rng(6)
    x = relay.var("x", shape=(1, 4, 6, 6), dtype="float32")
    q = relay.qnn.op.quantize(x, c(0.05, F32), c(128, I32), out_dtype="uint8")
    w = c(rng.integers(-127, 128, size=(8, 4, 3, 3)), "int8")
    ks = c(rng.uniform(0.001, 0.01, size=8), F32)
    acc = relay.qnn.op.conv2d(
        q, w, c(128, I32), c(0, I32), c(0.05, F32), ks, 3, 8, padding=1
    )
    rq = relay.qnn.op.requantize(
        acc,
        relay.multiply(c(0.05, F32), ks),
        c(0, I32),
        c(0.1, F32),
        c(3, I32),
        axis=1,
        out_dtype="uint8",
    )
    pool = relay.qnn.op.avg_pool2d(
        rq, c(0.1, F32), c(3, I32), c(0.07, F32), c(5, I32), 3, 1, 1
    )
    params = (c(0.1, F32), c(3, I32), c(0.07, F32), c(5, I32))
    add = relay.qnn.op.add(rq, pool, *params, c(0.12, F32), c(7, I32))
    mul = relay.qnn.op.mul(rq, pool, *params, c(0.3, F32), c(2, I32))
    cat = relay.qnn.op.concatenate(
        [add, mul], [c(0.12, F32), c(0.3, F32)], [c(7, I32), c(2, I32)], 0.2, 4, 1
    )
    out = relay.qnn.op.dequantize(cat, c(0.2, F32), c(4, I32))
    mod = relay.IRModule.from_expr(relay.Function([x], out))
    xs = tricky((1, 4, 6, 6), 7, step=0.05)
    return mod, xs


def test_build_runs_qnn_programs_bit_for_bit():
    mod, xs = small_qnn_network()
    want = interpret(mod, xs)
    lib = xrelay.build(mod)
    np.testing.assert_array_equal(np.asarray(lib(xs)), want)


def test_build_at_opt_level_0_skips_the_pass_and_says_why():
    mod, _ = small_qnn_network()
    with PassContext(opt_level=0):
        with pytest.raises(Exception, match="relay.qnn.quantize: no lowering") as err:
            xrelay.build(mod)
    assert "qnn-canonicalize" in str(err.value)


@pytest.mark.parametrize("rounding", ["None", "UPWARD", "TONEAREST"])
def test_build_rounding_and_saturation(rounding: str):
    x = relay.var("x", shape=(40,), dtype="float32")
    q = relay.qnn.op.quantize(x, c(0.5, F32), c(0, I32), out_dtype="int32")
    r = relay.qnn.op.requantize(
        q, c(0.5, F32), c(1, I32), c(1.0, F32), c(-3, I32), rounding=rounding
    )
    mod = relay.IRModule.from_expr(relay.Function([x], relay.Tuple([q, r])))
    xs = tricky((40,), 8, step=0.5)
    xs[:8] = [0.25, 0.75, 1.25, -0.25, -0.75, -1.25, 3e9, -3e9]
    want = interpret(mod, xs)
    got = xrelay.build(mod)(xs)
    for g, w in zip(got, want, strict=True):
        np.testing.assert_array_equal(np.asarray(g), w)


def test_int_bound_follows_only_value_keeping_ops():
    """``QnnBuilder.int_bound`` (what bounds a requantize) gives a bound through
    widening casts and sums, and none where the value may wrap: an unsigned
    difference, a cast to an unsigned type of a signed value, a sum beyond the
    dtype."""
    from xdsl.ir import Block

    from xrelay.dialects.relay.elementwise import AddOp, CastOp, SubtractOp
    from xrelay.dialects.relay.qnn_canonical import QnnBuilder
    from xrelay.dialects.relay.testing import type_of

    block = Block(
        arg_types=[type_of(np.zeros(4, np.uint8)), type_of(np.zeros(4, np.int16))]
    )
    u8, i16 = block.args

    def op(cls: Any, operands: list[Any], attrs: dict[str, Any] | None = None) -> Any:
        made = cls.make(operands, attrs or {})
        block.add_op(made)
        return made.results[0]

    wide = op(CastOp, [u8], {"dtype": "int32"})
    assert wide.owner is not None
    b = QnnBuilder(wide.owner)
    assert b.int_bound(wide) == 255
    assert b.int_bound(op(AddOp, [wide, wide])) == 510
    narrow = op(CastOp, [op(AddOp, [wide, wide])], {"dtype": "int16"})
    assert b.int_bound(narrow) == 510
    assert b.int_bound(op(SubtractOp, [u8, u8])) is None
    assert b.int_bound(op(AddOp, [u8, u8])) is None  # 510 wraps in uint8
    assert b.int_bound(op(CastOp, [i16], {"dtype": "uint16"})) is None
