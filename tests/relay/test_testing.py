"""relay.testing: run_opt_pass / run_infer_type return what TVM's return, and the
workloads build, run, and agree with the reference interpreter."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import xrelay
from xrelay import relay
from xrelay.frontend.relay import testing
from xrelay.ir import structural_equal


def test_run_opt_pass_on_a_function_and_an_expression():
    x = relay.var("x", shape=(2,), dtype="float32")
    folded = relay.multiply(x, relay.add(relay.const(1.0), relay.const(2.0)))
    func = testing.run_opt_pass(
        relay.Function([x], folded), relay.transform.FoldConstant()
    )
    assert isinstance(func, relay.Function)
    expected = testing.run_infer_type(
        relay.Function([x], relay.multiply(x, relay.const(3.0)))
    )
    assert structural_equal(func, expected)
    body = testing.run_opt_pass(folded, [relay.transform.FoldConstant()])
    assert not isinstance(body, relay.Function)
    assert structural_equal(body, expected.body, map_free_vars=True)
    with pytest.raises(NotImplementedError, match="Prelude"):
        testing.run_opt_pass(
            folded, relay.transform.FoldConstant(), import_prelude=True
        )


def test_create_workload_fills_every_parameter_but_the_data():
    x = relay.var("data", shape=(1, 4), dtype="float32")
    w = relay.var("fc_weight", shape=(3, 4), dtype="float32")
    b = relay.var("fc_bias", shape=(3,), dtype="float32")
    g = relay.var("bn_gamma", shape=(3,), dtype="float32")
    f = relay.Function(
        [x, w, b, g], relay.multiply(relay.nn.bias_add(relay.nn.dense(x, w), b), g)
    )
    seen: list[str] = []
    _, given = testing.create_workload(
        f, initializer=lambda name, arr: seen.append(name)
    )
    assert sorted(given) == ["bn_gamma", "fc_bias", "fc_weight"] == sorted(seen)
    for value in given.values():  # TVM's contract: the initializer fills zeros
        np.testing.assert_array_equal(value.numpy(), 0)

    def fill(name: str, arr: Any) -> None:
        arr[...] = len(name)

    _, filled = testing.create_workload(f, initializer=fill)
    np.testing.assert_array_equal(filled["bn_gamma"].numpy(), 8)
    _, params = testing.create_workload(f)
    assert params["fc_weight"].shape == (3, 4)
    assert np.abs(params["fc_weight"]).max() > 0
    np.testing.assert_array_equal(params["fc_bias"], 0)
    np.testing.assert_array_equal(params["bn_gamma"], 1)
    bound = np.sqrt(6 / (4 + 3))
    assert np.abs(params["fc_weight"]).max() <= bound
    _, again = testing.create_workload(f, seed=0)
    np.testing.assert_array_equal(again["fc_weight"], params["fc_weight"])


WORKLOADS: dict[str, Any] = {
    "mlp": lambda: testing.mlp.get_workload(batch_size=2),
    "resnet18": lambda: testing.resnet.get_workload(
        num_layers=18, image_shape=(3, 32, 32), num_classes=10
    ),
    "resnet50": lambda: testing.resnet.get_workload(
        num_layers=50, image_shape=(3, 32, 32), num_classes=10
    ),
    "mobilenet": lambda: testing.mobilenet.get_workload(
        image_shape=(3, 32, 32), num_classes=10
    ),
    "dcgan": lambda: testing.dcgan.get_workload(
        batch_size=1, oshape=(3, 32, 32), ngf=16
    ),
}


@pytest.mark.parametrize("name", list(WORKLOADS))
def test_workloads_build_and_match_the_interpreter(name: str):
    mod, params = WORKLOADS[name]()
    shape = mod["main"].params[0].type_annotation.shape
    x = np.random.default_rng(0).standard_normal(shape).astype("float32")
    lib = xrelay.build(mod, params=params)
    want = relay.create_executor(mod=mod).evaluate()(x, **params).numpy()
    np.testing.assert_allclose(lib(x), want, rtol=1e-4, atol=1e-5)


def test_resnet_sizes_and_errors():
    f = testing.resnet.get_net(num_layers=34, image_shape=(3, 224, 224))
    convs = [
        p for p in f.params if p.name_hint.endswith("_weight") and "conv" in p.name_hint
    ]
    assert len(convs) == 1 + 2 * (3 + 4 + 6 + 3)
    with pytest.raises(ValueError, match="no 19-layer network"):
        testing.resnet.get_net(num_layers=19)
    with pytest.raises(ValueError, match="layout"):
        testing.mobilenet.get_net(layout="NHWC")
