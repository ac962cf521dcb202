"""``relay.testing`` (TVM's ``tvm.relay.testing``): what TVM's pass tests and
tutorials build with.

* :func:`run_opt_pass` / :func:`run_infer_type`: run passes on an expression or
  function and get the result back in the same form;
* :func:`create_workload`: a function (or module) with random parameters;
* workloads (``mlp``, ``resnet``, ``mobilenet``, ``dcgan``, ``inception_v3``): ``get_workload(...)``
  returns ``(mod, params)``, ``get_net(...)`` the function.

The networks are built from the Relay ops with xrelay's own layer code, after the
published architectures; the random initialiser is Xavier-uniform for weights, as
TVM's, with zero biases and betas, unit gammas and variances.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from xrelay.frontend.relay.testing import dcgan as dcgan
from xrelay.frontend.relay.testing import inception_v3 as inception_v3
from xrelay.frontend.relay.testing import mlp as mlp
from xrelay.frontend.relay.testing import mobilenet as mobilenet
from xrelay.frontend.relay.testing import resnet as resnet
from xrelay.frontend.relay.testing.init import create_workload as create_workload


def run_opt_pass(expr: Any, opt_pass: Any, import_prelude: bool = False) -> Any:
    """Run ``opt_pass`` (a pass, or a list of passes run in order) on ``expr`` (an
    expression or a ``relay.Function``) inside a module; the main function after it
    when ``expr`` is a function, else its body."""
    from xrelay.frontend.relay.function import Function
    from xrelay.frontend.relay.module import IRModule
    from xrelay.frontend.relay.transform import InferType
    from xrelay.pass_manager import Sequential

    if import_prelude:
        raise NotImplementedError(
            "relay.testing.run_opt_pass(import_prelude=True): the Prelude (ADTs) is not "
            "part of xrelay"
        )
    mod = IRModule.from_expr(expr)
    passes = list(opt_pass) if isinstance(opt_pass, Sequence) else [opt_pass]
    mod = InferType()(mod)
    mod = Sequential(passes)(mod) if len(passes) != 1 else passes[0](mod)
    entry = mod["main"]
    return entry if isinstance(expr, Function) else entry.body


def run_infer_type(expr: Any) -> Any:
    """``expr`` after InferType (see :func:`run_opt_pass`)."""
    from xrelay.frontend.relay.transform import InferType

    return run_opt_pass(expr, InferType())


def rand(dtype: str = "float32", *shape: int) -> Any:
    """A random array (TVM's ``relay.testing.rand``), as an ``NDArray``."""
    from xrelay.runtime.ndarray import ndarray

    rng = np.random.default_rng()
    return ndarray(rng.uniform(-1, 1, size=shape).astype(dtype))


__all__ = [
    "create_workload",
    "dcgan",
    "mlp",
    "mobilenet",
    "rand",
    "resnet",
    "run_infer_type",
    "run_opt_pass",
]
