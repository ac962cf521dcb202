"""Random well-typed relay programs for differential fuzzing (interpreter against
compiled code at opt 0 and 3).

A program is grown op by op from a few inputs: each step picks an op family
(elementwise, broadcast, integer division, reductions, layout and slicing ops,
gathers, matrix products and convolutions, pooling, normalisation, tuples with
``split``/``dropout``, ``where``/casts) and operands from the values made so far,
computing the result shape itself so that every program is well typed by
construction. Values stay bounded (inputs in [-2, 2], ``tanh``/``clip`` before
``exp``, divisors of floats kept away from 0) so that float results compare with a
tolerance; integer division by 0 and ``INT_MIN / -1`` are allowed (they have
defined results, see docs/decisions.md).

``make_program(seed)`` gives ``(function, feeds, description)``; the same seed
always gives the same program.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from xrelay import relay

Gen = np.random.Generator


@dataclass
class Value:
    expr: Any
    shape: tuple[int, ...]
    dtype: str


class ProgramBuilder:
    def __init__(self, rng: Gen):
        self.rng = rng
        self.params: list[Any] = []
        self.feeds: dict[str, Any] = {}
        self.pool: list[Value] = []
        self.ops: list[str] = []

    # -- helpers ------------------------------------------------------------------------

    def shape(self, rank: int | None = None) -> tuple[int, ...]:
        rank = int(self.rng.integers(1, 5)) if rank is None else rank
        return tuple(int(d) for d in self.rng.integers(1, 5, rank))

    def new_input(self, shape: tuple[int, ...], dtype: str) -> Value:
        name = f"in{len(self.params)}"
        var = relay.var(name, shape=shape, dtype=dtype)
        if dtype.startswith("float"):
            data = self.rng.uniform(-2, 2, shape).astype(dtype)
        else:
            info = np.iinfo(dtype)
            data = self.rng.integers(-6, 7, shape).astype(dtype)
            if data.size and self.rng.random() < 0.3:  # the awkward values
                flat = data.reshape(-1)
                flat[int(self.rng.integers(0, flat.size))] = info.min
        self.params.append(var)
        self.feeds[name] = data
        value = Value(var, shape, dtype)
        self.pool.append(value)
        return value

    def const(self, shape: tuple[int, ...], dtype: str = "float32") -> Any:
        return relay.const(self.rng.uniform(-1, 1, shape).astype(dtype))

    def pick(self, pred: Callable[[Value], bool] = lambda v: True) -> Value | None:
        found = [v for v in self.pool if pred(v)]
        if not found:
            return None
        # prefer recent values: programs grow deep, not only wide
        weights = np.arange(1, len(found) + 1, dtype=np.float64)
        return found[int(self.rng.choice(len(found), p=weights / weights.sum()))]

    def add(self, expr: Any, shape: tuple[int, ...], dtype: str, label: str) -> None:
        self.pool.append(Value(expr, tuple(shape), dtype))
        self.ops.append(label)

    # -- op families (each returns False when no operand fits) --------------------------

    def unary(self) -> bool:
        v = self.pick(lambda v: v.dtype == "float32")
        if v is None:
            return False
        name = str(
            self.rng.choice(
                [
                    "tanh",
                    "sigmoid",
                    "relu",
                    "negative",
                    "abs",
                    "sqrt",
                    "exp",
                    "floor",
                    "round",
                    "erf",
                    "sin",
                    "log",
                ]
            )
        )
        x = v.expr
        if name == "relu":
            out = relay.nn.relu(x)
        elif name == "sqrt":
            out = relay.sqrt(relay.add(relay.abs(x), relay.const(0.5)))
        elif name == "log":
            out = relay.log(relay.add(relay.abs(x), relay.const(0.5)))
        elif name == "exp":
            out = relay.exp(relay.clip(x, -4.0, 4.0))
        else:
            out = getattr(relay, name)(x)
        self.add(out, v.shape, v.dtype, name)
        return True

    def binary(self) -> bool:
        a = self.pick()
        if a is None:
            return False
        # a partner of the same dtype that broadcasts, or a fresh constant
        others = [
            v
            for v in self.pool
            if v.dtype == a.dtype and _broadcast(a.shape, v.shape) is not None
        ]
        name = str(
            self.rng.choice(
                [
                    "add",
                    "subtract",
                    "multiply",
                    "maximum",
                    "minimum",
                    "divide",
                    "floor_divide",
                    "mod",
                    "floor_mod",
                ]
            )
        )
        if others and self.rng.random() < 0.7:
            b = others[int(self.rng.integers(0, len(others)))]
            b_expr, b_shape = b.expr, b.shape
        else:
            b_shape = a.shape[int(self.rng.integers(0, len(a.shape) + 1)) :]
            if a.dtype == "float32":
                b_expr = self.const(b_shape)
            else:
                # the dtype given: relay.const narrows int64 to int32 without one (TVM's rule)
                ints = self.rng.integers(-3, 4, b_shape)
                b_expr = relay.const(ints.astype(a.dtype), dtype=a.dtype)
        out_shape = _broadcast(a.shape, b_shape)
        assert out_shape is not None
        if a.dtype == "float32" and name in (
            "divide",
            "floor_divide",
            "mod",
            "floor_mod",
        ):
            # keep float divisors away from 0
            b_expr = relay.add(relay.abs(b_expr), relay.const(0.5))
        out = getattr(relay, name)(a.expr, b_expr)
        self.add(out, out_shape, a.dtype, name)
        return True

    def reduce(self) -> bool:
        v = self.pick(lambda v: len(v.shape) >= 1)
        if v is None:
            return False
        axis = int(self.rng.integers(0, len(v.shape)))
        keep = bool(self.rng.random() < 0.5)
        name = str(self.rng.choice(["sum", "max", "min", "mean", "argmax"]))
        if name == "mean" and v.dtype != "float32":
            name = "sum"
        shape = list(v.shape)
        if keep:
            shape[axis] = 1
        else:
            del shape[axis]
        if name == "argmax":
            out = relay.argmax(v.expr, axis=axis, keepdims=keep)
            self.add(out, tuple(shape), "int32", name)
            return True
        out = getattr(relay, name)(v.expr, axis=axis, keepdims=keep)
        self.add(out, tuple(shape), v.dtype, name)
        return True

    def layout(self) -> bool:
        v = self.pick(lambda v: len(v.shape) >= 1)
        if v is None:
            return False
        kind = str(
            self.rng.choice(
                [
                    "transpose",
                    "reshape",
                    "expand_dims",
                    "squeeze",
                    "reverse",
                    "tile",
                    "strided_slice",
                    "concatenate",
                ]
            )
        )
        shape = v.shape
        if kind == "transpose":
            perm = [int(p) for p in self.rng.permutation(len(shape))]
            self.add(relay.transpose(v.expr, perm), tuple(shape[p] for p in perm),
                     v.dtype, kind)  # fmt: skip
        elif kind == "reshape":
            size = math.prod(shape)
            self.add(relay.reshape(v.expr, (size,)), (size,), v.dtype, kind)
        elif kind == "expand_dims":
            axis = int(self.rng.integers(0, len(shape) + 1))
            out = (*shape[:axis], 1, *shape[axis:])
            if len(out) > 5:
                return False
            self.add(relay.expand_dims(v.expr, axis), out, v.dtype, kind)
        elif kind == "squeeze":
            ones = [k for k, d in enumerate(shape) if d == 1]
            if not ones or len(shape) == 1:
                return False
            axis = ones[int(self.rng.integers(0, len(ones)))]
            out = tuple(d for k, d in enumerate(shape) if k != axis)
            self.add(relay.squeeze(v.expr, [axis]), out, v.dtype, kind)
        elif kind == "reverse":
            axis = int(self.rng.integers(0, len(shape)))
            self.add(relay.reverse(v.expr, axis), shape, v.dtype, kind)
        elif kind == "tile":
            reps = tuple(int(r) for r in self.rng.integers(1, 3, len(shape)))
            out = tuple(d * r for d, r in zip(shape, reps, strict=True))
            self.add(relay.tile(v.expr, reps), out, v.dtype, kind)
        elif kind == "strided_slice":
            axis = int(self.rng.integers(0, len(shape)))
            d = shape[axis]
            begin = int(self.rng.integers(0, d))
            end = int(self.rng.integers(begin + 1, d + 1))
            out = list(shape)
            out[axis] = end - begin
            self.add(
                relay.strided_slice(v.expr, [begin], [end], axes=[axis]),
                tuple(out),
                v.dtype,
                kind,
            )
        else:
            axis = int(self.rng.integers(0, len(shape)))
            same = [
                w for w in self.pool
                if w.dtype == v.dtype and len(w.shape) == len(shape)
                and all(a == b for k, (a, b) in enumerate(zip(w.shape, shape, strict=True))
                        if k != axis)
            ]  # fmt: skip
            w = same[int(self.rng.integers(0, len(same)))]
            out = list(shape)
            out[axis] += w.shape[axis]
            self.add(
                relay.concatenate([v.expr, w.expr], axis), tuple(out), v.dtype, kind
            )
        return True

    def gather(self) -> bool:
        v = self.pick(lambda v: len(v.shape) >= 1)
        if v is None:
            return False
        axis = int(self.rng.integers(0, len(v.shape)))
        n = int(self.rng.integers(1, 5))
        dim = v.shape[axis]
        mode = str(self.rng.choice(["clip", "wrap", "fast"]))
        if mode == "fast":
            idx = self.rng.integers(-dim, dim, n)
        else:
            idx = self.rng.integers(-2 * dim, 2 * dim + 1, n)
        out = (*v.shape[:axis], n, *v.shape[axis + 1 :])
        self.add(
            relay.take(v.expr, relay.const(idx.astype(np.int64)), axis=axis, mode=mode),
            out, v.dtype, f"take-{mode}",
        )  # fmt: skip
        return True

    def matmul(self) -> bool:
        v = self.pick(lambda v: v.dtype == "float32" and len(v.shape) in (2, 4))
        if v is None:
            return False
        if len(v.shape) == 2:
            units = int(self.rng.integers(1, 6))
            w = self.const((units, v.shape[1]))
            self.add(relay.nn.dense(v.expr, w), (v.shape[0], units), v.dtype, "dense")
            return True
        n, c, h, wd = v.shape
        o = int(self.rng.integers(1, 5))
        k = int(self.rng.choice([1, 3]))
        pad = k // 2 if self.rng.random() < 0.7 else 0
        if h + 2 * pad < k or wd + 2 * pad < k:
            return False
        w = self.const((o, c, k, k))
        out = relay.nn.conv2d(v.expr, w, padding=(pad, pad))
        shape = (n, o, h + 2 * pad - k + 1, wd + 2 * pad - k + 1)
        if self.rng.random() < 0.5:
            out = relay.nn.bias_add(out, self.const((o,)))
        self.add(out, shape, v.dtype, "conv2d")
        return True

    def nn_misc(self) -> bool:
        v = self.pick(lambda v: v.dtype == "float32" and len(v.shape) >= 1)
        if v is None:
            return False
        kind = str(self.rng.choice(["softmax", "pool", "pad", "batch_flatten",
                                    "layer_norm", "leaky_relu"]))  # fmt: skip
        if kind == "softmax":
            self.add(relay.nn.softmax(v.expr, axis=-1), v.shape, v.dtype, kind)
        elif kind == "pool":
            if len(v.shape) != 4 or min(v.shape[2:]) < 2:
                return False
            n, c, h, w = v.shape
            if self.rng.random() < 0.5:
                out = relay.nn.max_pool2d(v.expr, (2, 2))
            else:
                out = relay.nn.avg_pool2d(v.expr, (2, 2))
            self.add(out, (n, c, h - 1, w - 1), v.dtype, kind)
        elif kind == "pad":
            widths = [
                (int(a), int(b)) for a, b in self.rng.integers(0, 2, (len(v.shape), 2))
            ]
            out = tuple(d + a + b for d, (a, b) in zip(v.shape, widths, strict=True))
            self.add(relay.nn.pad(v.expr, widths), out, v.dtype, kind)
        elif kind == "batch_flatten":
            if len(v.shape) < 2:
                return False
            out = (v.shape[0], math.prod(v.shape[1:]))
            self.add(relay.nn.batch_flatten(v.expr), out, v.dtype, kind)
        elif kind == "layer_norm":
            d = v.shape[-1]
            out = relay.nn.layer_norm(v.expr, self.const((d,)), self.const((d,)))
            self.add(out, v.shape, v.dtype, kind)
        else:
            self.add(relay.nn.leaky_relu(v.expr, 0.1), v.shape, v.dtype, kind)
        return True

    def tuples(self) -> bool:
        v = self.pick(lambda v: any(d % 2 == 0 or d == 1 for d in v.shape))
        if v is None:
            return False
        kind = str(self.rng.choice(["split", "dropout", "tuple"]))
        if kind == "dropout" and v.dtype == "float32":
            self.add(relay.nn.dropout(v.expr), v.shape, v.dtype, kind)
            return True
        if kind == "tuple":
            w = self.pick()
            assert w is not None
            tup = relay.Tuple([v.expr, w.expr])
            k = int(self.rng.integers(0, 2))
            chosen = (v, w)[k]
            self.add(relay.TupleGetItem(tup, k), chosen.shape, chosen.dtype, kind)
            return True
        axes = [k for k, d in enumerate(v.shape) if d % 2 == 0 or d == 1]
        axis = axes[int(self.rng.integers(0, len(axes)))]
        sections = 2 if v.shape[axis] % 2 == 0 else 1
        parts = relay.split(v.expr, sections, axis=axis)
        k = int(self.rng.integers(0, sections))
        out = list(v.shape)
        out[axis] //= sections
        self.add(parts[k], tuple(out), v.dtype, f"split{sections}")
        return True

    def select(self) -> bool:
        a = self.pick()
        if a is None:
            return False
        kind = str(self.rng.choice(["where", "cast"]))
        if kind == "cast":
            to = "int32" if a.dtype == "float32" else "float32"
            src = relay.clip(a.expr, -100.0, 100.0) if a.dtype == "float32" else a.expr
            self.add(relay.cast(src, to), a.shape, to, f"cast-{to}")
            return True
        cond = relay.greater(a.expr, relay.const(0, dtype=a.dtype))
        self.add(relay.where(cond, a.expr, relay.negative(a.expr)), a.shape, a.dtype,
                 kind)  # fmt: skip
        return True

    FAMILIES = ("unary", "binary", "reduce", "layout", "gather", "matmul", "nn_misc",
                "tuples", "select")  # fmt: skip


def _broadcast(a: tuple[int, ...], b: tuple[int, ...]) -> tuple[int, ...] | None:
    try:
        return tuple(int(d) for d in np.broadcast_shapes(a, b))
    except ValueError:
        return None


def make_program(seed: int, max_ops: int = 10) -> tuple[Any, dict[str, Any], str]:
    """A random well-typed function, its inputs and a description of its ops."""
    rng = np.random.default_rng(seed)
    pb = ProgramBuilder(rng)
    for _ in range(int(rng.integers(1, 3))):
        pb.new_input(pb.shape(), "float32")
    if rng.random() < 0.35:
        pb.new_input(pb.shape(), str(rng.choice(["int32", "int64", "int8"])))
    if rng.random() < 0.4:
        pb.new_input((1, int(rng.integers(1, 4)), int(rng.integers(3, 7)),
                      int(rng.integers(3, 7))), "float32")  # fmt: skip
    steps = int(rng.integers(2, max_ops + 1))
    tries = 0
    while len(pb.ops) < steps and tries < steps * 6:
        tries += 1
        family = str(rng.choice(ProgramBuilder.FAMILIES))
        getattr(pb, family)()
    if not pb.ops:
        pb.unary() or pb.binary()
    made = pb.pool[len(pb.params) :]
    n_out = min(len(made), int(rng.integers(1, 4)))
    outs = [made[-1], *[made[int(k)] for k in rng.choice(len(made), n_out - 1)]]
    body = outs[0].expr if len(outs) == 1 else relay.Tuple([o.expr for o in outs])
    fn = relay.Function(pb.params, body)
    return fn, pb.feeds, " ".join(pb.ops)
