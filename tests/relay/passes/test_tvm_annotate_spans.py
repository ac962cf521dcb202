"""AnnotateSpans as a TVM user tests it (Relay's ``test_pass_annotate_spans.py``,
v0.18): after the pass every call has a span into the generated source.

Covered: ``relay.transform.AnnotateSpans()`` sets a span on every call, pointing at
the op in the printed program (``GeneratedSource``); nothing but locations changes;
a span given to ``relay.Call(span=...)`` becomes the op's location and is replaced
by the pass.
Out of scope: spans on variables and constants (xrelay locates ops: a variable is a
block argument, a constant an op whose span is not kept on ``relay.Constant``).
"""

from __future__ import annotations

from xrelay import ir, relay
from xrelay.relay import transform
from xrelay.transforms.annotate_spans import generated_source


def _module() -> relay.IRModule:
    x = relay.var("x", shape=(1, 3, 8, 8))
    w = relay.var("w", shape=(4, 3, 3, 3))
    y = relay.nn.relu(relay.nn.conv2d(x, w, kernel_size=(3, 3), padding=(1, 1)))
    return relay.IRModule.from_expr(relay.Function([x, w], relay.add(y, y)))


def _calls(expr: relay.Expr) -> list[relay.Call]:
    found: list[relay.Call] = []
    relay.analysis.post_order_visit(
        expr, lambda e: found.append(e) if isinstance(e, relay.Call) else None
    )
    return found


def test_every_call_has_a_span_into_the_generated_source():
    mod = transform.AnnotateSpans()(_module())
    text = generated_source(mod.module).splitlines()
    calls = _calls(mod["main"].body)
    assert len(calls) == 3
    for call in calls:
        span = call.span
        assert isinstance(span, ir.Span)
        assert span.source_name.name == "GeneratedSource"
        line = text[span.line - 1]
        assert line[span.column - 1 :].startswith("relay." + call.op.name), line
    assert len({c.span.line for c in calls}) == 3


def test_only_locations_change():
    before = _module()
    after = transform.AnnotateSpans()(before)
    ir.assert_structural_equal(after, before)
    assert str(after) == str(before)


def test_user_span_is_the_location_and_is_replaced():
    x = relay.var("x", shape=(2,))
    call = relay.Call("nn.relu", [x], span=ir.Span("model.py", 12, 12, 5, 20))
    mod = relay.IRModule.from_expr(call)
    assert mod["main"].body.span == ir.Span("model.py", 12, 12, 5, 5)
    mod = transform.AnnotateSpans(source_name="dump.txt")(mod)
    span = mod["main"].body.span
    assert (span.source_name.name, span.line) == ("dump.txt", 3)
