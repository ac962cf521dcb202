"""Integer division and remainder never trap: ``x / 0``, ``x % 0`` and ``INT_MIN /
-1`` give numpy's results in compiled code (built at opt 0 and 3, through the relay
ops and ONNX ``Div``/``Mod``) and in the interpreter. The compiled code runs in a
subprocess, where a SIGFPE fails the test instead of killing pytest."""

from __future__ import annotations

import pytest

from tests.safety.subprocess_util import assert_clean, run_python

OPS = ["divide", "floor_divide", "mod", "floor_mod"]
DTYPES = ["int8", "int16", "int32", "int64", "uint8", "uint32"]

RELAY_SCRIPT = """
import numpy as np, xrelay
from xrelay import relay
from xrelay.pass_manager import PassContext
from xrelay.runtime.interpreter import interpret
OPS = {ops!r}
DTYPES = {dtypes!r}
NP = {{"divide": lambda a, b: (a - np.fmod(a, b)) // b, "floor_divide": np.floor_divide,
      "mod": np.fmod, "floor_mod": np.mod}}
params, outs, feeds, expected = [], [], {{}}, []
for dt in DTYPES:
    info = np.iinfo(dt)
    lo = info.min
    x = np.array([lo, lo, 7, info.max, 0, lo + 1, 5, lo], dt)
    y = np.array([0, 1, 0, 0, 0, 0, 3, 2], dt)
    if info.min < 0:
        y[1] = y[5] = y[7] = -1
    a = relay.var("a_" + dt, shape=x.shape, dtype=dt)
    b = relay.var("b_" + dt, shape=y.shape, dtype=dt)
    params += [a, b]
    feeds["a_" + dt], feeds["b_" + dt] = x, y
    for op in OPS:
        outs.append(getattr(relay, op)(a, b))
        with np.errstate(all="ignore"):
            expected.append(NP[op](x, y))
mod = relay.IRModule.from_expr(relay.Function(params, relay.Tuple(outs)))
got_ref = interpret(mod, *[feeds[p.name_hint] for p in params])
for level in (0, 3):
    with PassContext(opt_level=level):
        lib = xrelay.build(mod)
    m = lib.create()
    m.run(**feeds)
    for k, want in enumerate(expected):
        np.testing.assert_array_equal(m.get_output(k), want, err_msg=str(k))
        np.testing.assert_array_equal(got_ref[k], want, err_msg=str(k))
print("ok")
"""


def test_relay_division_does_not_trap() -> None:
    outcome = run_python(RELAY_SCRIPT.format(ops=OPS, dtypes=DTYPES))
    assert_clean(outcome)
    assert "ok" in outcome.stdout


ONNX_SCRIPT = """
import numpy as np, onnx, xrelay
from onnx import helper
from xrelay.frontend import from_onnx
dt = np.dtype({dtype!r})
elem = helper.np_dtype_to_tensor_dtype(dt)
nodes = [helper.make_node("Div", ["x", "y"], ["q"]),
         helper.make_node("Mod", ["x", "y"], ["r"]),
         helper.make_node("Mod", ["x", "y"], ["f"], fmod=1)]
vi = lambda n: helper.make_tensor_value_info(n, elem, [4])
graph = helper.make_graph(nodes, "g", [vi("x"), vi("y")], [vi("q"), vi("r"), vi("f")])
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
mod, params = from_onnx(model)
lib = xrelay.build(mod, params=params)
lo = np.iinfo(dt).min
x = np.array([lo, 9, -9, lo], dt)
y = np.array([-1, 0, 0, 3], dt)
q, r, f = lib(x, y)
with np.errstate(all="ignore"):
    np.testing.assert_array_equal(q, (x - np.fmod(x, y)) // y)
    np.testing.assert_array_equal(r, np.mod(x, y))
    np.testing.assert_array_equal(f, np.fmod(x, y))
print("ok")
"""


@pytest.mark.parametrize("dtype", ["int32", "int64"])
def test_onnx_div_mod_do_not_trap(dtype: str) -> None:
    outcome = run_python(ONNX_SCRIPT.format(dtype=dtype))
    assert_clean(outcome)
    assert "ok" in outcome.stdout
