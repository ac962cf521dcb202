"""ToMixedPrecision: TVM's scenarios (test_to_mixed_precision.py) on xrelay.

A converted model's outputs are within bfloat16 (float16) tolerance of float32; ops
asked NEVER stay float32 and stay correct; the categories come from the ops and from
registered conversion functions; the input module is left as it was.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from xdsl.dialects.builtin import ModuleOp, TensorType
from xdsl.dialects.func import FuncOp

import xrelay
from xrelay import relay
from xrelay.dialects.relay import dtypes
from xrelay.dialects.relay.mixed_precision import (
    MIXED_PRECISION_ALWAYS,
    MIXED_PRECISION_FOLLOW,
    MIXED_PRECISION_NEVER,
)
from xrelay.dialects.relay.nn import Conv2DOp, DenseOp, SoftmaxOp
from xrelay.dialects.relay.op_attrs import reset_op_attr
from xrelay.frontend.relay.op.mixed_precision import MixedPrecisionHookError
from xrelay.ir import TempOpAttr
from xrelay.pass_manager import PassContext
from xrelay.runtime import interpret
from xrelay.transforms.to_mixed_precision import ToMixedPrecisionError

KEY = "FTVMMixedPrecisionConversionType"
TOL = {"bfloat16": 2.0**-7, "float16": 2.0**-10}
"""Relative tolerance: a few units in the last place of the low type."""


def convert(mod: relay.IRModule, mixed: str = "bfloat16", **kw: Any) -> Any:
    with PassContext(opt_level=3):
        mod = relay.transform.InferType()(mod)
        return relay.transform.ToMixedPrecision(mixed_precision_type=mixed, **kw)(mod)


def ops_of(mod: Any) -> list[Any]:
    module: ModuleOp = mod.module
    main = next(f for f in module.ops if isinstance(f, FuncOp))
    return [op for op in main.walk() if op is not main]


def dtype_of(op: Any) -> str:
    ty = op.results[0].type
    assert isinstance(ty, TensorType)
    return dtypes.dtype_name(ty.element_type)


def cnn() -> tuple[relay.IRModule, np.ndarray[Any, Any]]:
    rng = np.random.default_rng(5)
    x = relay.var("x", shape=(1, 4, 8, 8))
    w = relay.const(rng.standard_normal((8, 4, 3, 3)).astype(np.float32) * 0.3)
    b = relay.const(rng.standard_normal(8).astype(np.float32))
    wd = relay.const(rng.standard_normal((10, 8)).astype(np.float32) * 0.3)
    y = relay.nn.relu(relay.nn.bias_add(relay.nn.conv2d(x, w, padding=(1, 1)), b))
    y = relay.nn.batch_flatten(relay.nn.global_avg_pool2d(y))
    y = relay.nn.softmax(relay.nn.dense(y, wd))
    data = rng.standard_normal((1, 4, 8, 8)).astype(np.float32)
    return relay.IRModule.from_expr(relay.Function([x], y)), data


def close(got: Any, want: Any, mixed: str) -> None:
    got = np.asarray(got, dtype=np.float64)
    want = np.asarray(want, dtype=np.float64)
    scale = max(float(np.abs(want).max()), 1.0)
    # conv + dense: a handful of roundings of the operands, each within half an ulp
    assert float(np.abs(got - want).max()) <= 8 * TOL[mixed] * scale


@pytest.mark.parametrize("mixed", ["bfloat16", "float16"])
def test_converted_model_matches_float32(mixed: str):
    mod, data = cnn()
    want = interpret(mod, data)
    converted = convert(mod, mixed)
    got = interpret(converted, data)
    close(got, want, mixed)
    names = {op.name: dtype_of(op) for op in ops_of(converted) if op.results}
    assert names["relay.nn.relu"] == mixed  # FOLLOW after an ALWAYS op
    assert names["relay.nn.softmax"] == "float32"  # NEVER
    assert names["relay.nn.global_avg_pool2d"] == "float32"  # NEVER
    conv = next(op for op in ops_of(converted) if op.name == "relay.nn.conv2d")
    assert dtypes.dtype_name(conv.out_dtype) == "float32"  # float32 accumulator
    assert dtypes.dtype_name(conv.operands[0].type.element_type) == mixed


def test_input_module_is_left_alone():
    mod, _ = cnn()
    before = str(mod)
    convert(mod)
    assert str(mod) == before


def test_never_op_stays_float32_and_correct():
    # exp of values up to 10: in bfloat16 the result would be off by up to 2**-8
    # relative, here it is float32-exact
    x = relay.var("x", shape=(4, 16))
    w = relay.const(np.eye(16, dtype=np.float32))
    y = relay.exp(relay.nn.dense(x, w))
    mod = relay.IRModule.from_expr(relay.Function([x], y))
    data = np.linspace(-10, 10, 64, dtype=np.float32).reshape(4, 16)
    converted = convert(mod)
    exp = next(op for op in ops_of(converted) if op.name == "relay.exp")
    assert dtype_of(exp) == "float32"
    # the dense's float32 accumulator feeds exp directly (no round trip in bf16)
    assert exp.operands[0].owner.name == "relay.nn.dense"
    data16 = data.astype(dtypes.BFLOAT16).astype(np.float32)
    np.testing.assert_allclose(interpret(converted, data), np.exp(data16), rtol=1e-6)


def test_categories_are_asked_of_the_ops():
    assert Conv2DOp.MIXED_PRECISION == MIXED_PRECISION_ALWAYS
    assert DenseOp.MIXED_PRECISION == MIXED_PRECISION_ALWAYS
    assert SoftmaxOp.MIXED_PRECISION == MIXED_PRECISION_NEVER
    x = relay.var("x", shape=(2, 4))
    mod = relay.transform.InferType()(
        relay.IRModule.from_expr(relay.nn.dense(x, relay.const(np.ones((3, 4), "f"))))
    )
    dense = next(op for op in ops_of(mod) if op.name == "relay.nn.dense")
    assert dense.mixed_precision_conversion("bfloat16") == (
        MIXED_PRECISION_ALWAYS,
        "float32",
        "bfloat16",
    )


def _softmax_model() -> tuple[relay.IRModule, np.ndarray[Any, Any]]:
    x = relay.var("x", shape=(2, 8))
    y = relay.nn.softmax(relay.nn.relu(relay.add(x, relay.const(1.0))))
    data = np.random.default_rng(3).standard_normal((2, 8)).astype(np.float32)
    return relay.IRModule.from_expr(relay.Function([x], y)), data


def test_registered_conversion_overrides_the_op():
    seen: list[tuple[str, str, list[str]]] = []

    def softmax_follow(call: Any, mixed: str) -> list[Any]:
        seen.append((call.op.name, mixed, [str(a) for a in call.attrs]))
        return [MIXED_PRECISION_FOLLOW, mixed, mixed]

    mod, data = _softmax_model()
    with TempOpAttr("nn.softmax", KEY, softmax_follow):
        converted = convert(mod)
    softmax = next(op for op in ops_of(converted) if op.name == "relay.nn.softmax")
    assert dtype_of(softmax) == "bfloat16"
    assert seen
    assert seen[0][:2] == ("nn.softmax", "bfloat16")
    assert "axis" in seen[0][2]
    close(interpret(converted, data), interpret(mod, data), "bfloat16")
    # outside the block the op's own NEVER applies again
    softmax = next(op for op in ops_of(convert(mod)) if op.name == "relay.nn.softmax")
    assert dtype_of(softmax) == "float32"


def test_register_mixed_precision_conversion_with_levels():
    def never(call: Any, mixed: str) -> list[Any]:
        # TVM's spelling of the categories
        return [relay.transform.mixed_precision.MIXED_PRECISION_NEVER, mixed, mixed]

    try:
        relay.op.register_mixed_precision_conversion("nn.relu", never, level=11)
        mod, _ = _softmax_model()
        relu = next(op for op in ops_of(convert(mod)) if op.name == "relay.nn.relu")
        assert dtype_of(relu) == "float32"
    finally:
        reset_op_attr("nn.relu", KEY)


@pytest.mark.parametrize(
    ("answer", "message"),
    [
        (None, "must return [category, accumulation_dtype, output_dtype]"),
        ([7, "bfloat16", "bfloat16"], "returned category 7"),
        ([0, "int8", "bfloat16"], "accumulation dtype 'int8', not a float dtype"),
    ],
)
def test_bad_conversion_function_is_one_line(answer: Any, message: str):
    mod, _ = _softmax_model()
    with (
        TempOpAttr("nn.relu", KEY, lambda call, mixed: answer),
        pytest.raises(MixedPrecisionHookError) as e,
    ):
        convert(mod)
    assert message in str(e.value)
    assert "\n" not in str(e.value)


def test_option_lists_override_categories():
    mod, _ = _softmax_model()
    converted = convert(mod, always_ops="nn.softmax", never_ops=["add"])
    kinds = {op.name: dtype_of(op) for op in ops_of(converted) if op.results}
    assert kinds["relay.add"] == "float32"
    assert kinds["relay.nn.softmax"] == "bfloat16"


def test_unknown_type_is_one_line_error():
    with pytest.raises(ToMixedPrecisionError, match="got 'int8'"):
        relay.transform.ToMixedPrecision(mixed_precision_type="int8")


@pytest.mark.parametrize(("keep", "result"), [(True, "float32"), (False, "bfloat16")])
def test_keep_orig_output_dtype_config(keep: bool, result: str):
    x = relay.var("x", shape=(2, 3))
    mod = relay.IRModule.from_expr(relay.Function([x], relay.nn.relu(x)))
    config = {"relay.ToMixedPrecision.keep_orig_output_dtype": keep}
    with PassContext(opt_level=3, config=config):
        out = relay.transform.ToMixedPrecision("bfloat16")(mod)
    func = out.module.ops.first
    assert isinstance(func, FuncOp)
    ty = func.function_type.outputs.data[0]
    assert isinstance(ty, TensorType)
    assert dtypes.dtype_name(ty.element_type) == result
    data = np.array([[1.0, -2.0, 3.0], [0.5, 1e-3, -1.0]], np.float32)
    want = np.maximum(data, 0).astype(dtypes.BFLOAT16).astype(np.float32)
    np.testing.assert_array_equal(np.asarray(interpret(out, data), np.float32), want)


@pytest.fixture(scope="module")
def compiled_cnn() -> tuple[Any, Any, np.ndarray[Any, Any]]:
    """The CNN built float32 and with bf16 in relay.build's pipeline."""
    mod, data = cnn()
    with PassContext(opt_level=3):
        f32 = xrelay.build(mod)
    with PassContext(opt_level=3, config={"xrelay.mixed_precision_type": "bfloat16"}):
        bf16 = xrelay.build(mod)
    return f32, bf16, data


def test_compiled_bf16_within_tolerance_of_float32(compiled_cnn: Any):
    f32, bf16, data = compiled_cnn
    want, got = f32(data), bf16(data)
    assert got.dtype == np.float32  # the results keep their dtype in the pipeline
    assert not np.array_equal(got, want)  # it did run in bfloat16
    close(got, want, "bfloat16")


def test_mixed_precision_is_a_submodule_as_in_tvm() -> None:
    import importlib

    module = importlib.import_module("xrelay.relay.transform.mixed_precision")
    assert (
        module.MIXED_PRECISION_NEVER
        == relay.transform.mixed_precision.MIXED_PRECISION_NEVER
    )
    assert callable(module.register_mixed_precision_conversion)
