"""xrelay's pass manager: TVM's pass kinds and PassContext / instrument contract on
xDSL modules.

    from xrelay.pass_manager import PassContext, Sequential, module_pass, get_pass
"""

from xrelay.pass_manager.config import (
    PassConfigError,
    list_configs,
    register_config,
)
from xrelay.pass_manager.context import PassContext, PassContextError
from xrelay.pass_manager.info import PassInfo
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
from xrelay.pass_manager.passes import (
    FunctionPass,
    ModulePass,
    Pass,
    PassContractError,
    PassVerificationError,
    PrintIR,
    Sequential,
    function_pass,
    module_pass,
)
from xrelay.pass_manager.registry import (
    PassEntry,
    UnknownPassError,
    get_pass,
    list_passes,
    register_pass,
)
from xrelay.pass_manager.xdsl_interop import (
    PatternPass,
    from_xdsl,
    pattern_pass,
    to_xdsl,
)

__all__ = [
    "DumpIR",
    "FunctionPass",
    "ModulePass",
    "Pass",
    "PassConfigError",
    "PassContext",
    "PassContextError",
    "PassContractError",
    "PassEntry",
    "PassInfo",
    "PassInstrument",
    "PassPrintingInstrument",
    "PassTimingInstrument",
    "PassVerificationError",
    "PatternPass",
    "PrintAfter",
    "PrintAfterAll",
    "PrintBefore",
    "PrintBeforeAll",
    "PrintIR",
    "Sequential",
    "UnknownPassError",
    "from_xdsl",
    "function_pass",
    "get_pass",
    "list_configs",
    "list_passes",
    "module_pass",
    "pass_instrument",
    "pattern_pass",
    "register_config",
    "register_pass",
    "to_xdsl",
]
