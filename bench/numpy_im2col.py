"""A plain numpy implementation of the shared models, the in-process peer of
``bench/e2e.py``: the ONNX graph is read once (weights as numpy arrays, batch norms
folded into the preceding convolutions), then every run evaluates it node by node with
numpy; convolutions are im2col (a strided window view copied to a matrix) times the
weight matrix through numpy's BLAS, dense layers one BLAS call.

Supports the ops of the shared models: Conv, BatchNormalization, Relu, MaxPool,
AveragePool, GlobalAveragePool, Add, Flatten, Gemm, MatMul, Softmax.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

Array = np.ndarray[Any, Any]


def _attrs(node: Any) -> dict[str, Any]:
    from onnx import helper

    return {a.name: helper.get_attribute_value(a) for a in node.attribute}


def _pads(attrs: dict[str, Any]) -> tuple[int, int, int, int]:
    p = list(attrs.get("pads", [0, 0, 0, 0]))
    return p[0], p[1], p[2], p[3]


def _windows(
    x: Array,
    kh: int,
    kw: int,
    stride: tuple[int, int],
    pads: tuple[int, ...],
    fill: float,
) -> tuple[Array, int, int]:
    """``[N, C, OH, OW, KH, KW]`` windows of ``x`` padded with ``fill``."""
    pt, pl, pb, pr = pads
    if any(pads):
        x = np.pad(x, ((0, 0), (0, 0), (pt, pb), (pl, pr)), constant_values=fill)
    sh, sw = stride
    oh = (x.shape[2] - kh) // sh + 1
    ow = (x.shape[3] - kw) // sw + 1
    view = np.lib.stride_tricks.sliding_window_view(x, (kh, kw), axis=(2, 3))
    return view[:, :, : (oh - 1) * sh + 1 : sh, : (ow - 1) * sw + 1 : sw], oh, ow


class NumpyModel:
    """An ONNX model evaluated with numpy (see the module docstring)."""

    def __init__(self, path: str | Path):
        import onnx
        from onnx import numpy_helper

        model = onnx.load(str(path))
        graph = model.graph
        self.consts: dict[str, Array] = {
            t.name: numpy_helper.to_array(t).astype(np.float32, copy=False)
            for t in graph.initializer
        }
        self.input = graph.input[0].name
        self.output = graph.output[0].name
        self.steps: list[tuple[Callable[..., Array], list[str], str]] = []
        nodes = list(graph.node)
        producers = {out: n for n in nodes for out in n.output}
        folded: set[int] = set()
        for node in nodes:
            if id(node) in folded:
                continue
            if node.op_type == "Conv":
                consumer = [n for n in nodes if node.output[0] in n.input]
                if len(consumer) == 1 and consumer[0].op_type == "BatchNormalization":
                    bn = consumer[0]
                    folded.add(id(bn))
                    self.steps.append(self._conv(node, bn, bn.output[0]))
                    continue
                self.steps.append(self._conv(node, None, node.output[0]))
            else:
                self.steps.append(self._simple(node))
        del producers

    # -- node builders ------------------------------------------------------------------

    def _conv(
        self, node: Any, bn: Any | None, out_name: str
    ) -> tuple[Callable[..., Array], list[str], str]:
        attrs = _attrs(node)
        w = self.consts[node.input[1]]
        b = (
            self.consts[node.input[2]]
            if len(node.input) > 2
            else np.zeros(w.shape[0], np.float32)
        )
        if bn is not None:
            eps = _attrs(bn).get("epsilon", 1e-5)
            gamma, beta, mean, var = (self.consts[n] for n in bn.input[1:5])
            scale = gamma / np.sqrt(var + eps)
            w = w * scale[:, None, None, None]
            b = (b - mean) * scale + beta
        o, _, kh, kw = w.shape
        stride = tuple(attrs.get("strides", [1, 1]))
        pads = _pads(attrs)
        wmat = np.ascontiguousarray(w.reshape(o, -1))
        bias = b.astype(np.float32)[:, None]

        def conv(x: Array) -> Array:
            win, oh, ow = _windows(x, kh, kw, (stride[0], stride[1]), pads, 0.0)
            n = x.shape[0]
            # [N, C, OH, OW, KH, KW] -> [C*KH*KW, N*OH*OW] (the im2col copy)
            cols = np.ascontiguousarray(win.transpose(1, 4, 5, 0, 2, 3)).reshape(
                -1, n * oh * ow
            )
            y = wmat @ cols + bias
            return y.reshape(o, n, oh, ow).transpose(1, 0, 2, 3)

        return conv, [node.input[0]], out_name

    def _simple(self, node: Any) -> tuple[Callable[..., Array], list[str], str]:
        attrs = _attrs(node)
        op = node.op_type
        ins = list(node.input)
        fn: Callable[..., Array]
        if op == "Relu":
            fn = lambda x: np.maximum(x, 0)  # noqa: E731
        elif op == "Add":
            fn = np.add
        elif op == "Flatten":
            axis = attrs.get("axis", 1)
            fn = lambda x: x.reshape(int(np.prod(x.shape[:axis])), -1)  # noqa: E731
        elif op == "GlobalAveragePool":
            fn = lambda x: x.mean(axis=(2, 3), keepdims=True)  # noqa: E731
        elif op in ("MaxPool", "AveragePool"):
            kh, kw = attrs["kernel_shape"]
            stride = tuple(attrs.get("strides", [1, 1]))
            pads = _pads(attrs)
            is_max = op == "MaxPool"

            def fn(x: Array) -> Array:
                win, _, _ = _windows(
                    x, kh, kw, stride, pads, -np.inf if is_max else 0.0
                )
                return win.max(axis=(4, 5)) if is_max else win.mean(axis=(4, 5))
        elif op in ("Gemm", "MatMul"):
            w = self.consts[ins[1]]
            if op == "Gemm" and attrs.get("transB", 0):
                w = w.T
            w = np.ascontiguousarray(w) * attrs.get("alpha", 1.0)
            bias = (
                self.consts[ins[2]] * attrs.get("beta", 1.0)
                if op == "Gemm" and len(ins) > 2
                else None
            )

            def fn(x: Array) -> Array:
                y = x @ w
                return y + bias if bias is not None else y

            ins = ins[:1]
        elif op == "Softmax":
            axis = attrs.get("axis", -1)

            def fn(x: Array) -> Array:
                e = np.exp(x - x.max(axis=axis, keepdims=True))
                return e / e.sum(axis=axis, keepdims=True)
        elif op == "BatchNormalization":
            eps = attrs.get("epsilon", 1e-5)
            gamma, beta, mean, var = (self.consts[n] for n in ins[1:5])
            scale = (gamma / np.sqrt(var + eps))[None, :, None, None]
            shift = (beta - mean * gamma / np.sqrt(var + eps))[None, :, None, None]
            fn = lambda x: x * scale + shift  # noqa: E731
            ins = ins[:1]
        else:
            raise NotImplementedError(f"the numpy peer has no {op}")
        return fn, ins, node.output[0]

    def __call__(self, x: Array) -> Array:
        env: dict[str, Array] = {self.input: x}
        for fn, ins, out in self.steps:
            env[out] = fn(*[env[n] if n in env else self.consts[n] for n in ins])
        return env[self.output]
