"""``xrelay.transform`` (TVM's ``tvm.transform``): the pass manager, and the
optimisation pipeline as TVM's ``relay.optimize``.

    from xrelay.transform import PassContext, Sequential, module_pass
    with PassContext(opt_level=3):
        mod = optimize(mod, params)

See :mod:`xrelay.pass_manager` and :mod:`xrelay.transforms.pipeline`.
"""

from __future__ import annotations

from xrelay.pass_manager import *  # noqa: F403
from xrelay.pass_manager import __all__ as _pass_manager_names
from xrelay.transforms.pipeline import optimize

__all__ = [*_pass_manager_names, "optimize"]  # pyright: ignore[reportUnsupportedDunderAll]
