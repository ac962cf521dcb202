"""QnnLegalize (``relay.qnn.transform.Legalize()``): 8-bit operands of the integer
convolution and products centered into int16 give the same integers as the QNN op's
reference (interpreter before == interpreter after Legalize and CanonicalizeOps, bit
for bit, at the extremes of the zero points), and ``xrelay.build`` runs it before
CanonicalizeOps. The requantize canonical form bounded by a constant multiplier
(:func:`requantize_plan`) keeps the bits at and around each bound."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from xrelay import relay
from xrelay.dialects.relay.qnn import QnnOp
from xrelay.dialects.relay.qnn_canonical import quantize_plan, requantize_plan
from xrelay.runtime.interpreter import interpret
from xrelay.transforms.pipeline import PASS_PREFIX

F32, I32 = "float32", "int32"


def c(value: Any, dtype: str) -> Any:
    return relay.const(np.asarray(value, dtype=dtype), dtype)


def legalized(mod: Any) -> Any:
    mod = relay.transform.InferType()(mod)
    mod = relay.qnn.transform.Legalize()(mod)
    return relay.qnn.transform.CanonicalizeOps()(mod)


def input_types(mod: Any, op_name: str) -> list[str]:
    """The operand element types of the ops named ``op_name``."""
    return [
        str(v.type.get_element_type())
        for op in mod.module.walk()
        if op.name == op_name
        for v in op.operands[:2]
    ]


def check(body: Callable[..., Any], *inputs: np.ndarray) -> Any:
    vs = [
        relay.var(f"v{i}", shape=a.shape, dtype=str(a.dtype))
        for i, a in enumerate(inputs)
    ]
    mod = relay.IRModule.from_expr(relay.Function(vs, body(*vs)))
    want = interpret(mod, *inputs)
    out = legalized(mod)
    assert not any(isinstance(op, QnnOp) for op in out.module.walk())
    got = interpret(out, *inputs)
    np.testing.assert_array_equal(got, want)
    return out


def u8(shape: tuple[int, ...], seed: int) -> np.ndarray:
    x = np.random.default_rng(seed).integers(0, 256, shape).astype(np.uint8)
    x.reshape(-1)[:2] = [0, 255]
    return x


def s8(shape: tuple[int, ...], seed: int) -> np.ndarray:
    w = np.random.default_rng(seed).integers(-128, 128, shape).astype(np.int8)
    w.reshape(-1)[:2] = [-128, 127]
    return w


@pytest.mark.parametrize(
    ("zx", "zw", "groups"), [(0, 0, 1), (255, -128, 1), (7, 127, 2)]
)
def test_conv2d(zx: int, zw: int, groups: int):
    w = s8((4, 4 // groups, 3, 3), 1)
    out = check(
        lambda x: relay.qnn.op.conv2d(
            x,
            c(w, "int8"),
            c(zx, I32),
            c(zw, I32),
            c(0.5, F32),
            c([0.1, 0.2, 0.3, 0.4], F32),
            kernel_size=(3, 3),
            channels=4,
            padding=(1, 1),
            groups=groups,
        ),
        u8((1, 4, 5, 5), 0),
    )
    assert input_types(out, "relay.nn.conv2d") == ["i16", "i16"]


def test_dense_and_batch_matmul():
    w = s8((3, 6), 2)
    out = check(
        lambda x: relay.qnn.op.dense(
            x, c(w, "int8"), c(200, I32), c(-5, I32), c(1.0, F32), c(1.0, F32), 3
        ),
        u8((2, 6), 3),
    )
    assert input_types(out, "relay.nn.dense") == ["i16", "i16"]
    out = check(
        lambda a, b: relay.qnn.op.batch_matmul(
            a, b, c(-128, I32), c(128, I32), c(1.0, F32), c(1.0, F32)
        ),
        s8((2, 3, 5), 4),
        u8((2, 4, 5), 5),
    )
    assert input_types(out, "relay.nn.batch_matmul") == ["i16", "i16"]


@pytest.mark.parametrize("zx", [0, 255, 9, -70000, 2**31 - 1])
def test_runtime_zero_point_takes_a_correction(zx: int):
    """An activation zero point known only at run time: the product of the
    uncentered int16 activation with the folded weight, minus the zero point times
    the weight's sums (constant); the same bits as the reference for any zero
    point, also one outside the operand's range (int32 wraps alike)."""
    w = s8((3, 6), 6)
    out = check(
        lambda x, z: relay.qnn.op.dense(
            x, c(w, "int8"), z, c(-128, I32), c(1.0, F32), c(1.0, F32), 3
        ),
        u8((2, 4, 6), 7),
        np.array(zx, np.int32),
    )
    assert input_types(out, "relay.nn.dense") == ["i16", "i16"]
    y = s8((2, 5, 4), 8)
    for transpose_b in (True, False):
        x = s8((2, 3, 4), 9)
        yc = y if transpose_b else np.ascontiguousarray(y.transpose(0, 2, 1))
        out = check(
            lambda a, z, yc=yc, tb=transpose_b: relay.qnn.op.batch_matmul(
                a,
                c(yc, "int8"),
                z,
                c(127, I32),
                c(1.0, F32),
                c(1.0, F32),
                transpose_b=tb,
            ),
            x,
            np.array([zx], np.int32),
        )
        assert input_types(out, "relay.nn.batch_matmul") == ["i16", "i16"]


@pytest.mark.parametrize(("za", "zb"), [(0, -128), (255, 127), (17, 0)])
def test_runtime_zero_points_cast_from_8_bits_center_in_int16(za: int, zb: int):
    """Two activations whose run-time zero points are 8-bit values cast to int32
    (dynamic quantization's): both centered into int16 at run time, the
    reference's bits at the extremes."""
    out = check(
        lambda a, b, x, y: relay.qnn.op.batch_matmul(
            a, b, relay.cast(x, I32), relay.cast(y, I32), c(1.0, F32), c(1.0, F32)
        ),
        u8((2, 3, 8), 10),
        s8((2, 5, 8), 11),
        np.array(za, np.uint8),
        np.array([zb], np.int8),
    )
    assert input_types(out, "relay.nn.batch_matmul") == ["i16", "i16"]


def test_runtime_zero_point_of_two_activations_stays_int32():
    """No correction without a constant weight (nor for a convolution, whose
    padding holds zeros, not the zero point): the int32 form."""
    out = check(
        lambda x, y, z: relay.qnn.op.dense(
            x, y, z, c(0, I32), c(1.0, F32), c(1.0, F32), 3
        ),
        u8((2, 6), 7),
        s8((3, 6), 6),
        np.array(9, np.int32),
    )
    assert input_types(out, "relay.nn.dense") == ["i32", "i32"]
    w = s8((2, 2, 3, 3), 1)
    out = check(
        lambda x, z: relay.qnn.op.conv2d(
            x,
            c(w, "int8"),
            z,
            c(0, I32),
            c(0.5, F32),
            c(0.5, F32),
            kernel_size=(3, 3),
            channels=2,
            padding=(1, 1),
        ),
        u8((1, 2, 4, 4), 0),
        np.array(3, np.int32),
    )
    assert input_types(out, "relay.nn.conv2d") == ["i32", "i32"]


def test_pipeline_runs_legalize_before_canonicalize():
    assert PASS_PREFIX.index("QnnLegalize") + 1 == PASS_PREFIX.index("QnnCanonicalize")
    assert relay.qnn.transform.Legalize().info.name == "QnnLegalize"


# -- quantize with a zero point of known range --------------------------------------

EDGES = np.array(
    [np.nan, np.inf, -np.inf, 0.5, 1.5, 2.5, -0.5, -2.5, 127.5, 128.5, -128.5,
     255.5, 2**22, -(2**22), 2**22 - 0.5, 2**22 + 2, 4194302.5, -4194302.5, 3e9,
     -3e9, 1e-30, -0.0],
    np.float32,
)  # fmt: skip


@pytest.mark.parametrize(
    ("out_dtype", "zp_dtype", "zp"),
    [("uint8", "uint8", 0), ("uint8", "uint8", 255), ("int8", "int8", -128),
     ("int16", "int16", 32767), ("int8", "uint8", 200)],
)  # fmt: skip
def test_quantize_with_a_cast_zero_point_is_exact(
    out_dtype: str, zp_dtype: str, zp: int
):
    """A zero point cast from an 8- or 16-bit value (dynamic quantization's) lies
    in that type's range: the quantize clamps to ``2**22`` and rounds with two
    float ops in int32 (:func:`quantize_plan`), with the reference's bits at NaN,
    the infinities, ties and the clamp's edges."""
    x = np.concatenate([EDGES, np.random.default_rng(3).normal(0, 300, 40)])
    x = x.astype(np.float32)
    for scale in (1.0, 0.5, 3.0):
        out = check(
            lambda v, z, scale=scale: relay.qnn.op.quantize(
                v, c(scale, F32), relay.cast(z, I32), out_dtype=out_dtype
            ),
            x,
            np.array(zp, zp_dtype),
        )
    names = {op.name for op in out.module.walk()}
    assert "relay.sign" not in names  # the two-op rounding
    assert all(
        str(op.results[0].type.get_element_type()) != "i64"
        for op in out.module.walk()
        if op.results and hasattr(op.results[0].type, "get_element_type")
    )


def test_quantize_plan():
    plan = quantize_plan("uint8", (0, 255))
    assert (plan.rounding, plan.wide, plan.bound) == ("magic", False, 2.0**22)
    assert quantize_plan("uint8", None).wide  # unknown zero point: every step
    assert quantize_plan("int32", (0, 255)).wide  # 32-bit results
    assert quantize_plan("int8", (0, 2**21 + 1)).wide  # too far for the clamp


# -- requantize bounded by its constant multiplier --------------------------------


@pytest.mark.parametrize(
    ("ratio", "rounding"),
    [
        (2.0**-10, "magic"),
        (2.0**-9 * 0.999, "magic"),
        (2.0**-9, "shift"),
        (2.0**-8 * 0.999, "shift"),
        (2.0**-8, "general"),
        (3.0, "general"),
    ],
)
def test_requantize_plan(ratio: float, rounding: str):
    plan = requantize_plan("int32", np.asarray(ratio, np.float32), np.asarray(5))
    assert plan.rounding == rounding
    assert not plan.nan
    assert not plan.clamp
    assert plan.wide == (ratio > 1)
    assert requantize_plan("int32", None, None).nan  # not a constant: every step
    inf = np.asarray(np.inf, np.float32)
    assert requantize_plan("int32", inf, np.asarray(0)).nan


@pytest.mark.parametrize("ratio", [2.0**-10, 2.0**-9 * 0.999, 2.0**-9, 2.0**-8, 3.0])
def test_requantize_bounded_is_exact(ratio: float):
    rng = np.random.default_rng(8)
    ends = [-(2**31), 2**31 - 1, -(2**31) + 1, 2**31 - 2, 0, 1, -1]
    acc = np.concatenate(
        [ends, rng.integers(-(2**31), 2**31, 200), rng.integers(-3000, 3000, 200)]
    ).astype(np.int32)
    # ties: values whose product is k + 0.5
    ties = (np.arange(-50, 50) * 2 + 1).astype(np.float64) / 2 / ratio
    ties = ties[np.abs(ties) < 2**31].astype(np.int64).astype(np.int32)
    acc = np.concatenate([acc, ties])
    for out_dtype, zp in (("uint8", 128), ("int8", -3), ("int32", 11)):
        check(
            lambda a, zp=zp, out_dtype=out_dtype: relay.qnn.op.requantize(
                a,
                c(ratio, F32),
                c(0, I32),
                c(1.0, F32),
                c(zp, I32),
                out_dtype=out_dtype,
            ),
            acc,
        )
