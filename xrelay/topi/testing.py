"""``xrelay.topi.testing`` (TVM's ``tvm.topi.testing``): numpy references."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt


def softmax_python(
    a_np: npt.NDArray[np.floating], axis: int = 1
) -> npt.NDArray[np.floating]:
    """Softmax of a 2-D array along ``axis`` (max-subtracted, in ``a_np``'s dtype)."""
    shifted = a_np - np.max(a_np, axis=axis, keepdims=True)
    e = np.exp(shifted)
    return (e / np.sum(e, axis=axis, keepdims=True)).astype(a_np.dtype)
