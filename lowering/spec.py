"""What the runtime needs to know about a compiled model besides its code: the names,
shapes and dtypes of its inputs and outputs, the size of its arena and its weights.

A :class:`ModelSpec` is JSON-serialisable (without the weight data), which is how a
shared library carries it.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from typing import Any

import ml_dtypes
import numpy as np

Array = np.ndarray[Any, Any]

INTERFACE_SYMBOL = "xrelay_interface"
"""The symbol of the digest of the interface a model's code was compiled for."""

FORMAT = "xrelay-model-2"
"""The metadata format of shared libraries (2: ``xrelay_entry(args, nthreads)``)."""


@dataclass(frozen=True)
class TensorSpec:
    """One input or output: name, shape and numpy dtype name."""

    name: str
    shape: tuple[int, ...]
    dtype: str

    @property
    def np_dtype(self) -> np.dtype[Any]:
        # numpy knows the name "bfloat16" only once ml_dtypes is imported
        if self.dtype == "bfloat16":
            return np.dtype(ml_dtypes.bfloat16)
        return np.dtype(self.dtype)

    @property
    def nbytes(self) -> int:
        return int(np.prod(self.shape, dtype=np.int64)) * self.np_dtype.itemsize

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "shape": list(self.shape), "dtype": self.dtype}

    @staticmethod
    def from_json(data: dict[str, Any]) -> TensorSpec:
        return TensorSpec(
            str(data["name"]), tuple(int(d) for d in data["shape"]), str(data["dtype"])
        )


@dataclass(frozen=True)
class KernelCall:
    """One kernel call timed by a profiled build: the kernel, the relay group it
    runs (a fused function's name, or the op), the relay ops in it, its output shapes,
    its multiply-adds (0 where it has no convolution or matrix product) and the bytes
    it reads and writes."""

    kernel: str
    group: str
    ops: tuple[str, ...]
    shapes: tuple[str, ...]
    macs: int
    bytes: int

    def to_json(self) -> dict[str, Any]:
        return {
            "kernel": self.kernel,
            "group": self.group,
            "ops": list(self.ops),
            "shapes": list(self.shapes),
            "macs": self.macs,
            "bytes": self.bytes,
        }

    @staticmethod
    def from_json(data: dict[str, Any]) -> KernelCall:
        return KernelCall(
            str(data["kernel"]),
            str(data["group"]),
            tuple(str(o) for o in data["ops"]),
            tuple(str(s) for s in data["shapes"]),
            int(data["macs"]),
            int(data["bytes"]),
        )


@dataclass
class ModelSpec:
    """The interface of a compiled model (see the module docstring)."""

    inputs: list[TensorSpec]
    outputs: list[TensorSpec]
    arena_size: int
    weights: list[Array] = field(default_factory=list[Array])
    """The weight arrays, in weight-table order (views of the IR's constant bytes)."""
    entry: str = "xrelay_entry"
    work: int = 0
    """Estimated multiply-adds per run (sizes the default thread team)."""
    profile: list[KernelCall] | None = None
    """A profiled build: the kernel calls it times, in buffer order (``None``: not
    profiled)."""

    def weight_layout(self, alignment: int = 64) -> list[tuple[int, int]]:
        """``(offset, nbytes)`` of each weight in one blob, ``alignment``-aligned."""
        out: list[tuple[int, int]] = []
        offset = 0
        for w in self.weights:
            out.append((offset, w.nbytes))
            offset = (offset + w.nbytes + alignment - 1) // alignment * alignment
        return out

    def to_json(self) -> str:
        """The spec without weight data, with the weights' layout in a blob."""
        return json.dumps(
            {
                "format": FORMAT,
                "entry": self.entry,
                "work": self.work,
                "profile": None
                if self.profile is None
                else [c.to_json() for c in self.profile],
                "inputs": [t.to_json() for t in self.inputs],
                "outputs": [t.to_json() for t in self.outputs],
                "arena_size": self.arena_size,
                "weights": [
                    {"offset": off, "nbytes": n} for off, n in self.weight_layout()
                ],
            }
        )

    @staticmethod
    def from_json(text: str) -> tuple[ModelSpec, list[tuple[int, int]]]:
        """The spec (weights empty) and the blob layout of the weights."""
        data = json.loads(text)
        found = data.get("format")
        if found != FORMAT:
            if isinstance(found, str) and found.startswith("xrelay-model-"):
                raise ValueError(
                    f"an xrelay model of an older format ({found}, this xrelay reads "
                    f"{FORMAT}): export it again"
                )
            raise ValueError("not an xrelay model (unknown metadata format)")
        spec = ModelSpec(
            [TensorSpec.from_json(t) for t in data["inputs"]],
            [TensorSpec.from_json(t) for t in data["outputs"]],
            int(data["arena_size"]),
            entry=str(data["entry"]),
            work=int(data.get("work", 0)),
        )
        calls = data.get("profile")
        if isinstance(calls, list):
            spec.profile = [KernelCall.from_json(c) for c in calls]  # pyright: ignore[reportUnknownVariableType, reportUnknownArgumentType]
        layout = [(int(w["offset"]), int(w["nbytes"])) for w in data["weights"]]
        return spec, layout


def interface_digest(metadata: str | bytes) -> bytes:
    data = metadata.encode() if isinstance(metadata, str) else metadata
    return hashlib.sha256(data).digest()


def interface_global(metadata: str) -> str:
    """LLVM IR defining ``xrelay_interface`` (the metadata's digest), appended to the
    model's IR so that the code names the interface it was compiled for."""
    body = "".join(f"\\{b:02X}" for b in interface_digest(metadata))
    return f'@{INTERFACE_SYMBOL} = dso_local constant [32 x i8] c"{body}", align 8\n'
