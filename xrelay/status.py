"""The run status of compiled models: how a kernel reports bad data (an index out of
range) to the executor without touching memory outside a buffer.

A kernel that checks data writes three ``int64`` words into the *status block* when
a check fails: the check's code (which op), the offending value and the bound it
broke; it then carries on with a safe value (index 0 of the dim). The status block
is :data:`STATUS_BYTES` bytes right after the model's arena, in the arena buffer the
executor passes (so every executor has its own, and concurrent runs of one model do
not share it). The executor zeroes it when it is made, and after every run reads the
first word: non-zero means a check failed, and ``run()`` raises
:class:`IndexOutOfRangeError` (the block is zeroed again). Kernels never write it
when their checks pass, so reading one word is the whole cost on the host side.

Codes are fixed numbers (exported libraries are read by other processes); an op
family that adds a check adds its code to :data:`CHECKS`.
"""

from __future__ import annotations

STATUS_WORDS = 4
"""``int64`` words of the status block: code, value, bound, unused."""
STATUS_BYTES = 64
"""Bytes reserved for the status block after the arena (one cache line)."""

CHECKS: dict[int, str] = {
    1: "relay.take",
    2: "relay.gather",
    3: "relay.gather_nd",
    4: "relay.scatter_nd",
    5: "relay.scatter_elements",
    21: "relay.vision.roi_align",
    22: "relay.vision.roi_pool",
}
"""Status code → the op whose check failed. 0 means no failure."""


class IndexOutOfRangeError(IndexError):
    """An index read from a tensor is outside the dim it indexes (raised by the
    interpreter and by ``run()`` of compiled code, with the same message)."""


def code_of(op_name: str) -> int:
    """The status code of ``op_name``'s check."""
    for code, name in CHECKS.items():
        if name == op_name:
            return code
    raise KeyError(f"{op_name} has no status code (add it to xrelay.status.CHECKS)")


def index_error(op_name: str, value: int, size: int) -> IndexOutOfRangeError:
    """The error for ``value`` used as an index into a dim of ``size`` elements."""
    lo = -size
    return IndexOutOfRangeError(
        f"{op_name}: index {value} is out of range for a dim of size {size} "
        f"(valid: {lo} to {size - 1})"
        if size
        else f"{op_name}: index {value} into an empty dim"
    )


def error_of(words: tuple[int, int, int]) -> IndexOutOfRangeError:
    """The error for a status block's ``(code, value, bound)``."""
    code, value, size = words
    return index_error(CHECKS.get(code, f"check #{code}"), value, size)
