"""``xrelay.transform``: the optimisation pipeline as TVM's ``relay.optimize``.

    from xrelay.transform import optimize
    with PassContext(opt_level=3):
        mod = optimize(mod, params)

See :mod:`xrelay.transforms.pipeline`.
"""

from __future__ import annotations

from xrelay.transforms.pipeline import optimize

__all__ = ["optimize"]
