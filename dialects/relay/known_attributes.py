"""The verifier's check of attribute names: a relay op takes only its own attributes
(Relay rejects unknown attributes), so a misspelled one (``axs = 1`` on
``relay.nn.softmax``) is an error with a suggestion instead of being ignored while
the default applies.

Attributes whose name carries a dialect prefix (``plugin.tag``, ``test.note``) are
discardable, as in MLIR, and accepted on any op: tools and passes of other dialects
may attach such information.
"""

from __future__ import annotations

import difflib

from xdsl.ir import Operation
from xdsl.irdl import IRDLOperation
from xdsl.traits import OpTrait
from xdsl.utils.exceptions import VerifyException


def is_discardable(name: str) -> bool:
    """``dialect.name``: an attribute any op may carry."""
    return "." in name.strip(".")


class KnownAttributes(OpTrait):
    """Every attribute of the op is one of its own, or discardable (dialect-prefixed)."""

    def verify(self, op: Operation) -> None:
        if not isinstance(op, IRDLOperation):
            return
        definition = op.get_irdl_definition()
        own = [*definition.properties, *definition.attributes]
        for name in op.attributes:
            if name in own or is_discardable(name):
                continue
            close = difflib.get_close_matches(name, own, n=1, cutoff=0.6)
            if close:
                hint = f"did you mean '{close[0]}'?"
            else:
                takes = ", ".join(sorted(own)) if own else "none"
                hint = (
                    f"its attributes: {takes}; an attribute of another dialect is "
                    "written with its prefix, e.g. 'mydialect.x'"
                )
            raise VerifyException(f"{op.name}: unknown attribute '{name}' ({hint})")
