"""RemoveUnusedFunctions as a TVM user tests it (Relay's
``test_pass_remove_unused_functions.py``, v0.18).

Covered: unused functions removed, functions reachable from ``main`` kept
(transitively), several entry functions, a function called only from a removed one
removed too.
Out of scope: the Prelude (``mod.import_from_std``: no ADTs), GlobalVars passed as
call arguments (functions are not values).
"""

from __future__ import annotations

from xrelay import relay
from xrelay.relay import transform


def module() -> relay.IRModule:
    mod = relay.IRModule()
    a = relay.var("a", shape=(2,))
    mod["leaf"] = relay.Function([a], relay.exp(a))
    mod["mid"] = relay.Function([a], relay.negative(mod.get_global_var("leaf")(a)))
    mod["dead_leaf"] = relay.Function([a], relay.sqrt(a))
    mod["dead"] = relay.Function([a], mod.get_global_var("dead_leaf")(a))
    mod["other"] = relay.Function([a], relay.abs(a))
    x = relay.var("x", shape=(2,))
    mod["main"] = relay.Function([x], mod.get_global_var("mid")(x))
    return mod


def names(mod: relay.IRModule) -> set[str]:
    return {gv.name_hint for gv in mod.get_global_vars()}


def test_remove_unused():
    after = transform.RemoveUnusedFunctions()(module())
    assert names(after) == {"main", "mid", "leaf"}


def test_multiple_entry_functions():
    after = transform.RemoveUnusedFunctions(["main", "other"])(module())
    assert names(after) == {"main", "mid", "leaf", "other"}


def test_keeps_everything_reachable():
    after = transform.RemoveUnusedFunctions(["main", "dead"])(module())
    assert names(after) == {"main", "mid", "leaf", "dead", "dead_leaf"}


def test_prelude_is_a_one_line_error():
    import pytest

    from xrelay.relay.prelude import Prelude
    from xrelay.unsupported import NotSupportedError

    with pytest.raises(NotSupportedError, match=r"relay.prelude.Prelude: .*Prelude"):
        Prelude(relay.IRModule())
