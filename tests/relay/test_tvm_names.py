"""The names TVM scripts and tests import, with only ``tvm`` changed to ``xrelay``:
``xrelay.tir`` / ``xrelay.script.tir``, ``xrelay.testing``, ``xrelay.ir.instrument``
and ``xrelay.instrument``, ``xrelay.target.codegen`` / ``VirtualDevice``,
``relay.backend.Executor``, ``relay.build_module`` helpers, ``relay.testing``
submodules, and the out-of-scope modules (``te``, ``topi``, ``autotvm``,
``relay.quantize``, ADTs, references), which import and fail with one line naming
the construct when used."""

from __future__ import annotations

import numpy as np
import pytest

import xrelay
from xrelay import relay
from xrelay.unsupported import NotSupportedError


def test_tir_immediates_are_numbers_with_a_dtype():
    from xrelay import tir

    i = tir.IntImm("int64", 3)
    assert i == 3
    assert isinstance(i, int)
    assert i.dtype == "int64"
    assert i.value == 3
    f = tir.const(0.5)
    assert f == 0.5
    assert f.dtype == "float32"
    assert tir.const(2).dtype == "int32"
    assert tir.const(True).dtype == "bool"
    assert tir.const(2, "float16").dtype == "float16"
    with pytest.raises(ValueError, match="integer dtype"):
        tir.IntImm("float32", 1)
    # as attributes and shapes
    x = relay.var("x", shape=(tir.IntImm("int32", 2), tir.const(6, "int64")))
    y = relay.reshape(x, newshape=(tir.IntImm("int32", 3), 4))
    assert relay.transform.InferTypeLocal(y) == relay.TensorType((3, 4), "float32")


def test_tir_any_is_a_dynamic_dimension_with_a_clear_error_when_built():
    from xrelay import tir

    x = relay.var("x", shape=(tir.Any(), 4))
    mod = relay.transform.InferType()(relay.IRModule.from_expr(relay.nn.relu(x)))
    assert str(mod["main"].ret_type) == "TensorType([?, 4], float32)"
    with pytest.raises(Exception, match="dynamic shape"):
        xrelay.build(mod)


def test_tir_layout_and_script_constructors():
    from xrelay import tir
    from xrelay.script import tir as T

    assert tir.layout("NCHW16c").factor_of("c") == 16
    assert not tir.layout("")  # TVM's undefined layout is falsy
    assert T.int32(4) == 4
    assert T.int32(4).dtype == "int32"
    assert T.float16(1.5).dtype == "float16"
    with pytest.raises(NotSupportedError, match="TVMScript"):
        T.prim_func(lambda: None)


def test_testing_helpers():
    import xrelay.testing

    xrelay.testing.assert_allclose(np.ones(3), xrelay.nd.array(np.ones(3)))
    with pytest.raises(AssertionError):
        xrelay.testing.assert_allclose(np.ones(3), np.ones(3) * 1.01)
    [(target, dev)] = xrelay.testing.enabled_targets()
    assert target == "llvm"
    assert dev == xrelay.cpu(0)
    assert xrelay.testing.uses_gpu(len) is len

    def on_target(target: str, dev: object) -> None:
        pass

    marked = xrelay.testing.parametrize_targets("llvm", "cuda")(on_target)
    [mark] = marked.pytestmark  # pyright: ignore[reportFunctionMemberAccess]
    assert [p.id for p in mark.args[1]] == ["llvm", "cuda"]
    assert mark.args[1][1].marks[0].kwargs["reason"] == "target cuda is not built"


link_flag = xrelay.testing.parameter(False, True)
seen: list[bool] = []


def test_testing_parameter_runs_once_per_value(link_flag: bool):
    seen.append(link_flag)
    assert link_flag in (False, True)


def test_testing_parameter_ran_both():
    assert sorted(seen) == [False, True]


def test_instrument_modules_and_target_names():
    from xrelay.instrument import PassTimingInstrument as A
    from xrelay.ir.instrument import PassTimingInstrument, pass_instrument
    from xrelay.target import Target, VirtualDevice
    from xrelay.target.codegen import llvm_version_major

    assert A is PassTimingInstrument
    assert callable(pass_instrument)
    assert llvm_version_major() >= 14
    vd = VirtualDevice(xrelay.cpu(), Target("llvm"))
    assert vd.target.kind == "llvm"


def test_relay_backend_and_build_module_names():
    from xrelay.relay.backend import Executor
    from xrelay.relay.build_module import create_executor

    assert Executor("aot", {"link-params": True})["link-params"] is True
    with pytest.raises(ValueError, match="unknown executor"):
        Executor("vm")
    x = relay.var("x", shape=(2,))
    run = create_executor(mod=relay.IRModule.from_expr(relay.negative(x)))
    np.testing.assert_array_equal(
        run.evaluate()(np.ones(2, "float32")).numpy(), [-1, -1]
    )


def test_out_of_scope_modules_import_and_fail_naming_the_construct():
    from xrelay import autotvm, te, topi
    from xrelay.relay.quantize._annotate import QAnnotateKind

    with pytest.raises(NotSupportedError, match=r"xrelay.te.placeholder: .*\(te\)"):
        te.placeholder((3,))
    with pytest.raises(NotSupportedError, match=r"topi.nn.conv2d_alter_layout"):
        topi.nn.conv2d_alter_layout(None, None, None, None)
    with pytest.raises(NotSupportedError, match="autotvm"):

        class _Fallback(autotvm.FallbackContext):  # pyright: ignore
            pass

    with pytest.raises(NotSupportedError, match="relay.quantize"):
        QAnnotateKind()
    import xrelay.topi.testing

    ref = xrelay.topi.testing.softmax_python(np.array([[0.0, 0.0]], "float32"))
    np.testing.assert_allclose(ref, [[0.5, 0.5]])


@pytest.mark.parametrize(
    ("name", "construct"),
    [
        ("Constructor", "algebraic data types"),
        ("TypeData", "algebraic data types"),
        ("Match", "algebraic data types"),
        ("RefCreate", "references"),
        ("RefRead", "references"),
    ],
)
def test_adts_and_references_are_one_line_errors(name: str, construct: str):
    with pytest.raises(NotSupportedError, match=f"relay.{name}: .*{construct}"):
        getattr(relay, name)("x")


def test_function_with_several_results_has_a_function_view():
    mod = relay.fromtext(
        '#[version = "0.0.5"]\n'
        "def @main(%x: Tensor[(2), float32]) { (nn.relu(%x), exp(%x)) }"
    )
    main = mod["main"]
    assert [p.name_hint for p in main.params] == ["x"]
    assert isinstance(main.body, relay.Tuple)
    assert len(main.body.fields) == 2
    assert main.body.checked_type == relay.TupleType(
        [relay.TensorType((2,), "float32")] * 2
    )
