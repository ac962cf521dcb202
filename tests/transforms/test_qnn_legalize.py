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
from xrelay.dialects.relay.qnn_canonical import requantize_plan
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


def test_zero_point_not_a_constant_stays_int32():
    w = s8((3, 6), 6)
    out = check(
        lambda x, z: relay.qnn.op.dense(
            x, c(w, "int8"), z, c(0, I32), c(1.0, F32), c(1.0, F32), 3
        ),
        u8((2, 6), 7),
        np.array(9, np.int32),
    )
    assert input_types(out, "relay.nn.dense") == ["i32", "i32"]


def test_pipeline_runs_legalize_before_canonicalize():
    assert PASS_PREFIX.index("QnnLegalize") + 1 == PASS_PREFIX.index("QnnCanonicalize")
    assert relay.qnn.transform.Legalize().info.name == "QnnLegalize"


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
