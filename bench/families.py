"""Architecture families generated here: blocks in the shapes and operator mix of
published networks, exported the way PyTorch's exporter writes them (batch norm
folded into convolution biases, LayerNorm and GELU written out or as ONNX ops,
attention heads split with Reshape/Transpose), with random weights.

    .venv/bin/python bench/families.py [--out DIR] [--scale 1.0]
    .venv/bin/python bench/e2e.py --models DIR

``--out`` (default ``$TMPDIR/xrelay-families``) receives a folder in the layout of
the shared models (``manifest.json`` and ``zoo/<name>/`` with ``model.onnx``, the
input and reference output ``.npy`` files and ``meta.json``), so that
``bench/e2e.py --models DIR`` measures them next to onnxruntime. The reference
outputs come from onnxruntime when it is installed, else from ``onnx.reference``.

The zoo of the shared folder holds four architectures; these stand for the other
families the product must be fast on: channel shuffles with channel counts that
are not multiples of the vector width (ShuffleNet-V2), grouped convolutions with SE
gates (RegNet-Y, ResNeXt), 7x7 depthwise + LayerNorm + MLP on NHWC tensors
(ConvNeXt), a vision transformer as exported (ViT), hard-swish inverted residuals
with SE (MobileNet-V3), concatenation-heavy mixed branches (Inception-V3) and
a causal decoder with a Where mask and tanh GELU (GPT-2), and one decode step of
it over a KV cache given as inputs (token id, past keys and values: every product
a matrix-vector product over a large weight, the LM head 50257 x 768).

``--scale`` shrinks the spatial sizes (the tests build every family at a small
scale and compare xrelay with the reference).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


class Graph:
    """A small ONNX graph builder: nodes, initialisers with random weights, fresh
    names."""

    def __init__(self, seed: int = 0):
        self.rng = np.random.default_rng(seed)
        self.nodes: list[onnx.NodeProto] = []
        self.inits: list[onnx.TensorProto] = []
        self.count = 0

    def name(self, hint: str) -> str:
        self.count += 1
        return f"{hint}_{self.count}"

    def const(self, value: Any, dtype: Any = np.float32, hint: str = "c") -> str:
        name = self.name(hint)
        self.inits.append(numpy_helper.from_array(np.asarray(value, dtype), name))
        return name

    def weight(self, *shape: int, fan_in: int | None = None) -> str:
        fan = fan_in if fan_in is not None else int(np.prod(shape[1:])) or 1
        scale = 1.0 / np.sqrt(fan)
        return self.const(self.rng.standard_normal(shape) * scale, hint="w")

    def op(self, kind: str, inputs: list[str], **attrs: Any) -> str:
        out = self.name(kind.lower())
        self.nodes.append(helper.make_node(kind, inputs, [out], **attrs))
        return out

    def ops(self, kind: str, inputs: list[str], n: int, **attrs: Any) -> list[str]:
        outs = [self.name(kind.lower()) for _ in range(n)]
        self.nodes.append(helper.make_node(kind, inputs, outs, **attrs))
        return outs

    def conv(
        self,
        x: str,
        cin: int,
        cout: int,
        k: int = 1,
        stride: int = 1,
        groups: int = 1,
        act: str | None = None,
    ) -> str:
        w = self.weight(cout, cin // groups, k, k)
        b = self.const(self.rng.standard_normal(cout) * 0.1, hint="b")
        p = k // 2
        y = self.op("Conv", [x, w, b], group=groups, pads=[p] * 4, strides=[stride] * 2)
        return self.activation(y, act)

    def activation(self, x: str, act: str | None) -> str:
        if act is None:
            return x
        if act == "relu":
            return self.op("Relu", [x])
        if act == "hardswish":
            return self.op("HardSwish", [x])
        if act == "hardsigmoid":
            return self.op("HardSigmoid", [x], alpha=1.0 / 6.0)
        if act == "sigmoid":
            return self.op("Sigmoid", [x])
        raise ValueError(act)

    def gelu_erf(self, x: str) -> str:
        y = self.op("Div", [x, self.const(np.sqrt(2.0))])
        y = self.op("Erf", [y])
        y = self.op("Add", [y, self.const(1.0)])
        y = self.op("Mul", [x, y])
        return self.op("Mul", [y, self.const(0.5)])

    def layer_norm_written_out(self, x: str, dim: int) -> str:
        mu = self.op("ReduceMean", [x], axes=[-1])
        d = self.op("Sub", [x, mu])
        var = self.op("ReduceMean", [self.op("Pow", [d, self.const(2.0)])], axes=[-1])
        sd = self.op("Sqrt", [self.op("Add", [var, self.const(1e-6)])])
        y = self.op("Div", [d, sd])
        y = self.op("Mul", [y, self.const(1.0 + 0.1 * self.rng.standard_normal(dim))])
        return self.op("Add", [y, self.const(0.1 * self.rng.standard_normal(dim))])

    def layer_norm(self, x: str, dim: int) -> str:
        g = self.const(1.0 + 0.1 * self.rng.standard_normal(dim))
        b = self.const(0.1 * self.rng.standard_normal(dim))
        return self.op("LayerNormalization", [x, g, b], axis=-1, epsilon=1e-6)

    def linear(self, x: str, cin: int, cout: int) -> str:
        y = self.op("MatMul", [x, self.weight(cin, cout, fan_in=cin)])
        return self.op("Add", [y, self.const(self.rng.standard_normal(cout) * 0.1)])

    def se(self, x: str, c: int, squeeze: int, gate: str) -> str:
        s = self.op("GlobalAveragePool", [x])
        s = self.conv(s, c, squeeze, act="relu")
        s = self.conv(s, squeeze, c, act=gate)
        return self.op("Mul", [x, s])

    def model(
        self,
        x_shape: list[int],
        x: str,
        y: str,
        opset: int,
        x_type: int = TensorProto.FLOAT,
        extra: dict[str, list[int]] | None = None,
    ) -> onnx.ModelProto:
        """The graph with input ``x`` (``input``, of ``x_type``), the float inputs
        ``extra`` (name -> shape) after it, and output ``y``."""
        inputs = [helper.make_tensor_value_info("input", x_type, x_shape)]
        inputs += [
            helper.make_tensor_value_info(name, TensorProto.FLOAT, shape)
            for name, shape in (extra or {}).items()
        ]
        graph = helper.make_graph(
            self.nodes,
            "family",
            inputs,
            [helper.make_tensor_value_info(y, TensorProto.FLOAT, None)],
            self.inits,
        )
        assert x == "input"
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
        model.ir_version = 8
        # the output's shape, as the exporters write it (onnx.checker wants one)
        inferred = onnx.shape_inference.infer_shapes(model, strict_mode=True)
        model.graph.output[0].CopyFrom(inferred.graph.output[0])
        return model


def _size(base: float, scale: float, multiple: int = 1) -> int:
    return max(multiple, round(base * scale / multiple) * multiple)


def shufflenet_v2(scale: float) -> tuple[onnx.ModelProto, list[int]]:
    """ShuffleNet-V2 1.0x, stage 2's last units and stage 3's first: channel split,
    1x1 / depthwise 3x3 / 1x1 branch, concatenation, channel shuffle (Reshape,
    Transpose, Reshape); 116 and 232 channels."""
    g = Graph(1)
    hw = _size(28, scale, 2)

    def shuffle(x: str, c: int, h: int) -> str:
        y = g.op("Reshape", [x, g.const([1, 2, c // 2, h, h], np.int64)])
        y = g.op("Transpose", [y], perm=[0, 2, 1, 3, 4])
        return g.op("Reshape", [y, g.const([1, c, h, h], np.int64)])

    def unit(x: str, c: int, h: int) -> str:
        half = c // 2
        x1, x2 = g.ops("Split", [x, g.const([half, half], np.int64)], 2, axis=1)
        y = g.conv(x2, half, half, act="relu")
        y = g.conv(y, half, half, 3, groups=half)
        y = g.conv(y, half, half, act="relu")
        return shuffle(g.op("Concat", [x1, y], axis=1), c, h)

    def down(x: str, cin: int, cout: int, h: int) -> str:
        half = cout // 2
        a = g.conv(x, cin, cin, 3, stride=2, groups=cin)
        a = g.conv(a, cin, half, act="relu")
        b = g.conv(x, cin, half, act="relu")
        b = g.conv(b, half, half, 3, stride=2, groups=half)
        b = g.conv(b, half, half, act="relu")
        return shuffle(g.op("Concat", [a, b], axis=1), cout, h // 2)

    x = "input"
    for _ in range(3):
        x = unit(x, 116, hw)
    x = down(x, 116, 232, hw)
    for _ in range(3):
        x = unit(x, 232, hw // 2)
    return g.model([1, 116, hw, hw], "input", x, 13), [1, 116, hw, hw]


def regnet_y(scale: float) -> tuple[onnx.ModelProto, list[int]]:
    """RegNet-Y-400MF's last two stages: grouped 3x3 convolutions of group width 8
    with SE gates, 208 then 440 channels (440 = 8 x 55)."""
    g = Graph(2)
    hw = _size(14, scale, 2)

    def block(x: str, cin: int, c: int, stride: int) -> str:
        y = g.conv(x, cin, c, act="relu")
        y = g.conv(y, c, c, 3, stride=stride, groups=c // 8, act="relu")
        y = g.se(y, c, cin // 4, "sigmoid")
        y = g.conv(y, c, c)
        short = x if stride == 1 and cin == c else g.conv(x, cin, c, stride=stride)
        return g.op("Relu", [g.op("Add", [short, y])])

    x = "input"
    x = block(x, 208, 208, 1)
    x = block(x, 208, 208, 1)
    x = block(x, 208, 440, 2)
    x = block(x, 440, 440, 1)
    return g.model([1, 208, hw, hw], "input", x, 13), [1, 208, hw, hw]


def resnext(scale: float) -> tuple[onnx.ModelProto, list[int]]:
    """ResNeXt-50 32x4d's second stage: bottlenecks around a 3x3 convolution of 32
    groups of width 8 (256 channels)."""
    g = Graph(3)
    hw = _size(28, scale)
    x = "input"
    for _ in range(2):
        y = g.conv(x, 512, 256, act="relu")
        y = g.conv(y, 256, 256, 3, groups=32, act="relu")
        y = g.conv(y, 256, 512)
        x = g.op("Relu", [g.op("Add", [x, y])])
    return g.model([1, 512, hw, hw], "input", x, 13), [1, 512, hw, hw]


def convnext(scale: float) -> tuple[onnx.ModelProto, list[int]]:
    """ConvNeXt-Tiny's first stage: 7x7 depthwise convolution, NHWC permute,
    LayerNorm written out, MLP with erf GELU, layer scale, permute back, residual."""
    g = Graph(4)
    hw = _size(56, scale)
    c = 96
    x = "input"
    for _ in range(3):
        y = g.conv(x, c, c, 7, groups=c)
        y = g.op("Transpose", [y], perm=[0, 2, 3, 1])
        y = g.layer_norm_written_out(y, c)
        y = g.gelu_erf(g.linear(y, c, 4 * c))
        y = g.linear(y, 4 * c, c)
        y = g.op("Mul", [y, g.const(0.1 * g.rng.standard_normal(c))])
        y = g.op("Transpose", [y], perm=[0, 3, 1, 2])
        x = g.op("Add", [x, y])
    return g.model([1, c, hw, hw], "input", x, 13), [1, c, hw, hw]


def vit(scale: float) -> tuple[onnx.ModelProto, list[int]]:
    """ViT-Small/16 with two encoder layers: patch embedding, class token,
    position embedding, fused QKV split into heads by Reshape/Transpose/Gather,
    softmax attention, LayerNormalization, erf GELU MLP, classification head."""
    g = Graph(5)
    side = _size(224, scale, 16)
    dim, heads, hd = 384, 6, 64
    tokens = (side // 16) ** 2 + 1
    x = g.op(
        "Conv",
        ["input", g.weight(dim, 3, 16, 16), g.const(np.zeros(dim))],
        strides=[16, 16],
    )
    x = g.op("Reshape", [x, g.const([1, dim, tokens - 1], np.int64)])
    x = g.op("Transpose", [x], perm=[0, 2, 1])
    cls = g.const(0.02 * g.rng.standard_normal((1, 1, dim)))
    x = g.op("Concat", [cls, x], axis=1)
    x = g.op("Add", [x, g.const(0.02 * g.rng.standard_normal((1, tokens, dim)))])
    for _ in range(2):
        y = g.layer_norm(x, dim)
        qkv = g.linear(y, dim, 3 * dim)
        qkv = g.op("Reshape", [qkv, g.const([1, tokens, 3, heads, hd], np.int64)])
        qkv = g.op("Transpose", [qkv], perm=[2, 0, 3, 1, 4])
        q, k, v = (
            g.op("Gather", [qkv, g.const(i, np.int64)], axis=0) for i in range(3)
        )
        kt = g.op("Transpose", [k], perm=[0, 1, 3, 2])
        a = g.op("MatMul", [q, kt])
        a = g.op("Mul", [a, g.const(hd**-0.5)])
        a = g.op("Softmax", [a], axis=-1)
        o = g.op("MatMul", [a, v])
        o = g.op("Transpose", [o], perm=[0, 2, 1, 3])
        o = g.op("Reshape", [o, g.const([1, tokens, dim], np.int64)])
        x = g.op("Add", [x, g.linear(o, dim, dim)])
        y = g.layer_norm(x, dim)
        y = g.linear(g.gelu_erf(g.linear(y, dim, 4 * dim)), 4 * dim, dim)
        x = g.op("Add", [x, y])
    x = g.layer_norm(x, dim)
    x = g.op("Gather", [x, g.const(0, np.int64)], axis=1)
    x = g.linear(x, dim, 1000)
    return g.model([1, 3, side, side], "input", x, 17), [1, 3, side, side]


def mobilenet_v3(scale: float) -> tuple[onnx.ModelProto, list[int]]:
    """MobileNet-V3-Large's 5x5 stage: inverted residuals with hard-swish, 5x5
    depthwise convolutions and hard-sigmoid SE gates (40 -> 80 channels)."""
    g = Graph(6)
    hw = _size(28, scale, 2)

    def block(x: str, cin: int, exp: int, cout: int, stride: int, se: bool) -> str:
        y = g.conv(x, cin, exp, act="hardswish")
        y = g.conv(y, exp, exp, 5, stride=stride, groups=exp, act="hardswish")
        if se:
            y = g.se(y, exp, _size(exp / 4, 1.0, 8), "hardsigmoid")
        y = g.conv(y, exp, cout)
        return g.op("Add", [x, y]) if stride == 1 and cin == cout else y

    x = "input"
    x = block(x, 40, 120, 40, 1, True)
    x = block(x, 40, 240, 80, 2, False)
    x = block(x, 80, 200, 80, 1, False)
    x = block(x, 80, 480, 112, 1, True)
    return g.model([1, 40, hw, hw], "input", x, 14), [1, 40, hw, hw]


def inception_v3(scale: float) -> tuple[onnx.ModelProto, list[int]]:
    """Inception-V3's Mixed_5b/5c: four branches (1x1; 1x1 -> 5x5; 1x1 -> 3x3 ->
    3x3; 3x3 average pool -> 1x1) concatenated, 192 -> 256 -> 288 channels."""
    g = Graph(7)
    hw = _size(35, scale)

    def mixed(x: str, cin: int, pool_c: int) -> tuple[str, int]:
        a = g.conv(x, cin, 64, act="relu")
        b = g.conv(g.conv(x, cin, 48, act="relu"), 48, 64, 5, act="relu")
        c = g.conv(g.conv(x, cin, 64, act="relu"), 64, 96, 3, act="relu")
        c = g.conv(c, 96, 96, 3, act="relu")
        d = g.op(
            "AveragePool", [x], kernel_shape=[3, 3], pads=[1] * 4, count_include_pad=1
        )
        d = g.conv(d, cin, pool_c, act="relu")
        return g.op("Concat", [a, b, c, d], axis=1), 64 + 64 + 96 + pool_c

    x, c = mixed("input", 192, 32)
    x, c = mixed(x, c, 64)
    return g.model([1, 192, hw, hw], "input", x, 13), [1, 192, hw, hw]


def gpt2(scale: float) -> tuple[onnx.ModelProto, list[int]]:
    """GPT-2 small with two decoder layers on 128 embedded tokens (768 wide, 12
    heads): fused QKV split by Split, heads by Reshape/Transpose, the causal mask
    sliced from a constant lower-triangular table and applied with Where, tanh GELU
    written out with Pow, LayerNormalization."""
    g = Graph(8)
    seq = _size(128, scale, 8)
    dim, heads, hd = 768, 12, 64
    table = np.tril(np.ones((1, 1, 1024, 1024), np.bool_))
    mask_table = g.const(table, np.bool_)
    starts, ends = g.const([0, 0], np.int64), g.const([seq, seq], np.int64)
    mask = g.op("Slice", [mask_table, starts, ends, g.const([2, 3], np.int64)])
    x = "input"
    for _ in range(2):
        y = g.layer_norm(x, dim)
        qkv = g.linear(y, dim, 3 * dim)
        q, k, v = g.ops("Split", [qkv, g.const([dim] * 3, np.int64)], 3, axis=2)
        shape = g.const([1, seq, heads, hd], np.int64)
        q, k, v = (g.op("Reshape", [t, shape]) for t in (q, k, v))
        q = g.op("Transpose", [q], perm=[0, 2, 1, 3])
        kt = g.op("Transpose", [k], perm=[0, 2, 3, 1])
        v = g.op("Transpose", [v], perm=[0, 2, 1, 3])
        a = g.op("Div", [g.op("MatMul", [q, kt]), g.const(np.sqrt(hd))])
        a = g.op("Where", [mask, a, g.const(-10000.0)])
        a = g.op("Softmax", [a], axis=-1)
        o = g.op("Transpose", [g.op("MatMul", [a, v])], perm=[0, 2, 1, 3])
        o = g.op("Reshape", [o, g.const([1, seq, dim], np.int64)])
        x = g.op("Add", [x, g.linear(o, dim, dim)])
        y = g.linear(g.layer_norm(x, dim), dim, 4 * dim)
        cube = g.op("Mul", [g.op("Pow", [y, g.const(3.0)]), g.const(0.044715)])
        inner = g.op("Mul", [g.op("Add", [y, cube]), g.const(np.sqrt(2.0 / np.pi))])
        act = g.op("Add", [g.op("Tanh", [inner]), g.const(1.0)])
        act = g.op("Mul", [g.op("Mul", [y, g.const(0.5)]), act])
        x = g.op("Add", [x, g.linear(act, 4 * dim, dim)])
    x = g.layer_norm(x, dim)
    return g.model([1, seq, dim], "input", x, 17), [1, seq, dim]


def gpt2_decode(scale: float) -> tuple[onnx.ModelProto, list[int]]:
    """One GPT-2 small decode step, as exported with a KV cache: the token's id
    (``input``, int64 ``[1, 1]``) looked up in the token embedding (Gather on a
    50257 x 768 table) plus its position's, two decoder layers whose attention
    runs the new token's query against the past keys and values (inputs
    ``past_k{i}`` / ``past_v{i}``, ``[1, 12, 127, 64]``) concatenated with its own
    (K transposed for ``Q K^T`` as PyTorch writes it), tanh GELU MLP, and the LM
    head (MatMul by a 768 x 50257 weight) to the next token's logits. Every
    product has one row: matrix-vector work over large weights. ``scale`` shrinks
    the vocabulary (by its square) and the cache."""
    g = Graph(9)
    dim, heads, hd = 768, 12, 64
    vocab = _size(50257, scale * scale)
    past = _size(127, scale)
    wte = g.const(g.rng.standard_normal((vocab, dim)) * 0.02, hint="wte")
    x = g.op("Gather", [wte, "input"], axis=0)
    wpe = g.const(g.rng.standard_normal((1024, dim)) * 0.01, hint="wpe")
    x = g.op("Add", [x, g.op("Gather", [wpe, g.const([[past]], np.int64)], axis=0)])
    extra: dict[str, list[int]] = {}
    for layer in range(2):
        past_k, past_v = f"past_k{layer}", f"past_v{layer}"
        extra[past_k] = extra[past_v] = [1, heads, past, hd]
        y = g.layer_norm(x, dim)
        qkv = g.linear(y, dim, 3 * dim)
        q, k, v = g.ops("Split", [qkv, g.const([dim] * 3, np.int64)], 3, axis=2)
        shape = g.const([1, 1, heads, hd], np.int64)
        q, k, v = (
            g.op("Transpose", [g.op("Reshape", [t, shape])], perm=[0, 2, 1, 3])
            for t in (q, k, v)
        )
        keys = g.op("Concat", [past_k, k], axis=2)
        values = g.op("Concat", [past_v, v], axis=2)
        kt = g.op("Transpose", [keys], perm=[0, 1, 3, 2])
        a = g.op("Div", [g.op("MatMul", [q, kt]), g.const(np.sqrt(hd))])
        a = g.op("Softmax", [a], axis=-1)
        o = g.op("Transpose", [g.op("MatMul", [a, values])], perm=[0, 2, 1, 3])
        o = g.op("Reshape", [o, g.const([1, 1, dim], np.int64)])
        x = g.op("Add", [x, g.linear(o, dim, dim)])
        y = g.linear(g.layer_norm(x, dim), dim, 4 * dim)
        cube = g.op("Mul", [g.op("Pow", [y, g.const(3.0)]), g.const(0.044715)])
        inner = g.op("Mul", [g.op("Add", [y, cube]), g.const(np.sqrt(2.0 / np.pi))])
        act = g.op("Add", [g.op("Tanh", [inner]), g.const(1.0)])
        act = g.op("Mul", [g.op("Mul", [y, g.const(0.5)]), act])
        x = g.op("Add", [x, g.linear(act, 4 * dim, dim)])
    x = g.layer_norm(x, dim)
    logits = g.op("MatMul", [x, g.weight(dim, vocab, fan_in=dim)])
    model = g.model([1, 1], "input", logits, 17, TensorProto.INT64, extra)
    return model, [1, 1]


def random_inputs(model: onnx.ModelProto, seed: int = 0) -> dict[str, np.ndarray]:
    """Random values for every input of a family's model: standard normal floats,
    integers (token ids) in ``[0, 100)``."""
    rng = np.random.default_rng(seed)
    feeds: dict[str, np.ndarray] = {}
    for value in model.graph.input:
        tensor = value.type.tensor_type
        shape = [d.dim_value for d in tensor.shape.dim]
        if tensor.elem_type == TensorProto.FLOAT:
            feeds[value.name] = rng.standard_normal(shape).astype(np.float32)
        else:
            dtype = helper.tensor_dtype_to_np_dtype(tensor.elem_type)
            feeds[value.name] = rng.integers(0, 100, shape).astype(dtype)
    return feeds


def squeezenet(scale: float) -> tuple[onnx.ModelProto, list[int]]:
    """SqueezeNet 1.1's middle: fire modules (1x1 squeeze, then 1x1 and 3x3 expand
    branches concatenated), a ceil-mode 3x3/2 max pool between them, and the
    classifier (1x1 convolution to 1000 classes, ReLU, global average pool,
    flatten)."""
    g = Graph(9)
    hw = _size(55, scale)

    def fire(x: str, cin: int, squeeze: int, expand: int) -> str:
        s = g.conv(x, cin, squeeze, act="relu")
        a = g.conv(s, squeeze, expand, act="relu")
        b = g.conv(s, squeeze, expand, 3, act="relu")
        return g.op("Concat", [a, b], axis=1)

    x = fire("input", 64, 16, 64)
    x = fire(x, 128, 16, 64)
    x = g.op("MaxPool", [x], kernel_shape=[3, 3], strides=[2, 2], ceil_mode=1)
    x = fire(x, 128, 32, 128)
    x = fire(x, 256, 32, 128)
    x = g.op("MaxPool", [x], kernel_shape=[3, 3], strides=[2, 2], ceil_mode=1)
    x = fire(x, 256, 48, 192)
    x = fire(x, 384, 64, 256)
    x = g.conv(x, 512, 1000, act="relu")
    x = g.op("Flatten", [g.op("GlobalAveragePool", [x])])
    return g.model([1, 64, hw, hw], "input", x, 13), [1, 64, hw, hw]


def deeplab_v3(scale: float) -> tuple[onnx.ModelProto, list[int]]:
    """DeepLabV3's ASPP head on a ResNet's stride-8 features: a 1x1 branch, three
    3x3 branches dilated 12, 24 and 36 at full scale (wider than the map: most taps
    fall in the padding), an image-pooling branch broadcast back by Resize, concatenation,
    projection, a 3x3 convolution, the 21-class classifier, and the bilinear
    upsampling to the input's size."""
    g = Graph(10)
    hw = _size(28, scale)
    c, mid = 512, 256
    x = "input"
    branches = [g.conv(x, c, mid, act="relu")]
    # the rates scale with the map, as DeepLab's do with its output stride
    for rate in (max(1, round(r * scale)) for r in (12, 24, 36)):
        w = g.weight(mid, c, 3, 3)
        b = g.const(g.rng.standard_normal(mid) * 0.1, hint="b")
        y = g.op("Conv", [x, w, b], pads=[rate] * 4, dilations=[rate, rate], group=1)
        branches.append(g.op("Relu", [y]))
    pooled = g.conv(g.op("GlobalAveragePool", [x]), c, mid, act="relu")
    size = g.const([1, mid, hw, hw], np.int64)
    branches.append(g.op("Resize", [pooled, "", "", size], mode="linear"))
    y = g.conv(g.op("Concat", branches, axis=1), 5 * mid, mid, act="relu")
    y = g.conv(y, mid, mid, 3, act="relu")
    y = g.conv(y, mid, 21)
    out = g.const([1, 21, 8 * hw, 8 * hw], np.int64)
    y = g.op("Resize", [y, "", "", out], mode="linear")
    return g.model([1, c, hw, hw], "input", y, 13), [1, c, hw, hw]


def whisper_encoder(scale: float) -> tuple[onnx.ModelProto, list[int]]:
    """Whisper-tiny's encoder with two layers on a log-mel spectrogram: two 1-D
    convolutions (the second of stride 2) with erf GELU, sinusoidal positions,
    pre-LayerNorm attention whose scale is split between Q and K (Whisper's export
    multiplies both by d^-0.25), heads by Reshape/Transpose, an erf GELU MLP."""
    g = Graph(11)
    frames = _size(1500, scale, 2)
    dim, heads, hd, mels = 384, 6, 64, 80
    x = g.op(
        "Conv",
        ["input", g.weight(dim, mels, 3), g.const(np.zeros(dim))],
        pads=[1, 1],
    )
    x = g.gelu_erf(x)
    x = g.op(
        "Conv",
        [x, g.weight(dim, dim, 3), g.const(np.zeros(dim))],
        pads=[1, 1],
        strides=[2],
    )
    x = g.op("Transpose", [g.gelu_erf(x)], perm=[0, 2, 1])
    tokens = frames // 2
    x = g.op("Add", [x, g.const(0.02 * g.rng.standard_normal((tokens, dim)))])
    scale_qk = g.const(hd**-0.25)
    for _ in range(2):
        y = g.layer_norm(x, dim)
        shape = g.const([1, tokens, heads, hd], np.int64)

        def heads_of(t: str, perm: list[int], shape: str = shape) -> str:
            t = g.op("Mul", [t, scale_qk])
            return g.op("Transpose", [g.op("Reshape", [t, shape])], perm=perm)

        q = heads_of(g.linear(y, dim, dim), [0, 2, 1, 3])
        k = heads_of(g.op("MatMul", [y, g.weight(dim, dim)]), [0, 2, 3, 1])
        v = g.op("Reshape", [g.linear(y, dim, dim), shape])
        v = g.op("Transpose", [v], perm=[0, 2, 1, 3])
        a = g.op("Softmax", [g.op("MatMul", [q, k])], axis=-1)
        o = g.op("Transpose", [g.op("MatMul", [a, v])], perm=[0, 2, 1, 3])
        o = g.op("Reshape", [o, g.const([1, tokens, dim], np.int64)])
        x = g.op("Add", [x, g.linear(o, dim, dim)])
        y = g.layer_norm(x, dim)
        x = g.op(
            "Add", [x, g.linear(g.gelu_erf(g.linear(y, dim, 4 * dim)), 4 * dim, dim)]
        )
    x = g.layer_norm(x, dim)
    return g.model([1, mels, frames], "input", x, 17), [1, mels, frames]


FAMILIES: dict[str, Callable[[float], tuple[onnx.ModelProto, list[int]]]] = {
    "shufflenet_v2": shufflenet_v2,
    "regnet_y": regnet_y,
    "resnext": resnext,
    "convnext": convnext,
    "vit": vit,
    "mobilenet_v3": mobilenet_v3,
    "inception_v3": inception_v3,
    "gpt2": gpt2,
    "gpt2_decode": gpt2_decode,
    "squeezenet": squeezenet,
    "deeplab_v3": deeplab_v3,
    "whisper_encoder": whisper_encoder,
}


def reference(
    model: onnx.ModelProto, feeds: dict[str, np.ndarray[Any, Any]]
) -> np.ndarray[Any, Any]:
    """The model's output: onnxruntime's when installed, else ``onnx.reference``'s."""
    try:
        import onnxruntime as ort  # pyright: ignore[reportMissingImports]
    except ImportError:
        from onnx.reference import ReferenceEvaluator

        return np.asarray(ReferenceEvaluator(model).run(None, feeds)[0])
    session = ort.InferenceSession(model.SerializeToString())  # pyright: ignore
    return np.asarray(session.run(None, feeds)[0])  # pyright: ignore


def write(out: Path, scale: float, names: list[str]) -> None:
    zoo = out / "zoo"
    zoo.mkdir(parents=True, exist_ok=True)
    (out / "manifest.json").write_text(json.dumps({"models": {}}))
    for name in names:
        model, shape = FAMILIES[name](scale)
        folder = zoo / name
        folder.mkdir(exist_ok=True)
        feeds = random_inputs(model)
        y = reference(model, feeds)
        onnx.save(model, str(folder / "model.onnx"))
        inputs: list[dict[str, Any]] = []
        for k, (input_name, value) in enumerate(feeds.items()):
            np.save(folder / f"input_{k}.npy", value)
            inputs.append(
                {
                    "name": input_name,
                    "file": f"input_{k}.npy",
                    "shape": list(value.shape),
                }
            )
        np.save(folder / "output_0.npy", y)
        params = sum(int(np.prod(t.dims)) for t in model.graph.initializer)
        meta = {
            "name": name,
            "generator": "bench/families.py",
            "scale": scale,
            "params": params,
            "inputs": inputs,
            "outputs": [{"file": "output_0.npy", "shape": list(y.shape)}],
        }
        (folder / "meta.json").write_text(json.dumps(meta, indent=1))
        print(f"{name}: {folder / 'model.onnx'}  input {shape}  output {list(y.shape)}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    default = Path(os.environ.get("TMPDIR", tempfile.gettempdir())) / "xrelay-families"
    parser.add_argument("--out", type=Path, default=default)
    parser.add_argument("--scale", type=float, default=1.0)
    parser.add_argument("--only", nargs="*", default=None, choices=sorted(FAMILIES))
    args = parser.parse_args(argv)
    write(args.out, args.scale, args.only or list(FAMILIES))
    print(f"measure them with: bench/e2e.py --models {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
