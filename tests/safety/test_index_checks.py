"""Index ops never read outside a buffer because of data: ``take`` follows its
``mode`` (``clip``, ``wrap``, and the checked ``fast``), ``gather``/``gather_nd`` and
ONNX ``Gather`` are checked, so are the scatters (and ONNX ``ScatterND``,
``ScatterElements``), and a bad index makes ``run()`` raise an
:class:`~xrelay.status.IndexOutOfRangeError` naming the op and the index, like the
interpreter. The compiled code runs in a subprocess, where a segfault fails the test
instead of killing pytest."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from tests.safety.subprocess_util import assert_clean, run_python
from xrelay.status import IndexOutOfRangeError

TAKE_SCRIPT = """
import numpy as np, xrelay
from xrelay import relay
from xrelay.runtime.interpreter import interpret
from xrelay.status import IndexOutOfRangeError

def outcome(fn):
    try:
        return fn()
    except IndexOutOfRangeError as e:
        return "error: " + str(e)

data = np.arange(24, dtype="float32").reshape(4, 6)
cases = [([0, 3, -1, -4, 2], None), ([0, 4, 1], None), ([5, -5, 0], None),
         ([10**12, 0, 1], None), ([-10**12, 0, 1], None), ([1, 2, 3], None)]
count = 0
for dt in ("int64", "int32", "uint8"):
    for mode in ("clip", "wrap", "fast"):
        for axis in (0, 1, None):
            for idx, _ in cases:
                if dt == "uint8" and (min(idx) < 0 or max(idx) > 255):
                    continue
                if dt == "int32" and max(abs(v) for v in idx) > 2**31:
                    continue
                i = np.array(idx, dt)
                d = relay.var("d", shape=data.shape, dtype="float32")
                iv = relay.var("i", shape=i.shape, dtype=dt)
                mod = relay.IRModule.from_expr(
                    relay.Function([d, iv], relay.take(d, iv, axis=axis, mode=mode)))
                m = xrelay.build(mod).create()
                def compiled():
                    m.run(d=data, i=i)
                    return m.get_output(0)
                got = outcome(compiled)
                want = outcome(lambda: interpret(mod, data, i))
                label = (dt, mode, axis, idx)
                if isinstance(want, str):
                    assert got == want, (label, got, want)
                    assert mode == "fast", label
                    # the executor is usable again after a failed run
                    good = np.zeros(i.shape, dt)
                    m.run(d=data, i=good)
                else:
                    np.testing.assert_array_equal(got, want, err_msg=str(label))
                count += 1
print("ok", count)
"""


def test_take_modes_match_the_interpreter() -> None:
    outcome = run_python(TAKE_SCRIPT)
    assert_clean(outcome)
    assert "ok" in outcome.stdout


GATHER_SCRIPT = """
import numpy as np, xrelay
from xrelay import relay
from xrelay.status import IndexOutOfRangeError
data = np.arange(12, dtype="float32").reshape(3, 4)
d = relay.var("d", shape=(3, 4), dtype="float32")
gi = relay.var("gi", shape=(3, 2), dtype="int64")
ni = relay.var("ni", shape=(2, 3), dtype="int32")
mod = relay.IRModule.from_expr(relay.Function([d, gi, ni], relay.Tuple([
    relay.gather(d, 1, gi), relay.gather_nd(d, ni)])))
m = xrelay.build(mod).create()
good_g = np.array([[0, -1], [3, 2], [-4, 1]], "int64")
good_n = np.array([[0, 2, -1], [3, 0, -4]], "int32")
m.run(d=data, gi=good_g, ni=good_n)
np.testing.assert_array_equal(m.get_output(0), np.take_along_axis(data, good_g % 4, 1))
np.testing.assert_array_equal(m.get_output(1), data[good_n[0] % 3, good_n[1] % 4])
for name, g, n, op, bad in [
        ("gather", np.array([[0, 4]] * 3, "int64"), good_n, "relay.gather", 4),
        ("gather_nd", good_g, np.array([[0, 2, 3], [0, 0, 0]], "int32"),
         "relay.gather_nd", 3),
        ("gather_nd col", good_g, np.array([[0, 0, 0], [0, -5, 9]], "int32"),
         "relay.gather_nd", -5)]:
    try:
        m.run(d=data, gi=g, ni=n)
    except IndexOutOfRangeError as e:
        assert str(e).startswith(f"{op}: index {bad} "), (name, str(e))
    else:
        raise AssertionError(name + ": no error")
print("ok")
"""


def test_gather_ops_are_checked() -> None:
    outcome = run_python(GATHER_SCRIPT)
    assert_clean(outcome)
    assert "ok" in outcome.stdout


ONNX_SCRIPT = """
import numpy as np, xrelay
from onnx import TensorProto, helper
from xrelay.frontend import from_onnx
from xrelay.status import IndexOutOfRangeError
node = helper.make_node("Gather", ["x", "i"], ["y"], axis=0)
graph = helper.make_graph([node], "g",
    [helper.make_tensor_value_info("x", TensorProto.FLOAT, [4, 2]),
     helper.make_tensor_value_info("i", TensorProto.INT64, [3])],
    [helper.make_tensor_value_info("y", TensorProto.FLOAT, [3, 2])])
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
mod, params = from_onnx(model)
lib = xrelay.build(mod, params=params)
x = np.arange(8, dtype="float32").reshape(4, 2)
np.testing.assert_array_equal(lib(x, np.array([3, -1, 0])), x[[3, -1, 0]])
for bad in (4, -5, 10**12, -10**12):
    try:
        lib(x, np.array([0, bad, 1]))
    except IndexOutOfRangeError as e:
        assert f"relay.take: index {bad} " in str(e), str(e)
    else:
        raise AssertionError(f"index {bad}: no error")
print("ok")
"""


def test_onnx_gather_is_checked() -> None:
    outcome = run_python(ONNX_SCRIPT)
    assert_clean(outcome)
    assert "ok" in outcome.stdout


SCATTER_SCRIPT = """
import numpy as np, xrelay
from xrelay import relay
from xrelay.runtime.interpreter import interpret
from xrelay.status import IndexOutOfRangeError

def outcome(fn):
    try:
        return fn()
    except IndexOutOfRangeError as e:
        return "error: " + str(e)

data = np.arange(12, dtype="float32").reshape(3, 4)
d = relay.var("d", shape=(3, 4), dtype="float32")
ni = relay.var("ni", shape=(2, 3), dtype="int32")
nu = relay.var("nu", shape=(3,), dtype="float32")
ei = relay.var("ei", shape=(2, 4), dtype="int64")
eu = relay.var("eu", shape=(2, 4), dtype="float32")
mod = relay.IRModule.from_expr(relay.Function([d, ni, nu, ei, eu], relay.Tuple([
    relay.scatter_nd(d, ni, nu, mode="add"),
    relay.scatter_elements(d, ei, eu, axis=0)])))
m = xrelay.build(mod).create()
good_n = np.array([[0, -1, -3], [3, -4, 1]], "int32")
good_e = np.array([[0, -1, 2, -3], [1, 1, -2, 0]], "int64")
nu_v = np.array([1.0, 2.0, 3.0], "float32")
eu_v = np.arange(8, dtype="float32").reshape(2, 4) + 100
cases = [
    ("good", good_n, good_e, None),
    ("nd row", np.array([[0, 3, 0], [0, 0, 0]], "int32"), good_e,
     "relay.scatter_nd: index 3 "),
    ("nd col", np.array([[0, 0, 0], [1, -5, 9]], "int32"), good_e,
     "relay.scatter_nd: index -5 "),
    ("nd huge", np.array([[0, 2**31 - 1, 0], [0, 0, 0]], "int32"), good_e,
     f"relay.scatter_nd: index {2**31 - 1} "),
    ("elements", good_n, np.array([[0, 0, 0, 0], [1, -4, 3, 10**12]], "int64"),
     "relay.scatter_elements: index -4 "),
    ("elements huge", good_n, np.array([[0, 0, 0, 0], [1, 1, 1, -10**12]], "int64"),
     f"relay.scatter_elements: index {-10**12} "),
]
for name, n, e, err in cases:
    def compiled():
        m.run(d=data, ni=n, nu=nu_v, ei=e, eu=eu_v)
        return [m.get_output(0), m.get_output(1)]
    got = outcome(compiled)
    want = outcome(lambda: interpret(mod, data, n, nu_v, e, eu_v))
    if err is None:
        assert not isinstance(got, str), got
        for g, w in zip(got, want):
            np.testing.assert_array_equal(g, w, err_msg=name)
    else:
        assert isinstance(got, str) and got.startswith("error: " + err), (name, got)
        assert got == want, (name, got, want)
print("ok")
"""


def test_scatter_ops_are_checked() -> None:
    outcome = run_python(SCATTER_SCRIPT)
    assert_clean(outcome)
    assert "ok" in outcome.stdout


ONNX_SCATTER_SCRIPT = """
import numpy as np, xrelay
from onnx import TensorProto, helper
from xrelay.frontend import from_onnx
from xrelay.status import IndexOutOfRangeError
F, I = TensorProto.FLOAT, TensorProto.INT64
nd = helper.make_node("ScatterND", ["x", "i", "u"], ["y"])
el = helper.make_node("ScatterElements", ["x", "j", "v"], ["z"], axis=1)
graph = helper.make_graph([nd, el], "g",
    [helper.make_tensor_value_info("x", F, [4, 2]),
     helper.make_tensor_value_info("i", I, [3, 1]),
     helper.make_tensor_value_info("u", F, [3, 2]),
     helper.make_tensor_value_info("j", I, [4, 1]),
     helper.make_tensor_value_info("v", F, [4, 1])],
    [helper.make_tensor_value_info("y", F, [4, 2]),
     helper.make_tensor_value_info("z", F, [4, 2])])
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
mod, params = from_onnx(model)
lib = xrelay.build(mod, params=params)
x = np.arange(8, dtype="float32").reshape(4, 2)
u = np.full((3, 2), 50.0, "float32")
v = np.full((4, 1), 70.0, "float32")
good_i = np.array([[3], [-1], [0]])
good_j = np.array([[0], [-1], [1], [-2]])
y, z = lib(x, good_i, u, good_j, v)
want_y = x.copy(); want_y[[3, 3, 0]] = 50.0
want_z = x.copy(); want_z[np.arange(4), good_j[:, 0] % 2] = 70.0
np.testing.assert_array_equal(y, want_y)
np.testing.assert_array_equal(z, want_z)
for i, j, err in [
        (np.array([[0], [4], [1]]), good_j, "relay.scatter_nd: index 4 "),
        (np.array([[0], [-5], [10**12]]), good_j, "relay.scatter_nd: index -5 "),
        (good_i, np.array([[0], [2], [0], [0]]), "relay.scatter_elements: index 2 "),
        (good_i, np.array([[0], [0], [-3], [0]]), "relay.scatter_elements: index -3 ")]:
    try:
        lib(x, i, u, j, v)
    except IndexOutOfRangeError as e:
        assert str(e).startswith(err), (err, str(e))
    else:
        raise AssertionError(err + ": no error")
print("ok")
"""


def test_onnx_scatters_are_checked() -> None:
    outcome = run_python(ONNX_SCATTER_SCRIPT)
    assert_clean(outcome)
    assert "ok" in outcome.stdout


def test_xrelay_run_reports_a_bad_index(tmp_path: Path) -> None:
    model = tmp_path / "take.mlir"
    model.write_text(
        "func.func @main(%d: tensor<4x3xf32>, %i: tensor<2xi64>) -> tensor<2x3xf32> {\n"
        '  %0 = relay.take %d, %i {axis = 0 : i64, mode = "fast"} : '
        "(tensor<4x3xf32>, tensor<2xi64>) -> tensor<2x3xf32>\n"
        "  func.return %0 : tensor<2x3xf32>\n}\n"
    )
    idx = tmp_path / "i.npy"
    np.save(idx, np.array([1, -(10**12)]))
    for executor in ("llvm", "interpreter"):
        proc = subprocess.run(
            [sys.executable, "-m", "xrelay.tools.xrelay_run", str(model),
             "--input", f"i={idx}", "--executor", executor],
            capture_output=True, text=True, timeout=300, check=False,
        )  # fmt: skip
        assert proc.returncode == 1, proc
        # %d is not given: a note names it; then the one error line
        lines = [
            ln
            for ln in proc.stderr.strip().splitlines()
            if not ln.startswith("xrelay-run: compiling")
        ]
        assert lines == [
            "xrelay-run: note: random data (--seed 0) for %d; give real data with "
            "--input NAME=FILE.npy",
            "xrelay-run: error: run failed: relay.take: index -1000000000000 is out "
            "of range for a dim of size 4 (valid: -4 to 3)",
        ]


def test_interpreter_gather_ops_raise_the_same_error() -> None:
    from xrelay import relay
    from xrelay.runtime.interpreter import interpret

    d = relay.var("d", shape=(3, 4), dtype="float32")
    g = relay.var("g", shape=(3, 1), dtype="int64")
    mod = relay.IRModule.from_expr(relay.Function([d, g], relay.gather(d, 1, g)))
    data = np.zeros((3, 4), np.float32)
    with pytest.raises(IndexOutOfRangeError, match=r"^relay.gather: index -5 "):
        interpret(mod, data, np.array([[0], [-5], [9]]))


def test_reading_an_empty_dim_is_a_type_error() -> None:
    from xrelay import relay
    from xrelay.frontend.relay.emitter import BuildError

    d = relay.var("d", shape=(0, 3), dtype="float32")
    i = relay.var("i", shape=(2,), dtype="int64")
    with pytest.raises(BuildError, match="cannot gather from axis 0 of size 0"):
        relay.IRModule.from_expr(relay.Function([d, i], relay.take(d, i, axis=0)))
