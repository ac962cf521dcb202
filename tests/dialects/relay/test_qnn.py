"""The QNN ops' numpy semantics (``relay.qnn.*``) against hand-written references:
ties rounded to even (2.5 -> 2), saturation at both ends, per-channel parameters,
int32 accumulation with zero points, the float32 requantize multiplier; built with
the ``relay.qnn.op`` builders (TVM's signatures) and run by the interpreter."""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np
import pytest

from xrelay import relay
from xrelay.runtime.interpreter import interpret

F32, I32 = "float32", "int32"


def c(value: Any, dtype: str) -> Any:
    return relay.const(np.asarray(value, dtype=dtype), dtype)


def run(inputs: dict[str, np.ndarray], body: Any, vars_: list[Any]) -> Any:
    mod = relay.IRModule.from_expr(relay.Function(vars_, body))
    return interpret(mod, *[inputs[v.name_hint] for v in vars_])


def var_of(name: str, a: np.ndarray) -> Any:
    return relay.var(name, shape=a.shape, dtype=str(a.dtype))


def one(op: Any, *arrays: np.ndarray) -> Any:
    """Run ``op(v0, v1, ...)`` on ``arrays`` passed as variables."""
    vs = [var_of(f"v{i}", a) for i, a in enumerate(arrays)]
    return run({f"v{i}": a for i, a in enumerate(arrays)}, op(*vs), vs)


def sat(value: int, dtype: str) -> int:
    info = np.iinfo(dtype)
    return max(int(info.min), min(int(info.max), value))


def round_half_even(v: float) -> int:
    """Python's ``round`` rounds ties to even."""
    return round(v)


# -- quantize ----------------------------------------------------------------------------


def test_quantize_rounds_ties_to_even():
    x = np.array([0.5, 1.5, 2.5, 3.5, -0.5, -1.5, -2.5, 1.25, 0.75], np.float32)
    out = one(lambda v: relay.qnn.op.quantize(v, c(1.0, F32), c(0, I32)), x)
    assert out.dtype == np.int8
    assert out.tolist() == [0, 2, 2, 4, 0, -2, -2, 1, 1]
    # with a scale: 1.25 / 0.5 = 2.5 -> 2, 1.75 / 0.5 = 3.5 -> 4, then + zero point
    x = np.array([1.25, 1.75, -1.25, -1.75], np.float32)
    out = one(
        lambda v: relay.qnn.op.quantize(v, c(0.5, F32), c(10, I32), out_dtype="uint8"),
        x,
    )
    assert out.dtype == np.uint8
    assert out.tolist() == [12, 14, 8, 6]


@pytest.mark.parametrize(
    ("dtype", "zp", "expected"),
    [
        ("int8", 0, [127, -128, 127, -128, -128, 5]),
        ("uint8", 128, [255, 0, 255, 0, 0, 133]),
        (
            "int32",
            0,
            [2147483647, -2147483648, 2147483647, -2147483648, -2147483648, 5],
        ),
        ("int16", -5, [32767, -32768, 32767, -32768, -32768, 0]),
    ],
)
def test_quantize_saturates_at_both_ends(dtype: str, zp: int, expected: list[int]):
    # NaN becomes the type's smallest value, as onnxruntime's x86 kernels give
    x = np.array([1e12, -1e12, np.inf, -np.inf, np.nan, 5.0], np.float32)
    out = one(
        lambda v: relay.qnn.op.quantize(v, c(1.0, F32), c(zp, I32), out_dtype=dtype),
        x,
    )
    assert out.dtype == np.dtype(dtype)
    assert out.tolist() == expected


def test_quantize_per_channel_divides_in_float32():
    rng = np.random.default_rng(1)
    x = rng.normal(size=(2, 3, 4)).astype(np.float32) * 4
    scales = np.array([0.1, 0.03, 0.7], np.float32)
    zps = np.array([-3, 0, 100], np.int32)
    out = one(
        lambda v: relay.qnn.op.quantize(v, c(scales, F32), c(zps, I32), axis=1),
        x,
    )
    for n, k, j in itertools.product(range(2), range(3), range(4)):
        q = round_half_even(float(x[n, k, j] / scales[k])) + int(zps[k])
        assert out[n, k, j] == sat(q, "int8")


# -- dequantize --------------------------------------------------------------------------


def test_dequantize_per_tensor_and_per_channel():
    q = np.array([[0, 128, 255], [7, 130, 1]], np.uint8)
    out = one(lambda v: relay.qnn.op.dequantize(v, c(0.5, F32), c(128, I32)), q)
    assert out.dtype == np.float32
    assert out.tolist() == [[-64.0, 0.0, 63.5], [-60.5, 1.0, -63.5]]
    out = one(
        lambda v: relay.qnn.op.dequantize(
            v, c([0.25, 2.0], F32), c([0, 10], I32), axis=0
        ),
        q,
    )
    assert out.tolist() == [[0.0, 32.0, 63.75], [-6.0, 240.0, -18.0]]


def test_dequantize_int32_bias():
    q = np.array([-2147483648, 0, 2147483647], np.int32)
    out = one(lambda v: relay.qnn.op.dequantize(v, c(1.0, F32), c(0, I32)), q)
    assert out.tolist() == [-2147483648.0, 0.0, 2147483648.0]


# -- requantize --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("rounding", "expected"),
    [
        ("None", [0, 2, 2, 0, -2, -2, 1]),
        ("UPWARD", [1, 2, 3, 0, -1, -2, 1]),
        ("TONEAREST", [1, 2, 3, -1, -2, -3, 1]),
    ],
)
def test_requantize_rounding_modes(rounding: str, expected: list[int]):
    # ratio 0.5: acc 1, 3, 5 are ties 0.5, 1.5, 2.5
    acc = np.array([1, 3, 5, -1, -3, -5, 2], np.int32)
    out = one(
        lambda v: relay.qnn.op.requantize(
            v, c(0.5, F32), c(0, I32), c(1.0, F32), c(0, I32), rounding=rounding
        ),
        acc,
    )
    assert out.tolist() == expected


def test_requantize_saturates_and_uses_zero_points():
    acc = np.array([-100000, -300, -5, 0, 5, 300, 100000], np.int32)
    out = one(
        lambda v: relay.qnn.op.requantize(
            v, c(0.5, F32), c(-7, I32), c(0.25, F32), c(100, I32), out_dtype="uint8"
        ),
        acc,
    )
    # (acc + 7) * 2 + 100, saturated to [0, 255]
    assert out.tolist() == [0, 0, 104, 114, 124, 255, 255]


def test_requantize_multiplier_is_a_float32_division():
    """``float32(acc) * float32(s_in / s_out)`` as onnxruntime's ``QLinearConv``: the
    accumulator and the product are rounded to float32 before rounding to an
    integer (an int32 output keeps large products, where float32 steps are > 1)."""
    rng = np.random.default_rng(3)
    acc = rng.integers(-(2**28), 2**28, size=(1, 4, 5, 5)).astype(np.int32)
    s_in = (np.float32(0.02) * rng.uniform(0.001, 0.01, 4).astype(np.float32)).astype(
        np.float32
    )
    s_out = np.float32(0.00037)
    out = one(
        lambda v: relay.qnn.op.requantize(
            v,
            c(s_in, F32),
            c(0, I32),
            c(s_out, F32),
            c(3, I32),
            axis=1,
            out_dtype="int32",
        ),
        acc,
    )
    exact_differs = 0
    for n, k, i, j in itertools.product(range(1), range(4), range(5), range(5)):
        ratio = np.float32(s_in[k] / s_out)
        v = np.float32(np.float32(acc[n, k, i, j]) * ratio)
        assert out[n, k, i, j] == sat(round_half_even(float(v)) + 3, "int32")
        exact = int(acc[n, k, i, j]) * float(s_in[k]) / float(s_out)
        exact_differs += out[n, k, i, j] != round(exact) + 3
    assert exact_differs > 0  # the float32 rule is visible in this data


# -- integer convolution and products ----------------------------------------------------


def conv_reference(
    x: np.ndarray,
    w: np.ndarray,
    zx: int,
    zw: int,
    pad: int,
    stride: int,
    groups: int,
) -> np.ndarray:
    """Loops in Python ints; padding holds the input zero point."""
    n, cin, h, wd = x.shape
    cout, cpg, kh, kw = w.shape
    xp = np.full((n, cin, h + 2 * pad, wd + 2 * pad), zx, np.int64)
    xp[:, :, pad : pad + h, pad : pad + wd] = x
    oh = (h + 2 * pad - kh) // stride + 1
    ow = (wd + 2 * pad - kw) // stride + 1
    out = np.zeros((n, cout, oh, ow), np.int64)
    per_group = cout // groups
    for b, o, i, j in itertools.product(range(n), range(cout), range(oh), range(ow)):
        g = o // per_group
        total = 0
        for cc, a, bb in itertools.product(range(cpg), range(kh), range(kw)):
            xv = int(xp[b, g * cpg + cc, i * stride + a, j * stride + bb]) - zx
            total += xv * (int(w[o, cc, a, bb]) - zw)
        out[b, o, i, j] = total
    return out


@pytest.mark.parametrize(("groups", "pad", "stride"), [(1, 1, 1), (2, 0, 2), (4, 1, 1)])
def test_conv2d_accumulates_centered_operands_in_int32(
    groups: int, pad: int, stride: int
):
    rng = np.random.default_rng(groups)
    x = rng.integers(0, 256, size=(1, 4, 5, 5)).astype(np.uint8)
    w = rng.integers(-128, 128, size=(4, 4 // groups, 3, 3)).astype(np.int8)
    out = one(
        lambda a, b: relay.qnn.op.conv2d(
            a,
            b,
            c(131, I32),
            c(-2, I32),
            c(0.1, F32),
            c([0.1, 0.2, 0.3, 0.4], F32),
            kernel_size=3,
            channels=4,
            padding=pad,
            strides=stride,
            groups=groups,
        ),
        x,
        w,
    )
    assert out.dtype == np.int32
    np.testing.assert_array_equal(
        out, conv_reference(x, w, 131, -2, pad, stride, groups)
    )


def test_conv2d_nhwc_matches_nchw():
    rng = np.random.default_rng(5)
    x = rng.integers(-128, 128, size=(1, 3, 4, 4)).astype(np.int8)
    w = rng.integers(-128, 128, size=(2, 3, 2, 2)).astype(np.int8)
    out = one(
        lambda a, b: relay.qnn.op.conv2d(
            a,
            b,
            c(5, I32),
            c(0, I32),
            c(1.0, F32),
            c(1.0, F32),
            kernel_size=2,
            channels=2,
            data_layout="NHWC",
            kernel_layout="HWIO",
        ),
        x.transpose(0, 2, 3, 1).copy(),
        w.transpose(2, 3, 1, 0).copy(),
    )
    ref = conv_reference(x, w, 5, 0, 0, 1, 1)
    np.testing.assert_array_equal(out, ref.transpose(0, 2, 3, 1))


def conv_transpose_reference(
    x: np.ndarray, w: np.ndarray, zx: int, zw: int, stride: int, pad: int
) -> np.ndarray:
    """Scatter every centered input pixel times the kernel (``IOHW``) into the
    output, then crop ``pad`` on each side."""
    n, ci, h, wd = x.shape
    _, co, kh, kw = w.shape
    full = np.zeros((n, co, (h - 1) * stride + kh, (wd - 1) * stride + kw), np.int64)
    xc = x.astype(np.int64) - zx
    wc = w.astype(np.int64) - zw
    for b, cc, i, j in itertools.product(range(n), range(ci), range(h), range(wd)):
        full[b, :, i * stride : i * stride + kh, j * stride : j * stride + kw] += (
            xc[b, cc, i, j] * wc[cc]
        )
    return full[:, :, pad : full.shape[2] - pad, pad : full.shape[3] - pad]


def test_conv2d_transpose_accumulates_centered_operands_in_int32():
    rng = np.random.default_rng(9)
    x = rng.integers(0, 256, size=(1, 3, 4, 4)).astype(np.uint8)
    w = rng.integers(-128, 128, size=(3, 2, 3, 3)).astype(np.int8)
    out = one(
        lambda a, b: relay.qnn.op.conv2d_transpose(
            a,
            b,
            c(128, I32),
            c(3, I32),
            c(0.5, F32),
            c([0.1, 0.2], F32),
            strides=2,
            padding=1,
            channels=2,
            kernel_size=3,
        ),
        x,
        w,
    )
    assert out.dtype == np.int32
    np.testing.assert_array_equal(out, conv_transpose_reference(x, w, 128, 3, 2, 1))


def test_conv2d_transpose_nhwc_hwio_matches_nchw():
    rng = np.random.default_rng(10)
    x = rng.integers(-128, 128, size=(1, 2, 3, 3)).astype(np.int8)
    w = rng.integers(-128, 128, size=(2, 4, 2, 2)).astype(np.int8)
    out = one(
        lambda a, b: relay.qnn.op.conv2d_transpose(
            a,
            b,
            c(-1, I32),
            c(0, I32),
            c(1.0, F32),
            c(1.0, F32),
            channels=4,
            kernel_size=2,
            data_layout="NHWC",
            kernel_layout="HWIO",
        ),
        x.transpose(0, 2, 3, 1).copy(),
        w.transpose(2, 3, 0, 1).copy(),
    )
    ref = conv_transpose_reference(x, w, -1, 0, 1, 0)
    np.testing.assert_array_equal(out, ref.transpose(0, 2, 3, 1))


def test_dense_and_batch_matmul():
    rng = np.random.default_rng(6)
    x = rng.integers(0, 256, size=(3, 7)).astype(np.uint8)
    w = rng.integers(-128, 128, size=(5, 7)).astype(np.int8)
    out = one(
        lambda a, b: relay.qnn.op.dense(
            a, b, c(128, I32), c(3, I32), c(0.1, F32), c(np.ones(5), F32), units=5
        ),
        x,
        w,
    )
    ref = (x.astype(np.int64) - 128) @ (w.astype(np.int64) - 3).T
    assert out.dtype == np.int32
    np.testing.assert_array_equal(out, ref)
    a = rng.integers(-128, 128, size=(2, 3, 6)).astype(np.int8)
    b = rng.integers(-128, 128, size=(2, 6, 4)).astype(np.int8)
    out = one(
        lambda p, q: relay.qnn.op.batch_matmul(
            p, q, c(-1, I32), c(2, I32), c(0.5, F32), c(0.5, F32), transpose_b=False
        ),
        a,
        b,
    )
    ref = (a.astype(np.int64) + 1) @ (b.astype(np.int64) - 2)
    np.testing.assert_array_equal(out, ref)


# -- quantized elementwise ---------------------------------------------------------------


def binary_reference(
    kind: str, a: int, b: int, params: tuple[float, int, float, int, float, int]
) -> int:
    sa, za, sb, zb, so, zo = params
    f = np.float32
    if kind == "mul":
        ratio = f(f(f(sa) * f(sb)) / f(so))
        v = f(f((a - za) * (b - zb)) * ratio)
    else:
        va = f(f(a - za) * f(f(sa) / f(so)))
        vb = f(f(b - zb) * f(f(sb) / f(so)))
        v = f(va + vb) if kind == "add" else f(va - vb)
    return sat(round_half_even(float(v)) + zo, "uint8")


@pytest.mark.parametrize("kind", ["add", "subtract", "mul"])
def test_binary_ops(kind: str):
    rng = np.random.default_rng(7)
    a = rng.integers(0, 256, size=(2, 3)).astype(np.uint8)
    b = rng.integers(0, 256, size=(3,)).astype(np.uint8)
    params = (0.05, 120, 0.08, 130, 0.1 if kind != "mul" else 2.0, 128)
    fn = getattr(relay.qnn.op, kind)
    out = one(
        lambda p, q: fn(
            p,
            q,
            c(params[0], F32),
            c(params[1], I32),
            c(params[2], F32),
            c(params[3], I32),
            c(params[4], F32),
            c(params[5], I32),
        ),
        a,
        b,
    )
    assert out.dtype == np.uint8
    for i, j in itertools.product(range(2), range(3)):
        expected = binary_reference(kind, int(a[i, j]), int(b[j]), params)
        assert out[i, j] == expected
        # and within one step of the exact real-number result
        real_a = params[0] * (int(a[i, j]) - params[1])
        real_b = params[2] * (int(b[j]) - params[3])
        real = {"add": real_a + real_b, "subtract": real_a - real_b}.get(
            kind, real_a * real_b
        )
        ideal = sat(round(real / params[4]) + params[5], "uint8")
        assert abs(int(out[i, j]) - ideal) <= 1


def test_add_ties_and_saturation():
    # same scales: (a - 0) + (b - 0) exactly, then ties of 0.5 / 1.5 with scale 2
    a = np.array([1, 3, 100, 0], np.int8)
    b = np.array([0, 0, 100, -128], np.int8)
    out = one(
        lambda p, q: relay.qnn.op.add(
            p, q, c(1.0, F32), c(0, I32), c(1.0, F32), c(0, I32), c(2.0, F32), c(0, I32)
        ),
        a,
        b,
    )
    assert out.tolist() == [0, 2, 100, -64]
    out = one(
        lambda p, q: relay.qnn.op.add(
            p, q, c(1.0, F32), c(0, I32), c(1.0, F32), c(0, I32), c(1.0, F32), c(0, I32)
        ),
        a,
        b,
    )
    assert out.tolist() == [1, 3, 127, -128]


def test_add_per_channel_lhs():
    a = np.array([[10, 10], [10, 10]], np.uint8)
    b = np.array([0, 4], np.uint8)
    out = one(
        lambda p, q: relay.qnn.op.add(
            p,
            q,
            c([1.0, 2.0], F32),
            c([0, 5], I32),
            c(1.0, F32),
            c(0, I32),
            c(1.0, F32),
            c(0, I32),
            lhs_axis=0,
        ),
        a,
        b,
    )
    assert out.tolist() == [[10, 14], [10, 14]]


# -- concatenate and avg_pool2d ----------------------------------------------------------


def test_concatenate_requantizes_each_input():
    a = np.array([[0, 50, 255]], np.uint8)
    b = np.array([[1, 2, 3]], np.uint8)
    out = one(
        lambda p, q: relay.qnn.op.concatenate(
            [p, q], [c(0.5, F32), c(1.0, F32)], [c(10, I32), c(0, I32)], 1.0, 0, axis=0
        ),
        a,
        b,
    )
    # a: (a - 10) * 0.5, ties to even (-5, 20, 122.5 -> 122); b copied at ratio 1
    assert out.tolist() == [[0, 20, 122], [1, 2, 3]]


def test_concatenate_copies_an_input_with_the_output_parameters():
    s, z = c(0.3, F32), c(7, I32)
    x = relay.var("x", shape=(3,), dtype="int8")
    body = relay.qnn.op.concatenate([x, x], [s, s], [z, z], s, z, axis=0)
    a = np.array([-128, 0, 127], np.int8)
    out = run({"x": a}, body, [x])
    assert out.tolist() == [-128, 0, 127, -128, 0, 127]


@pytest.mark.parametrize("include_pad", [True, False])
def test_avg_pool2d(include_pad: bool):
    rng = np.random.default_rng(9)
    x = rng.integers(0, 256, size=(1, 2, 4, 4)).astype(np.uint8)
    si, zi, so, zo = 0.1, 100, 0.07, 3
    out = one(
        lambda p: relay.qnn.op.avg_pool2d(
            p,
            c(si, F32),
            c(zi, I32),
            c(so, F32),
            c(zo, I32),
            pool_size=3,
            strides=2,
            padding=1,
            count_include_pad=include_pad,
        ),
        x,
    )
    assert out.dtype == np.uint8
    assert out.shape == (1, 2, 2, 2)
    f = np.float32
    ratio = f(f(si) / f(so))
    for ch, i, j in itertools.product(range(2), range(2), range(2)):
        total, count = 0, 0
        for a, b in itertools.product(range(3), range(3)):
            y, xx = i * 2 - 1 + a, j * 2 - 1 + b
            inside = 0 <= y < 4 and 0 <= xx < 4
            if inside:
                total += int(x[0, ch, y, xx]) - zi
            if inside or include_pad:
                count += 1
        v = f(f(f(total) / f(count)) * ratio)
        assert out[0, ch, i, j] == sat(round_half_even(float(v)) + zo, "uint8")


# -- builders ----------------------------------------------------------------------------


def test_builders_take_numbers_for_parameters():
    x = relay.var("x", shape=(2,), dtype="float32")
    mod = relay.IRModule.from_expr(
        relay.Function([x], relay.qnn.op.quantize(x, 0.5, 3, out_dtype="uint8"))
    )
    text = str(mod)
    assert "relay.qnn.quantize" in text
    assert "tensor<f32>" in text
    assert "tensor<i32>" in text
    assert interpret(mod, np.array([1.25, -1.0], np.float32)).tolist() == [5, 1]


def test_builder_errors():
    with pytest.raises(ValueError, match="compute_dtype"):
        relay.qnn.op.requantize(
            relay.var("x", shape=(2,), dtype="int32"),
            1.0,
            0,
            1.0,
            0,
            compute_dtype="int64",
        )
    x = relay.var("x", shape=(2,), dtype="int8")
    with pytest.raises(ValueError, match="2 inputs but 1 scales"):
        relay.qnn.op.concatenate([x, x], [1.0], [0, 0], 1.0, 0, axis=0)


def test_a_type_error_names_the_op():
    x = relay.var("x", shape=(2, 3), dtype="float32")
    body = relay.qnn.op.quantize(x, c([1.0, 2.0], F32), c(0, I32))
    with pytest.raises(relay.BuildError, match="qnn.quantize.*output_scale has 2"):
        relay.IRModule.from_expr(relay.Function([x], body))
