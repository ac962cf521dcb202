"""Names of TVM's that xrelay does not implement, as modules whose every attribute
is a one-line error naming the construct (``tvm.te``, ``tvm.topi``, ``tvm.autotvm``,
``relay.quantize``, ``relay.prelude``): a script importing them still loads, and
fails where it uses them.

    from xrelay import te        # works
    te.placeholder((3,))         # NotSupportedError: tvm.te.placeholder: ...
"""

from __future__ import annotations

from types import ModuleType
from typing import Any, NoReturn

_INTROSPECTION = ("__", "_pytest", "_mock")
"""Attribute names tools probe for (pytest's collector, mock): plain AttributeErrors."""


class NotSupportedError(NotImplementedError):
    """A TVM construct outside xrelay's scope."""


class UnsupportedModule(ModuleType):
    """A module standing for one of TVM's that xrelay leaves out."""

    def __init__(self, name: str, what: str) -> None:
        super().__init__(name)
        self.__what = what

    def __getattr__(self, attr: str) -> Any:
        if attr.startswith(_INTROSPECTION):
            raise AttributeError(attr)
        return unsupported(f"{self.__name__}.{attr}", self.__what)


def unsupported(name: str, what: str) -> Any:
    """A stand-in for ``name`` that raises, naming it, when it is called, entered,
    subclassed or read further (so ``from m import name`` still works)."""
    message = f"{name}: {what} is not part of xrelay"

    def fail(*_args: Any, **_kwargs: Any) -> NoReturn:
        raise NotSupportedError(message)

    class _Unsupported:
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            fail()

        def __init_subclass__(cls, **kwargs: Any) -> None:
            if "_stand_in" not in cls.__dict__:  # a script's subclass, not ours
                fail()

        def __class_getitem__(cls, item: Any) -> Any:
            fail()

    class _Meta(type):
        def __getattr__(cls, attr: str) -> Any:
            if attr.startswith(_INTROSPECTION):
                raise AttributeError(attr)
            return unsupported(f"{name}.{attr}", what)

        def __repr__(cls) -> str:
            return f"<unsupported {name}>"

    stand_in = _Meta(name.rsplit(".", 1)[-1], (_Unsupported,), {"_stand_in": True})
    return stand_in


TE = "TVM's tensor expression language (te)"
TOPI = "TVM's operator library (topi)"
AUTOTVM = "TVM's tuning framework (autotvm)"
TVMSCRIPT = "TVMScript (tvm.script) other than its scalar constructors"
QUANTIZE = "Relay's automatic quantization (relay.quantize)"
PRELUDE = "Relay's Prelude (algebraic data types)"
VIRTUAL_DEVICE = "heterogeneous execution (VirtualDevice)"
