"""IRModule attributes (TVM's ``with_attr`` / ``get_attr`` / ``attrs``)."""

from __future__ import annotations

import pytest

from xrelay import relay
from xrelay.relay.backend import Executor


def _module() -> relay.IRModule:
    x = relay.var("x", shape=(2,))
    return relay.IRModule.from_expr(relay.exp(x))


def test_with_attr_returns_a_copy_whose_attributes_passes_keep():
    mod = _module()
    aot = Executor("aot", {"link-params": True})
    tagged = mod.with_attr("executor", aot).with_attr("name", "net")
    tagged = tagged.with_attr("version", 3).with_attr("scale", 0.5)
    tagged = tagged.with_attr("checked", False)
    assert mod.attrs == {}
    assert mod.get_attr("executor") is None
    assert tagged.get_attr("executor") == aot
    assert tagged.attrs == {
        "executor": aot,
        "name": "net",
        "version": 3,
        "scale": 0.5,
        "checked": False,
    }
    after = relay.transform.FoldConstant()(relay.transform.InferType()(tagged))
    assert after.get_attr("executor") == aot
    assert 'executor = {kind = "aot", "link-params" = true}' in after.astext()


def test_an_unsupported_value_is_a_one_line_error():
    with pytest.raises(TypeError, match="module attribute 'thing': list values"):
        _module().with_attr("thing", [1, 2])
