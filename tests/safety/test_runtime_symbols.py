"""Generated code calls nothing the process does not provide: for every kernel
family and every dtype the lowering accepts (float16, bfloat16, float32, float64,
int8..int64, unsigned, bool), the undefined symbols of the
JIT's object code and of the exported shared library are C library / libm / POSIX
thread functions that this process resolves, never compiler-runtime helpers such as
``__truncdfhf2`` (which only some other loaded library might provide). Builds run in
a subprocess (a missing symbol is a segfault on the first run)."""

from __future__ import annotations

import json
import platform
import shutil
import subprocess
import sys

import pytest

pytestmark = pytest.mark.skipif(shutil.which("nm") is None, reason="needs nm")

SCRIPT = r"""
import ctypes, ctypes.util, json, os, re, subprocess, sys, tempfile
import numpy as np, xrelay
from xrelay import relay
from xrelay.pass_manager import PassContext

dt = sys.argv[1]
kind = "f" if dt == "bfloat16" else np.dtype(dt).kind  # ml_dtypes' kind is "V"
x = relay.var("x", shape=(1, 4, 6, 6), dtype=dt)
y = relay.var("y", shape=(1, 4, 6, 6), dtype=dt)
w = relay.var("w", shape=(8, 4, 3, 3), dtype=dt)
m = relay.var("m", shape=(4, 16), dtype=dt)
n = relay.var("n", shape=(8, 16), dtype=dt)
b = relay.var("b", shape=(2, 4, 16), dtype=dt)
c = relay.var("c", shape=(2, 8, 16), dtype=dt)
i = relay.var("i", shape=(3,), dtype="int64")
g = relay.var("g", shape=(6,), dtype=dt)
be = relay.var("be", shape=(6,), dtype=dt)
wt = relay.var("wt", shape=(4, 2, 3, 3), dtype=dt)
params = [x, y, w, m, n, b, c, i] + ([g, be, wt] if kind == "f" else [])
outs = []
if kind == "b":
    outs += [relay.logical_and(x, y), relay.logical_or(x, y), relay.logical_not(x),
             relay.where(x, x, y), relay.cast(x, "float32"), relay.cast(x, "int32"),
             relay.equal(x, y), relay.take(x, i, axis=1, mode="fast"),
             relay.concatenate([x, y], 1), relay.transpose(x, (0, 2, 3, 1)),
             relay.any(x, axis=1), relay.all(x, axis=1)]
else:
    outs += [relay.add(x, y), relay.subtract(x, y), relay.multiply(x, y),
             relay.divide(x, y), relay.floor_divide(x, y), relay.mod(x, y),
             relay.floor_mod(x, y), relay.maximum(x, y), relay.minimum(x, y),
             relay.power(x, y), relay.less(x, y), relay.where(relay.less(x, y), x, y),
             relay.clip(x, 0, 3), relay.abs(x), relay.sign(x), relay.nn.relu(x),
             relay.sum(x, axis=1), relay.max(x, axis=(2, 3)), relay.min(x, axis=1),
             relay.prod(x, axis=1), relay.argmax(x, axis=1), relay.mean(x, axis=1),
             relay.cast(x, "float16"), relay.cast(x, "float64"), relay.cast(x, "int8"),
             relay.cast(x, "bool"), relay.nn.max_pool2d(x, (2, 2)),
             relay.nn.avg_pool2d(x, (2, 2)), relay.nn.global_avg_pool2d(x),
             relay.nn.conv2d(x, w, padding=(1, 1)), relay.nn.dense(m, n),
             relay.nn.batch_matmul(b, c), relay.nn.matmul(m, relay.transpose(n)),
             relay.take(x, i, axis=1, mode="fast"), relay.take(x, i, axis=2),
             relay.nn.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1))),
             relay.concatenate([x, y], 1), relay.transpose(x, (0, 2, 3, 1)),
             relay.strided_slice(x, [0, 1], [1, 3]), relay.tile(x, (1, 2, 1, 1))]
    if kind == "f":
        outs += [relay.exp(x), relay.log(x), relay.sqrt(x), relay.rsqrt(x),
                 relay.tanh(x), relay.sigmoid(x), relay.erf(x), relay.sin(x),
                 relay.cos(x), relay.floor(x), relay.ceil(x), relay.round(x),
                 relay.trunc(x), relay.negative(x), relay.nn.softmax(x, axis=1),
                 relay.nn.log_softmax(x, axis=1), relay.nn.leaky_relu(x, 0.1),
                 relay.variance(x, axis=1), relay.std(x, axis=1),
                 relay.nn.layer_norm(x, g, be),
                 relay.nn.l2_normalize(x, 1e-5, axis=[1]),
                 relay.nn.conv2d_transpose(x, wt), relay.det(x)]
    elif kind == "i":
        outs += [relay.negative(x)]
same_width = {"float16": "int16", "bfloat16": "int16", "float32": "int32", "float64": "int64",
              "int8": "uint8", "int16": "float16", "int32": "float32",
              "int64": "float64", "uint8": "bool", "bool": "uint8"}
outs += [relay.reinterpret(x, same_width[dt])]
mod = relay.IRModule.from_expr(relay.Function(params, relay.Tuple(outs)))
libc = ctypes.CDLL(None)
libm = ctypes.CDLL(ctypes.util.find_library("m"))

def undefined(paths):
    # the objects of a build compiled in parts call each other's kernels
    def nm(*flags):
        out = subprocess.run(["nm", *flags, *paths], capture_output=True, text=True,
                             check=True)
        return [line.split() for line in out.stdout.splitlines() if line.strip()]
    defined = {f[-1] for f in nm("--defined-only") if len(f) == 3}
    # weak references (crtbegin's __gmon_start__...) may stay unresolved
    return sorted({f[-1].split("@")[0] for f in nm("-u") if f[0] == "U"} - defined)

def bad_symbols(names):
    bad = []
    for name in names:
        provided = hasattr(libc, name) or hasattr(libm, name)
        # compiler-runtime helpers (libgcc / compiler-rt): __truncdfhf2, __divti3...
        helper = re.fullmatch(r"__[a-z]+[a-z]f[23]|__[a-z]+[dt]i[23]", name)
        if helper or not provided:
            bad.append(name)
    return bad

report = {}
with tempfile.TemporaryDirectory() as tmp:
    for level in (0, 3):
        with PassContext(opt_level=level):
            lib = xrelay.build(mod)
        objs = []
        for k, code in enumerate(lib.jit.objects):
            objs.append(os.path.join(tmp, f"o{level}_{k}.o"))
            with open(objs[-1], "wb") as f:
                f.write(code)
        so = os.path.join(tmp, f"m{level}.so")
        lib.export_library(so)
        for what, paths in (("jit", objs), ("so", [so])):
            names = undefined(paths)
            report[f"{what}{level}"] = {"undefined": names, "bad": bad_symbols(names)}
        rng = np.random.default_rng(0)
        feeds = {}
        for p in params:
            shape = tuple(int(d) for d in p.type_annotation.shape)
            if p.name_hint == "i":
                feeds["i"] = np.array([0, 2, 1])
            else:
                feeds[p.name_hint] = (rng.random(shape) * 3 + 1).astype(p.type_annotation.dtype)
        lib(**feeds)  # runs: a missing symbol would crash here
print(json.dumps(report))
"""


DTYPES = ["float16", "bfloat16", "float32", "float64", "int8", "int16", "int32", "int64", "uint8",
          "bool"]  # fmt: skip


@pytest.mark.parametrize("dtype", DTYPES)
def test_no_unresolved_runtime_symbols(dtype: str) -> None:
    proc = subprocess.run(
        [sys.executable, "-c", SCRIPT, dtype],
        capture_output=True, text=True, timeout=900, check=False,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr[-3000:]
    report = json.loads(proc.stdout.strip().splitlines()[-1])
    for where, found in report.items():
        assert found["bad"] == [], (where, found)
        assert found["undefined"], where  # the thread team's pthread calls at least
        if sys.platform == "linux" and platform.machine() == "x86_64":
            assert "syscall" in found["undefined"], where  # the team's futex calls
