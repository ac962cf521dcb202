"""A bound on the work of one run, checked before lowering (``xrelay.build``).

Broadcasts and ``expand_dims`` make huge tensors out of small ones for free: a
``[1, 2**20]`` plus a ``[2**20, 1]`` summed to a scalar is a 4-byte result after 2**40
additions, compiled in half a second and run for hours. :func:`program_work` sums,
over every relay op of the module (fused functions and ``relay.if`` branches
included), the largest of its multiply-adds (:func:`~xrelay.lowering.work.op_work`:
output elements times the reduction length of convolutions and matrix products), the
elements it writes and the elements of any operand it reads (a reduction reads all of
them). :func:`check_work` refuses a module above the PassContext's
``xrelay.max_work`` (:data:`~xrelay.pass_manager.config.MAX_WORK`, 2**36 by
default, about 32 ResNet-18 runs) with a one-line :class:`WorkLimitError`.
"""

from __future__ import annotations

import math

from xdsl.dialects.builtin import ModuleOp, TensorType
from xdsl.ir import Operation

from xrelay.dialects.relay.base import RelayOp
from xrelay.lowering.errors import LoweringError
from xrelay.lowering.work import elements, op_work
from xrelay.pass_manager.config import MAX_WORK
from xrelay.pass_manager.context import PassContext


class WorkLimitError(LoweringError):
    """The module's run would cost more than ``xrelay.max_work``."""


def op_bound(op: Operation) -> int:
    """The work counted for ``op``: the largest of its multiply-adds, the elements
    of its results, and the elements of its largest operand."""
    written = sum(elements(r.type) for r in op.results)
    read = max((elements(v.type) for v in op.operands), default=0)
    return max(op_work(op), written, read)


def program_work(module: ModuleOp) -> tuple[int, Operation | None]:
    """The work of one run of ``module`` (an upper bound: every function's ops are
    counted once, both branches of an ``if``), and the op costing the most."""
    total = 0
    worst: Operation | None = None
    worst_work = -1
    for op in module.walk():
        if not isinstance(op, RelayOp):
            continue
        work = op_bound(op)
        total += work
        if work > worst_work:
            worst, worst_work = op, work
    return total, worst


def check_work(module: ModuleOp, limit: int | None = None) -> None:
    """Raise :class:`WorkLimitError` when ``module`` costs more than ``limit``
    (default: the current PassContext's ``xrelay.max_work``)."""
    if limit is None:
        limit = int(PassContext.current().get_config(MAX_WORK.name))
    total, worst = program_work(module)
    if total <= limit:
        return
    where = ""
    if worst is not None:
        shapes = [
            "x".join(str(d) for d in v.type.get_shape())
            for v in (*worst.operands, *worst.results)
            if isinstance(v.type, TensorType)
        ]
        where = f"; the largest is {worst.name} on {', '.join(shapes)}"
    raise WorkLimitError(
        f"the program would cost about {_power(total)} element operations per run, "
        f"more than xrelay.max_work = {_power(limit)}{where} (a huge broadcast?); "
        "raise it with the PassContext config xrelay.max_work (xrelay-run: "
        "--pass-config xrelay.max_work=N)",
        worst,
    )


def _power(n: int) -> str:
    """``n`` as a power of two when it is one, else with its nearest power."""
    if n > 0 and n & (n - 1) == 0:
        return f"2**{n.bit_length() - 1}"
    return f"{n:.3g} (~2**{math.log2(n):.1f})" if n > 0 else "0"
