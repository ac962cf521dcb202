"""TVM's runtime names for arrays and devices: ``NDArray`` (a numpy array that also
answers ``.numpy()``), ``array`` / ``empty`` (``tvm.nd.array`` / ``tvm.nd.empty``) and
``Device`` (``tvm.cpu(0)``, ``tvm.device("cpu", 0)``).

xrelay runs on the host CPU only, so a device is always the CPU: other device kinds
are refused with a one-line error naming them. Arrays are numpy arrays in host
memory; ``NDArray`` is a numpy subclass, so it goes wherever numpy arrays go.
"""

from __future__ import annotations

from typing import Any

import numpy as np

_CPU_NAMES = ("cpu", "llvm", "c", "stackvm")
_KNOWN = {
    "cuda": 2,
    "gpu": 2,
    "opencl": 4,
    "cl": 4,
    "vulkan": 7,
    "metal": 8,
    "rocm": 10,
    "ext_dev": 12,
    "hexagon": 16,
    "webgpu": 15,
}


class DeviceError(ValueError):
    """A device xrelay cannot run on (every device but the CPU)."""


class Device:
    """The host CPU as TVM's ``Device`` (``device_type`` 1)."""

    device_type = 1

    def __init__(self, device_id: int = 0):
        if int(device_id) < 0:
            raise DeviceError(f"device id {device_id} is negative")
        self.device_id = int(device_id)

    @property
    def exist(self) -> bool:
        return True

    def sync(self) -> None:
        """Nothing to wait for: runs are synchronous."""

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Device) and other.device_id == self.device_id

    def __hash__(self) -> int:
        return hash(("cpu", self.device_id))

    def __repr__(self) -> str:
        return f"cpu({self.device_id})"


def cpu(dev_id: int = 0) -> Device:
    """``tvm.cpu(dev_id)``: the host CPU."""
    return Device(dev_id)


def device(dev_type: str | int, dev_id: int = 0) -> Device:
    """``tvm.device("cpu", 0)`` (also ``"llvm"``, or type code 1); any other kind is
    a :class:`DeviceError` naming it."""
    if dev_type == 1 or (
        isinstance(dev_type, str) and dev_type.split()[0] in _CPU_NAMES
    ):
        return Device(dev_id)
    name = str(dev_type)
    if isinstance(dev_type, str) and dev_type.split()[0] in _KNOWN:
        name = dev_type.split()[0]
    raise DeviceError(f"xrelay runs on the CPU only: no device {name!r}")


class NDArray(np.ndarray[Any, Any]):
    """A numpy array that also answers TVM's ``NDArray`` methods."""

    def numpy(self) -> np.ndarray[Any, Any]:
        """The array as a plain numpy array (a view)."""
        return np.asarray(self)

    def asnumpy(self) -> np.ndarray[Any, Any]:
        return np.asarray(self)

    def copyfrom(self, source: Any) -> NDArray:
        """Copy ``source`` (same shape; cast to this dtype) into the array."""
        src = np.asarray(source)
        if src.shape != self.shape:
            raise ValueError(
                f"copyfrom: array of shape {list(src.shape)} into one of shape "
                f"{list(self.shape)}"
            )
        np.copyto(np.asarray(self), src, casting="unsafe")
        return self

    def copyto(self, target: Any) -> Any:
        """Copy into ``target`` (an array), or to a new array on a :class:`Device`."""
        if isinstance(target, Device):
            return ndarray(np.array(self))
        np.copyto(target, np.asarray(self), casting="unsafe")
        return target


def ndarray(value: Any) -> NDArray:
    """``value`` as an :class:`NDArray` (a view, no copy)."""
    return np.asarray(value).view(NDArray)


def array(arr: Any, device: Device | None = None) -> NDArray:
    """``tvm.nd.array``: a copy of ``arr`` (C-contiguous) on the CPU."""
    del device
    return np.array(arr, order="C").view(NDArray)


def empty(
    shape: Any, dtype: str | np.dtype[Any] = "float32", device: Device | None = None
) -> NDArray:
    """``tvm.nd.empty``: an uninitialised array on the CPU."""
    del device
    return np.empty(tuple(int(d) for d in shape), dtype=np.dtype(dtype)).view(NDArray)
