"""Converters of ``RNN``, ``GRU`` and ``LSTM`` with a static sequence length,
unrolled into relay ops as TVM's importer does: the input projections of every step
are one ``nn.dense`` (``[seq * batch, input] x W^T``), then each step adds
``nn.dense(H, R)`` and applies the gates. All directions (``forward``, ``reverse``,
``bidirectional``), both layouts, optional biases, initial states and LSTM
peepholes, ``clip``, and the activation functions ONNX lists; ``sequence_lens`` only
when it is static and equal to the sequence length everywhere (no padding)."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from xdsl.ir import SSAValue

from xrelay.frontend.onnx.errors import ConversionError
from xrelay.frontend.onnx.graph import Node, Outputs, converter

Act = Callable[[SSAValue], SSAValue]

_GATES = {"RNN": 1, "GRU": 3, "LSTM": 4}
_DEFAULT_ACTS = {
    "RNN": ["Tanh"],
    "GRU": ["Sigmoid", "Tanh"],
    "LSTM": ["Sigmoid", "Tanh", "Tanh"],
}
_DEFAULT_ALPHA = {
    "LeakyRelu": 0.01,
    "HardSigmoid": 0.2,
    "Affine": 1.0,
    "ScaledTanh": 1.0,
    "ThresholdedRelu": 1.0,
    "Elu": 1.0,
}
_DEFAULT_BETA = {"HardSigmoid": 0.5, "Affine": 0.0, "ScaledTanh": 1.0}


def _activation(node: Node, name: str, alpha: float | None, beta: float | None) -> Act:
    a = _DEFAULT_ALPHA.get(name, 0.0) if alpha is None else alpha
    b = _DEFAULT_BETA.get(name, 0.0) if beta is None else beta

    def scalar(v: float, like: SSAValue) -> SSAValue:
        return node.scalar(v, like)

    def act(x: SSAValue) -> SSAValue:
        match name:
            case "Sigmoid":
                return node.op("sigmoid", [x])
            case "Tanh":
                return node.op("tanh", [x])
            case "Relu":
                return node.op("nn.relu", [x])
            case "LeakyRelu":
                return node.op("nn.leaky_relu", [x], alpha=a)
            case "HardSigmoid":
                y = node.op(
                    "add", [node.op("multiply", [x, scalar(a, x)]), scalar(b, x)]
                )
                return node.op("clip", [y], a_min=0.0, a_max=1.0)
            case "Affine":
                return node.op(
                    "add", [node.op("multiply", [x, scalar(a, x)]), scalar(b, x)]
                )
            case "ScaledTanh":
                t = node.op("tanh", [node.op("multiply", [x, scalar(b, x)])])
                return node.op("multiply", [t, scalar(a, x)])
            case "ThresholdedRelu":
                keep = node.op("greater", [x, scalar(a, x)])
                return node.op("where", [keep, x, scalar(0.0, x)])
            case "Softsign":
                den = node.op("add", [scalar(1.0, x), node.op("abs", [x])])
                return node.op("divide", [x, den])
            case "Softplus":
                tail = node.op("exp", [node.op("negative", [node.op("abs", [x])])])
                log1p = node.op("log", [node.op("add", [scalar(1.0, x), tail])])
                return node.op("add", [node.op("nn.relu", [x]), log1p])
            case "Elu":
                one_minus = node.op("subtract", [scalar(1.0, x), node.op("exp", [x])])
                neg = node.op(
                    "multiply", [scalar(a, x), node.op("nn.relu", [one_minus])]
                )
                return node.op("subtract", [node.op("nn.relu", [x]), neg])
            case _:
                raise ConversionError(f"activation '{name}' is not supported")

    return act


def _activations(node: Node, directions: int) -> list[list[Act]]:
    """The activation functions of each direction."""
    per_dir = len(_DEFAULT_ACTS[node.op_type])
    names = node.attrs.get("activations")
    if names is None:
        listed = _DEFAULT_ACTS[node.op_type] * directions
    else:
        listed = [n.decode() if isinstance(n, bytes) else str(n) for n in names]
        if len(listed) == per_dir and directions == 2:
            listed = listed * 2
        if len(listed) != per_dir * directions:
            raise ConversionError(
                f"{len(listed)} activations for {directions} direction(s) of {per_dir}"
            )
    alphas = (
        node.attr_floats("activation_alpha", [])
        if node.has_attr("activation_alpha")
        else []
    )
    betas = (
        node.attr_floats("activation_beta", [])
        if node.has_attr("activation_beta")
        else []
    )
    acts: list[Act] = []
    for k, name in enumerate(listed):
        alpha = alphas[k] if k < len(alphas) else None
        beta = betas[k] if k < len(betas) else None
        acts.append(_activation(node, name, alpha, beta))
    return [acts[d * per_dir : (d + 1) * per_dir] for d in range(directions)]


def _slice(node: Node, x: SSAValue, axis: int, begin: int, end: int) -> SSAValue:
    return node.op("strided_slice", [x], begin=[begin], end=[end], axes=[axis])


def _take(node: Node, x: SSAValue, axis: int, index: int) -> SSAValue:
    """``x[..., index, ...]`` with the axis dropped."""
    return node.op("squeeze", [_slice(node, x, axis, index, index + 1)], axis=[axis])


@converter("RNN", "GRU", "LSTM")
def recurrent(node: Node) -> Outputs:
    kind = node.op_type
    gates = _GATES[kind]
    x = node.input(0)
    layout = node.attr_int("layout", 0)
    if layout not in (0, 1):
        raise ConversionError(f"layout must be 0 or 1, got {layout}")
    if node.rank(x) != 3:
        raise ConversionError(f"X must have rank 3, got {node.rank(x)}")
    if layout == 1:
        x = node.op("transpose", [x], axes=[1, 0, 2])
    seq, batch, width = node.shape(x)
    w, r = node.input(1), node.input(2)
    dirs, gh, _ = node.shape(w)
    hidden = node.attr_int("hidden_size", gh // gates)
    if gh != gates * hidden:
        raise ConversionError(
            f"W has {gh} rows for {gates} gates of hidden_size {hidden}"
        )
    direction = node.attr_str("direction", "forward")
    expected = 2 if direction == "bidirectional" else 1
    if direction not in ("forward", "reverse", "bidirectional") or dirs != expected:
        raise ConversionError(f"direction '{direction}' with W for {dirs} direction(s)")
    if kind == "LSTM" and node.attr_int("input_forget", 0):
        raise ConversionError("input_forget is not supported")
    lens = node.optional_static(4, "sequence_lens")
    if lens is not None and not np.all(lens == seq):
        raise ConversionError(
            "sequence_lens shorter than the sequence length (padded batches) are not supported"
        )
    clip = node.attr_float("clip") if node.has_attr("clip") else None
    linear_before_reset = kind == "GRU" and bool(
        node.attr_int("linear_before_reset", 0)
    )
    acts = _activations(node, dirs)

    def state(i: int) -> SSAValue | None:
        v = node.optional_input(i)
        if v is not None and layout == 1:
            v = node.op("transpose", [v], axes=[1, 0, 2])
        return v

    h0_all, c0_all = state(5), state(6) if kind == "LSTM" else None
    bias_all = node.optional_input(3)
    peep_all = node.optional_input(7) if kind == "LSTM" else None
    zeros = node.const(np.zeros((batch, hidden), node.dtype(x)))
    flat_x = node.reshape(x, [seq * batch, width])

    ys: list[SSAValue] = []
    hs: list[SSAValue] = []
    cs: list[SSAValue] = []
    for d in range(dirs):
        reverse = direction == "reverse" or d == 1
        wd, rd = _take(node, w, 0, d), _take(node, r, 0, d)
        proj = node.op("nn.dense", [flat_x, wd])  # [seq * batch, gates * hidden]
        rb = None
        if bias_all is not None:
            bd = _take(node, bias_all, 0, d)
            wb = _slice(node, bd, 0, 0, gh)
            rb = _slice(node, bd, 0, gh, 2 * gh)
            if not linear_before_reset:
                proj = node.op("add", [proj, node.op("add", [wb, rb])])
                rb = None
            else:
                proj = node.op("add", [proj, wb])
        proj = node.reshape(proj, [seq, batch, gh])
        h = zeros if h0_all is None else _take(node, h0_all, 0, d)
        c = zeros if c0_all is None else _take(node, c0_all, 0, d)
        peep = None if peep_all is None else _take(node, peep_all, 0, d)
        outs: list[SSAValue] = [zeros] * seq
        steps = range(seq - 1, -1, -1) if reverse else range(seq)
        f, g = acts[d][0], acts[d][1] if len(acts[d]) > 1 else acts[d][0]

        def gate(v: SSAValue, k: int) -> SSAValue:
            return _slice(node, v, 1, k * hidden, (k + 1) * hidden)

        def clipped(v: SSAValue) -> SSAValue:
            if clip is None:
                return v
            return node.op("clip", [v], a_min=-clip, a_max=clip)

        for t in steps:
            xt = _take(node, proj, 0, t)  # [batch, gates * hidden]
            if kind == "RNN":
                pre = node.op("add", [xt, node.op("nn.dense", [h, rd])])
                h = f(clipped(pre))
            elif kind == "GRU":
                hr = node.op("nn.dense", [h, rd])
                if rb is not None:
                    hr = node.op("add", [hr, rb])
                z = f(clipped(node.op("add", [gate(xt, 0), gate(hr, 0)])))
                rr = f(clipped(node.op("add", [gate(xt, 1), gate(hr, 1)])))
                if linear_before_reset:
                    cand = node.op("multiply", [rr, gate(hr, 2)])
                else:
                    rh = node.op("multiply", [rr, h])
                    cand = node.op(
                        "nn.dense", [rh, _slice(node, rd, 0, 2 * hidden, 3 * hidden)]
                    )
                hc = g(clipped(node.op("add", [gate(xt, 2), cand])))
                one_minus = node.op("subtract", [node.scalar(1.0, z), z])
                h = node.op(
                    "add",
                    [node.op("multiply", [one_minus, hc]), node.op("multiply", [z, h])],
                )
            else:
                hh = acts[d][2]
                pre = node.op("add", [xt, node.op("nn.dense", [h, rd])])
                pi, po, pf, pc = (gate(pre, k) for k in range(4))
                if peep is not None:
                    pi = node.op(
                        "add",
                        [
                            pi,
                            node.op("multiply", [_slice(node, peep, 0, 0, hidden), c]),
                        ],
                    )
                    pf = node.op(
                        "add",
                        [
                            pf,
                            node.op(
                                "multiply",
                                [_slice(node, peep, 0, 2 * hidden, 3 * hidden), c],
                            ),
                        ],
                    )
                i_, f_ = f(clipped(pi)), f(clipped(pf))
                c = node.op(
                    "add",
                    [
                        node.op("multiply", [f_, c]),
                        node.op("multiply", [i_, g(clipped(pc))]),
                    ],
                )
                if peep is not None:
                    po = node.op(
                        "add",
                        [
                            po,
                            node.op(
                                "multiply",
                                [_slice(node, peep, 0, hidden, 2 * hidden), c],
                            ),
                        ],
                    )
                h = node.op("multiply", [f(clipped(po)), hh(c)])
            outs[t] = h
        ys.append(node.op("stack", outs, axis=0))  # [seq, batch, hidden]
        hs.append(h)
        cs.append(c)

    y = node.op("stack", ys, axis=1)  # [seq, dirs, batch, hidden]
    y_h = node.op("stack", hs, axis=0)  # [dirs, batch, hidden]
    y_c = node.op("stack", cs, axis=0) if kind == "LSTM" else None
    if layout == 1:
        y = node.op("transpose", [y], axes=[2, 0, 1, 3])
        y_h = node.op("transpose", [y_h], axes=[1, 0, 2])
        if y_c is not None:
            y_c = node.op("transpose", [y_c], axes=[1, 0, 2])
    return [y, y_h] if y_c is None else [y, y_h, y_c]
