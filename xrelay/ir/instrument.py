"""``xrelay.ir.instrument`` (TVM's ``tvm.ir.instrument``): the pass instruments of
:mod:`xrelay.pass_manager.instrument`.

    from xrelay.ir.instrument import PassTimingInstrument, pass_instrument
"""

from __future__ import annotations

from xrelay.pass_manager.instrument import (
    DumpIR,
    PassInstrument,
    PassPrintingInstrument,
    PassTimingInstrument,
    PrintAfter,
    PrintAfterAll,
    PrintBefore,
    PrintBeforeAll,
    pass_instrument,
)

__all__ = [
    "DumpIR",
    "PassInstrument",
    "PassPrintingInstrument",
    "PassTimingInstrument",
    "PrintAfter",
    "PrintAfterAll",
    "PrintBefore",
    "PrintBeforeAll",
    "pass_instrument",
]
