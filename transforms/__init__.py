"""Relay's passes on xrelay's IR, one module per pass. Importing this package
registers every pass in the pass registry."""

from xrelay.transforms.infer_type import InferType

__all__ = ["InferType"]
