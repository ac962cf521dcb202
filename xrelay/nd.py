"""``xrelay.nd`` (TVM's ``tvm.nd``): arrays on the CPU, see
:mod:`xrelay.runtime.ndarray`."""

from __future__ import annotations

from xrelay.runtime.ndarray import NDArray, array, empty

__all__ = ["NDArray", "array", "empty"]
