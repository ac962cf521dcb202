"""ToANormalForm as TVM scripts use it (Relay's ``test_pass_instrument.py`` runs it
between AnnotateSpans and InferType, timed and skipped by instruments): SSA already
names every value, so the pass only scopes values into the ``if`` branch that uses
them (tests/filecheck/transforms/to_a_normal_form has the IR-level cases)."""

from __future__ import annotations

from typing import Any

import numpy as np

import xrelay as tvm
from xrelay import relay
from xrelay.ir.instrument import PassTimingInstrument, pass_instrument


def _model() -> Any:
    x, y, z = (relay.var(n, shape=(3, 4), dtype="float32") for n in "xyz")
    total = relay.add(x, y)
    diff = relay.subtract(x, z)
    return tvm.IRModule.from_expr(relay.multiply(total, total / diff) + diff)


def _passes(mod: Any) -> Any:
    mod = relay.transform.AnnotateSpans()(mod)
    mod = relay.transform.ToANormalForm()(mod)
    return relay.transform.InferType()(mod)


def test_timed_between_annotate_spans_and_infer_type():
    timing = PassTimingInstrument()
    with tvm.transform.PassContext(instruments=[timing]):
        _passes(_model())
        report = timing.render()
    for name in ("AnnotateSpans", "ToANormalForm", "InferType"):
        assert name in report


def test_an_instrument_can_skip_it_by_name():
    @pass_instrument
    class Skip:
        def __init__(self, name: str):
            self.name = name

        def should_run(self, mod: Any, info: Any) -> bool:
            return self.name not in info.name

    @pass_instrument
    class Names:
        def __init__(self) -> None:
            self.seen: list[str] = []

        def run_before_pass(self, mod: Any, info: Any) -> None:
            self.seen.append(info.name)

    names = Names()
    with tvm.transform.PassContext(
        instruments=[Skip("AnnotateSpans"), Skip("ToANormalForm"), names]
    ):
        _passes(_model())
    assert names.seen == ["InferType"]


def test_a_branch_only_value_moves_into_its_branch_and_results_stay():
    cond = relay.var("c", shape=(), dtype="bool")
    x = relay.var("x", shape=(3,))
    hidden = relay.exp(relay.negative(x))
    body = relay.If(cond, relay.add(hidden, x), x)
    mod = tvm.IRModule.from_expr(relay.Function([cond, x], body))
    before = mod.astext()
    anf = relay.transform.ToANormalForm()(mod)
    assert mod.astext() == before  # the input module is left as it was
    text = anf.astext()
    assert text.index("relay.if") < text.index("relay.negative")
    assert text.index("relay.if") < text.index("relay.exp")
    data = np.array([0.5, -1.0, 2.0], "float32")
    for flag in (True, False):
        args = [np.array(flag), data]
        got = relay.create_executor(mod=anf).evaluate()(*args).numpy()
        want = relay.create_executor(mod=mod).evaluate()(*args).numpy()
        np.testing.assert_allclose(got, want, rtol=1e-6)
