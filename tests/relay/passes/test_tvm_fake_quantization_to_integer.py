"""FakeQuantizationToInteger (``relay.transform.FakeQuantizationToInteger()``): each
``dequantize -> float ops -> quantize`` region becomes integer ops that compute what
the float region computes up to one rounding step (the integer form rounds once at
the end where the float region rounds its float32 sum), regions with an op that has no
integer form stay float and exact, and ``xrelay.build`` runs the pass by default."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import xrelay
from xrelay import relay
from xrelay.pass_manager import PassContext, PassInfo, PassInstrument
from xrelay.runtime.interpreter import interpret
from xrelay.transforms.pipeline import PASS_PREFIX

F32, I32 = "float32", "int32"


def c(value: Any, dtype: str) -> Any:
    return relay.const(np.asarray(value, dtype=dtype), dtype)


def dq(x: Any, scale: Any, zp: Any, axis: int = -1) -> Any:
    return relay.qnn.op.dequantize(x, c(scale, F32), c(zp, I32), axis=axis)


def q(x: Any, scale: float, zp: int, dtype: str = "int8") -> Any:
    return relay.qnn.op.quantize(x, c(scale, F32), c(zp, I32), out_dtype=dtype)


def op_names(mod: Any) -> list[str]:
    return [op.name for op in mod.module.walk()]


def rewritten(body: Callable[..., Any], *inputs: np.ndarray) -> tuple[Any, Any]:
    """``(module, module after FakeQuantizationToInteger)`` for ``body`` on
    variables shaped like ``inputs``."""
    vs = [
        relay.var(f"v{i}", shape=a.shape, dtype=str(a.dtype))
        for i, a in enumerate(inputs)
    ]
    mod = relay.IRModule.from_expr(relay.Function(vs, body(*vs)))
    mod = relay.transform.InferType()(mod)
    return mod, relay.transform.FakeQuantizationToInteger()(mod)


def check_close(body: Callable[..., Any], *inputs: np.ndarray, steps: int = 1) -> Any:
    """The integer form gives the float region's integers to within ``steps``
    (and exactly on at least three quarters of them); returns the rewritten module."""
    mod, out = rewritten(body, *inputs)
    want = np.asarray(interpret(mod, *inputs))
    got = np.asarray(interpret(out, *inputs))
    assert got.dtype == want.dtype
    diff = np.abs(got.astype(np.int64) - want.astype(np.int64))
    assert diff.max() <= steps, diff.max()
    assert np.mean(diff == 0) >= 0.75
    return out


def int8(rng: np.random.Generator, shape: tuple[int, ...], dtype: str = "int8") -> Any:
    info = np.iinfo(dtype)
    return rng.integers(info.min, info.max + 1, shape).astype(dtype)


@pytest.fixture
def rng() -> np.random.Generator:
    return np.random.default_rng(7)


# -- the integer forms ---------------------------------------------------------------------


def test_conv2d_per_channel_bias_relu(rng: np.random.Generator):
    x = int8(rng, (1, 3, 6, 6), "uint8")
    w = int8(rng, (4, 3, 3, 3))
    bias = rng.integers(-2000, 2000, 4).astype(np.int32)
    w_scale = np.array([0.01, 0.02, 0.005, 0.03], np.float32)

    def body(vx: Any) -> Any:
        conv = relay.nn.conv2d(
            dq(vx, 0.05, 120),
            dq(c(w, "int8"), w_scale, [0, 0, 0, 0], axis=0),
            padding=(1, 1),
        )
        b = dq(c(bias, I32), np.float32(0.05) * w_scale, [0] * 4, axis=0)
        return q(relay.nn.relu(relay.nn.bias_add(conv, b)), 0.1, -128)

    out = check_close(body, x)
    names = op_names(out)
    assert "relay.qnn.conv2d" in names
    assert "relay.nn.conv2d" not in names
    assert "relay.qnn.dequantize" not in names


def test_depthwise_conv_and_dense(rng: np.random.Generator):
    x = int8(rng, (1, 4, 5, 5))
    w = int8(rng, (4, 1, 3, 3))
    d = int8(rng, (3, 16))

    def body(vx: Any) -> Any:
        conv = relay.nn.conv2d(
            dq(vx, 0.1, 3), dq(c(w, "int8"), [0.01] * 4, [0] * 4, axis=0), groups=4
        )
        flat = relay.reshape(q(conv, 0.2, 0), (1, 36))
        k = relay.strided_slice(flat, begin=[0, 0], end=[1, 16])
        dense = relay.nn.dense(dq(k, 0.2, 0), dq(c(d, "int8"), 0.03, 0))
        return q(dense, 0.5, 1)

    out = check_close(body, x)
    names = op_names(out)
    assert "relay.qnn.dense" in names
    assert "relay.qnn.conv2d" in names


def test_dense_of_transposed_per_column_weight(rng: np.random.Generator):
    x, w = int8(rng, (4, 8)), int8(rng, (8, 3))
    scales = [0.01, 0.03, 0.02]

    def body(vx: Any) -> Any:
        wt = relay.transpose(dq(c(w, "int8"), scales, [0, 0, 0], axis=1), (1, 0))
        return q(relay.nn.dense(dq(vx, 0.1, 1), wt), 0.4, 0)

    assert "relay.qnn.dense" in op_names(check_close(body, x))


def test_batch_matmul(rng: np.random.Generator):
    a, b = int8(rng, (2, 3, 8)), int8(rng, (2, 5, 8))
    out = check_close(
        lambda va, vb: q(
            relay.nn.batch_matmul(dq(va, 0.1, 2), dq(vb, 0.05, -1)), 2.0, 0
        ),
        a,
        b,
    )
    assert "relay.qnn.batch_matmul" in op_names(out)


@pytest.mark.parametrize("kind", ["add", "subtract", "multiply"])
def test_binary(rng: np.random.Generator, kind: str):
    a, b = int8(rng, (3, 4), "uint8"), int8(rng, (1, 4), "uint8")
    fn = getattr(relay, kind)
    scale = 30.0 if kind == "multiply" else 0.3
    out = check_close(
        lambda va, vb: q(fn(dq(va, 0.1, 128), dq(vb, 0.2, 100)), scale, 7, "uint8"),
        a,
        b,
    )
    qnn = {"add": "add", "subtract": "subtract", "multiply": "mul"}[kind]
    assert f"relay.qnn.{qnn}" in op_names(out)


def test_concatenate_max_pool(rng: np.random.Generator):
    """The quantize's type is wanted through max_pool2d (which keeps its operand's
    type): the concatenation requantizes into it."""
    a, b = int8(rng, (1, 8, 6, 6)), int8(rng, (1, 12, 6, 6))

    def body(va: Any, vb: Any) -> Any:
        cat = relay.concatenate([dq(va, 0.1, 0), dq(vb, 0.2, 5)], axis=1)
        return q(relay.nn.max_pool2d(cat, pool_size=(2, 2), strides=(2, 2)), 0.25, 1)

    names = op_names(check_close(body, a, b))
    assert "relay.qnn.concatenate" in names
    assert "relay.nn.max_pool2d" in names


def test_pools_clip_transpose(rng: np.random.Generator):
    a = int8(rng, (1, 20, 6, 6))

    def body(va: Any) -> Any:
        avg = relay.nn.avg_pool2d(dq(va, 0.1, 4), pool_size=(2, 2), padding=(1, 1))
        glob = relay.nn.global_avg_pool2d(relay.clip(avg, 0.0, 6.0))
        return q(relay.transpose(glob, (0, 2, 3, 1)), 0.05, -3)

    names = op_names(check_close(body, a))
    assert names.count("relay.qnn.avg_pool2d") == 2
    assert "relay.nn.global_avg_pool2d" not in names
    assert "relay.clip" in names


def test_concatenate_without_wanted_type_stays_float(rng: np.random.Generator):
    """Inputs of different types and no quantize wanting a type for the
    concatenation (an avg_pool2d between): no input's type holds the others'
    ranges, so the region stays float (and exact)."""
    a, b = int8(rng, (1, 2, 4, 4)), int8(rng, (1, 2, 4, 4))

    def body(va: Any, vb: Any) -> Any:
        cat = relay.concatenate([dq(va, 0.1, 0), dq(vb, 0.2, 5)], axis=1)
        return q(relay.nn.avg_pool2d(cat, pool_size=(2, 2)), 0.05, 0)

    mod, out = rewritten(body, a, b)
    assert op_names(out) == op_names(mod)


# -- regions that stay float -----------------------------------------------------------------


def test_op_without_integer_form_stays_float(rng: np.random.Generator):
    """TVM's scenario: a region with an op that has no integer form (sigmoid) is left
    alone, and still computes the same bits."""
    a = int8(rng, (2, 8))

    def body(va: Any) -> Any:
        conv = relay.nn.dense(dq(va, 0.1, 0), dq(c(int8(rng, (4, 8)), "int8"), 0.01, 0))
        return q(relay.sigmoid(conv), 1 / 256, -128)

    mod, out = rewritten(body, a)
    assert op_names(out) == op_names(mod)
    np.testing.assert_array_equal(interpret(out, a), interpret(mod, a))


def test_float_value_used_outside_the_region(rng: np.random.Generator):
    a, b = int8(rng, (4,)), int8(rng, (4,))

    def body(va: Any, vb: Any) -> Any:
        s = relay.add(dq(va, 0.1, 0), dq(vb, 0.1, 0))
        return relay.Tuple([q(s, 0.2, 0), s])

    mod, out = rewritten(body, a, b)
    assert "relay.qnn.add" in op_names(out)
    want, got = interpret(mod, a, b), interpret(out, a, b)
    np.testing.assert_array_equal(got[1], want[1])  # the float value stays
    assert np.abs(got[0].astype(int) - want[0].astype(int)).max() <= 1


# -- xrelay.build runs it ----------------------------------------------------------------------


class Ran(PassInstrument):
    def __init__(self) -> None:
        self.names: list[str] = []

    def run_after_pass(self, mod: Any, info: PassInfo) -> None:
        self.names.append(info.name)


def test_build_runs_it_first_and_stays_correct(rng: np.random.Generator):
    assert PASS_PREFIX.index("FakeQuantizationToInteger") < PASS_PREFIX.index(
        "QnnCanonicalize"
    )
    a, b = int8(rng, (2, 16)), int8(rng, (2, 16))
    body = lambda va, vb: q(relay.add(dq(va, 0.1, 3), dq(vb, 0.07, -2)), 0.15, 1)  # noqa: E731
    mod, out = rewritten(body, a, b)
    ran = Ran()
    with PassContext(opt_level=3, instruments=[ran]):
        lib = xrelay.build(mod)
    assert ran.names.index("FakeQuantizationToInteger") < ran.names.index(
        "QnnCanonicalize"
    )
    np.testing.assert_array_equal(lib(a, b), interpret(out, a, b))
