"""A compiled model's interface (names, shapes, dtypes, arena, weights):
:mod:`xrelay.lowering.spec`, where the lowering makes it."""

from xrelay.lowering.spec import FORMAT, Array, KernelCall, ModelSpec, TensorSpec

__all__ = ["FORMAT", "Array", "KernelCall", "ModelSpec", "TensorSpec"]
