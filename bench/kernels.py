"""Per kernel family: the speed of xrelay's generated kernel next to the machine's
measured peak, so that the weakest family is visible at a glance.

    .venv/bin/python bench/kernels.py [--threads 1] [--runs 30] [--only matmul ...]
                                      [--opt-level 3]

Peaks, measured in this process: numpy's sgemm (single-threaded BLAS: the
``*_NUM_THREADS`` variables are set to 1 before numpy loads) for the matrix
products and convolutions (GFLOP/s), a memory copy of the same tensor
(``np.copyto``) for the memory-bound families (GB/s: bytes read + written), and
the machine's read bandwidth for the ``matvec`` family (matrix-vector and skinny
products, whose time is reading the weight or the KV cache once): BLAS's dot
product of an array of as many bytes as the case reads with itself, one chunk per
thread of ``--threads`` (numpy releases the GIL), best of the runs. The matvec
figure is the bytes the case must read (operands and output) over its best time
(the peak is a best time too); the target is at least 80% of the read bandwidth
(``ratio`` at most 1.25).

The int8 families (``conv-int8``, ``matmul-int8``: ``relay.qnn`` convolutions and
products with u8 activations and s8 weights, requantized to u8 and clipped, built
through Legalize's int16 form) are in GOP/s (a multiply-add is two) against the
machine's measured integer peak: a loop of the host's pair multiply-add
(``pmaddwd``, which LLVM makes ``vpdpwssd`` on VNNI hosts) and add on twelve
independent vector sums, compiled for the host and run on ``--threads`` threads;
``x f32`` is the same case's float32 twin (xrelay, measured in the same run) over
the int8 time (above 1: int8 is faster).

Each case is one small relay function built with ``xrelay.build`` at the opt level
and run through an executor with zero-copy inputs and outputs; the figure is the
median of ``--runs`` runs after a warm-up. ``ratio`` is xrelay's time over the
peak's time for the same work (1.0 = as fast as the peak; lower is better). A
grouped convolution is also shown against the same convolution with ``groups=1``
(which does ``groups`` times its work).

Figures only; nothing here passes or fails.
"""

from __future__ import annotations

import os

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import argparse  # noqa: E402
import statistics  # noqa: E402
import time  # noqa: E402
from collections.abc import Callable  # noqa: E402
from dataclasses import dataclass  # noqa: E402
from typing import Any  # noqa: E402

import numpy as np  # noqa: E402


def _times_s(fn: Callable[[], Any], runs: int) -> list[float]:
    fn()
    times: list[float] = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return times


def _median_s(fn: Callable[[], Any], runs: int) -> float:
    return statistics.median(_times_s(fn, runs))


@dataclass
class Case:
    family: str
    name: str
    build: Callable[[Any], Any]
    """``relay -> (expr, [input arrays])``."""
    flops: float = 0.0
    """Floating-point operations (0: a memory-bound case measured in GB/s)."""
    peak: str = "memcpy"
    """``sgemm`` (compare with numpy's matmul of ``gemm`` shapes), ``memcpy`` or
    ``read`` (the read bandwidth over the bytes the case reads)."""
    gemm: tuple[int, int, int] | None = None
    """``(M, K, N)`` of the numpy peak."""
    reads: int = 0
    """Bytes a ``read``-peak case must move: its operands (weights too) and
    output, each once."""
    twin: Callable[[Any], Any] | None = None
    """The float32 twin of an int8 case (same shapes), timed next to it."""
    baseline: str = ""
    """Name of an earlier case whose time this one is also shown against (a grouped
    convolution against the same convolution with ``groups=1``)."""


def _rand(*shape: int) -> np.ndarray:
    return np.random.default_rng(0).standard_normal(shape, dtype=np.float32)


def _dense(m: int, k: int, n: int, lead: tuple[int, ...] = ()) -> Callable[[Any], Any]:
    def build(relay: Any) -> Any:
        x = relay.var("x", shape=(*lead, m, k), dtype="float32")
        w = relay.const(_rand(n, k))
        return relay.nn.dense(x, w), [_rand(*lead, m, k)]

    return build


def _dense_bias_gelu(m: int, k: int, n: int) -> Callable[[Any], Any]:
    def build(relay: Any) -> Any:
        x = relay.var("x", shape=(1, m, k), dtype="float32")
        w = relay.const(_rand(n, k))
        b = relay.const(_rand(n))
        y = relay.add(relay.nn.dense(x, w), b)
        half, root = relay.const(0.5), relay.const(float(1 / np.sqrt(2.0)))
        g = relay.multiply(
            relay.multiply(y, half),
            relay.add(relay.erf(relay.multiply(y, root)), relay.const(1.0)),
        )
        return g, [_rand(1, m, k)]

    return build


def _batch_matmul(b: int, m: int, k: int, n: int, tb: bool) -> Callable[[Any], Any]:
    def build(relay: Any) -> Any:
        x = relay.var("x", shape=(b, m, k), dtype="float32")
        yshape = (b, n, k) if tb else (b, k, n)
        y = relay.var("y", shape=yshape, dtype="float32")
        out = relay.nn.batch_matmul(x, y, transpose_b=tb)
        return out, [_rand(b, m, k), _rand(*yshape)]

    return build


def _batch_matmul_const(
    b: int, m: int, k: int, n: int, tb: bool
) -> Callable[[Any], Any]:
    """A batch_matmul whose right operand is a constant (a KV cache read by one
    query row, or a weight)."""

    def build(relay: Any) -> Any:
        x = relay.var("x", shape=(b, m, k), dtype="float32")
        y = relay.const(_rand(*((b, n, k) if tb else (b, k, n))))
        return relay.nn.batch_matmul(x, y, transpose_b=tb), [_rand(b, m, k)]

    return build


def _read_bandwidth_s(nbytes: int, threads: int, runs: int) -> float:
    """The time to read ``nbytes`` at the machine's read bandwidth: the faster of
    BLAS's dot product of an array of that size with itself and numpy's
    ``bitwise_or`` reduction of it, one chunk per thread (numpy releases the GIL);
    best of ``runs`` (the bandwidth, not the noise)."""
    from concurrent.futures import ThreadPoolExecutor

    a = np.ones(max(2, nbytes // 8) * 2, np.float32)
    chunks = np.array_split(a, threads)
    words = [c.view(np.int32) for c in chunks]
    with ThreadPoolExecutor(threads) as pool:

        def dot() -> None:
            list(pool.map(lambda c: float(np.dot(c, c)), chunks))

        def bits() -> None:
            list(pool.map(lambda c: int(np.bitwise_or.reduce(c)), words))

        return min(min(_times_s(dot, runs)), min(_times_s(bits, runs)))


def _unary(name: str, shape: tuple[int, ...]) -> Callable[[Any], Any]:
    def build(relay: Any) -> Any:
        x = relay.var("x", shape=shape, dtype="float32")
        if name == "gelu":
            half, root = relay.const(0.5), relay.const(float(1 / np.sqrt(2.0)))
            y = relay.multiply(
                relay.multiply(x, half),
                relay.add(relay.erf(relay.multiply(x, root)), relay.const(1.0)),
            )
        elif name == "silu":
            y = relay.multiply(x, relay.sigmoid(x))
        elif name == "relu":
            y = relay.nn.relu(x)
        elif name == "log":
            y = relay.log(relay.abs(x))
        else:
            y = getattr(relay, name)(x)
        return y, [_rand(*shape)]

    return build


def _softmax(shape: tuple[int, ...]) -> Callable[[Any], Any]:
    def build(relay: Any) -> Any:
        x = relay.var("x", shape=shape, dtype="float32")
        return relay.nn.softmax(x, axis=-1), [_rand(*shape)]

    return build


def _layer_norm(shape: tuple[int, ...]) -> Callable[[Any], Any]:
    def build(relay: Any) -> Any:
        x = relay.var("x", shape=shape, dtype="float32")
        g, b = relay.const(_rand(shape[-1])), relay.const(_rand(shape[-1]))
        return relay.nn.layer_norm(x, g, b, axis=-1), [_rand(*shape)]

    return build


def _mean(shape: tuple[int, ...]) -> Callable[[Any], Any]:
    def build(relay: Any) -> Any:
        x = relay.var("x", shape=shape, dtype="float32")
        return relay.mean(x, axis=[-1], keepdims=True), [_rand(*shape)]

    return build


def _global_pool(shape: tuple[int, ...]) -> Callable[[Any], Any]:
    def build(relay: Any) -> Any:
        x = relay.var("x", shape=shape, dtype="float32")
        return relay.nn.global_avg_pool2d(x), [_rand(*shape)]

    return build


def _layout(shape: tuple[int, ...], src: str, dst: str) -> Callable[[Any], Any]:
    def build(relay: Any) -> Any:
        x = relay.var("x", shape=shape, dtype="float32")
        return relay.layout_transform(x, src, dst), [_rand(*shape)]

    return build


def _conv(
    c: int, hw: int, k: int, stride: int, groups: int, oc: int | None = None
) -> Callable[[Any], Any]:
    oc = c if oc is None else oc

    def build(relay: Any) -> Any:
        x = relay.var("x", shape=(1, c, hw, hw), dtype="float32")
        w = relay.const(_rand(oc, c // groups, k, k) * 0.1)
        y = relay.nn.conv2d(
            x, w, strides=(stride, stride), padding=(k // 2, k // 2), groups=groups
        )
        return relay.nn.relu(y), [_rand(1, c, hw, hw)]

    return build


def _conv_flops(c: int, hw: int, k: int, stride: int, groups: int, oc: int) -> float:
    out = -(-hw // stride)
    return 2.0 * out * out * oc * (c // groups) * k * k


def _qconv(
    c: int, hw: int, k: int, stride: int, groups: int, oc: int | None = None
) -> Callable[[Any], Any]:
    """A quantized convolution: u8 data, s8 per-channel weights, requantized to u8
    and clipped (a fused ReLU)."""
    oc = c if oc is None else oc

    def build(relay: Any) -> Any:
        rng = np.random.default_rng(0)
        x = relay.var("x", shape=(1, c, hw, hw), dtype="uint8")
        w = rng.integers(-127, 128, (oc, c // groups, k, k)).astype(np.int8)
        f32, i32 = "float32", "int32"
        y = relay.qnn.op.conv2d(
            x,
            relay.const(w, "int8"),
            relay.const(np.int32(128), i32),
            relay.const(np.int32(0), i32),
            relay.const(np.float32(0.02), f32),
            relay.const(rng.uniform(0.001, 0.01, oc).astype(np.float32), f32),
            kernel_size=(k, k),
            channels=oc,
            strides=(stride, stride),
            padding=(k // 2, k // 2),
            groups=groups,
        )
        ratio = rng.uniform(2e-4, 1e-3, oc).astype(np.float32)
        y = relay.qnn.op.requantize(
            y,
            relay.const(ratio, f32),
            relay.const(np.int32(0), i32),
            relay.const(np.float32(1.0), f32),
            relay.const(np.int32(0), i32),
            axis=1,
            out_dtype="uint8",
        )
        data = rng.integers(0, 256, (1, c, hw, hw)).astype(np.uint8)
        return relay.clip(y, 0, 255), [data]

    return build


def _qdense(m: int, k: int, n: int) -> Callable[[Any], Any]:
    def build(relay: Any) -> Any:
        rng = np.random.default_rng(0)
        x = relay.var("x", shape=(m, k), dtype="uint8")
        w = rng.integers(-127, 128, (n, k)).astype(np.int8)
        f32, i32 = "float32", "int32"
        y = relay.qnn.op.dense(
            x,
            relay.const(w, "int8"),
            relay.const(np.int32(128), i32),
            relay.const(np.int32(0), i32),
            relay.const(np.float32(0.02), f32),
            relay.const(np.float32(0.01), f32),
            n,
        )
        y = relay.qnn.op.requantize(
            y,
            relay.const(np.float32(2e-4), f32),
            relay.const(np.int32(0), i32),
            relay.const(np.float32(1.0), f32),
            relay.const(np.int32(128), i32),
            out_dtype="uint8",
        )
        return y, [rng.integers(0, 256, (m, k)).astype(np.uint8)]

    return build


def _qbatch_matmul(b: int, m: int, k: int, n: int) -> Callable[[Any], Any]:
    """Two dynamically quantized activations (u8, run-time zero points cast from
    u8, as ``DynamicQuantizeLinear`` gives them): attention's ``Q @ K^T``."""

    def build(relay: Any) -> Any:
        rng = np.random.default_rng(0)
        x = relay.var("x", shape=(b, m, k), dtype="uint8")
        y = relay.var("y", shape=(b, n, k), dtype="uint8")
        zx = relay.var("zx", shape=(), dtype="uint8")
        zy = relay.var("zy", shape=(), dtype="uint8")
        one = relay.const(np.float32(1.0), "float32")
        out = relay.qnn.op.batch_matmul(
            x, y, relay.cast(zx, "int32"), relay.cast(zy, "int32"), one, one
        )
        arrays = [
            rng.integers(0, 256, (b, m, k)).astype(np.uint8),
            rng.integers(0, 256, (b, n, k)).astype(np.uint8),
            np.array(120, np.uint8),
            np.array(131, np.uint8),
        ]
        return out, arrays

    return build


_PEAK_IR = """
declare <{n} x i32> @{name}(<{m} x i16>, <{m} x i16>)
define void @peak(i64 %count, ptr %out) {{
entry:
  br label %loop
loop:
  %i = phi i64 [0, %entry], [%next, %loop]
{phis}
{body}
  %next = add i64 %i, 1
  %done = icmp eq i64 %next, %count
  br i1 %done, label %exit, label %loop
exit:
{sum}
  store <{n} x i32> %s{last}, ptr %out, align 4
  ret void
}}
"""


def _int_peak(threads: int, runs: int) -> tuple[float, str]:
    """The host's integer multiply-add peak in GOP/s (a multiply-add is two) and
    the instruction measured: a loop of ``pmaddwd`` and ``add`` on twelve
    independent vector sums (LLVM makes the pair ``vpdpwssd`` on VNNI hosts),
    compiled for the host, on ``threads`` threads at once; best of ``runs``."""
    import ctypes
    from concurrent.futures import ThreadPoolExecutor

    import llvmlite.binding as llvm

    from xrelay.lowering.kernels.int16 import PMADD_INTRINSICS, pair_lanes

    lanes = pair_lanes()
    if lanes == 0:
        return 0.0, "none"
    chains = 12
    name = PMADD_INTRINSICS[lanes]
    phis = "\n".join(
        f"  %a{j} = phi <{lanes} x i32> [splat (i32 {j + 1}), %entry], [%b{j}, %loop]"
        for j in range(chains)
    )
    body = "\n".join(
        f"  %w{j} = bitcast <{lanes} x i32> %a{j} to <{2 * lanes} x i16>\n"
        f"  %p{j} = call <{lanes} x i32> @{name}(<{2 * lanes} x i16> %w{j}, "
        f"<{2 * lanes} x i16> splat (i16 3))\n"
        f"  %b{j} = add <{lanes} x i32> %a{j}, %p{j}"
        for j in range(chains)
    )
    sums = [f"  %s0 = add <{lanes} x i32> %b0, %b1"]
    sums += [
        f"  %s{j - 1} = add <{lanes} x i32> %s{j - 2}, %b{j}" for j in range(2, chains)
    ]
    ir = _PEAK_IR.format(
        n=lanes, m=2 * lanes, name=name, phis=phis, body=body,
        sum="\n".join(sums), last=chains - 2,
    )  # fmt: skip
    llvm.initialize_native_target()
    llvm.initialize_native_asmprinter()
    target = llvm.Target.from_default_triple().create_target_machine(
        cpu=llvm.get_host_cpu_name(),
        features=llvm.get_host_cpu_features().flatten(),
        opt=3,
    )
    module = llvm.parse_assembly(ir)
    engine = llvm.create_mcjit_compiler(module, target)
    engine.finalize_object()
    fn = ctypes.CFUNCTYPE(None, ctypes.c_int64, ctypes.c_void_p)(
        engine.get_function_address("peak")
    )
    count = 200_000
    outs = [np.empty(lanes, np.int32) for _ in range(threads)]
    with ThreadPoolExecutor(threads) as pool:

        def run() -> None:
            list(pool.map(lambda o: fn(count, o.ctypes.data), outs))

        best = min(_times_s(run, max(10, runs)))
    ops = 2.0 * 2 * lanes * chains * count * threads
    vnni = llvm.get_host_cpu_features()
    kind = "vpdpwssd" if vnni.get("avxvnni") or vnni.get("avx512vnni") else "vpmaddwd"
    return ops / best / 1e9, f"{kind} x{lanes} lanes"


def cases() -> list[Case]:
    ew = (1, 1200, 1024)
    out: list[Case] = [
        Case("matmul", "dense 128x256 @ 256x1024", _dense(128, 256, 1024),
             2 * 128 * 256 * 1024, "sgemm", (128, 256, 1024)),
        Case("matmul", "dense [1,128,256] @ 256x1024", _dense(128, 256, 1024, (1,)),
             2 * 128 * 256 * 1024, "sgemm", (128, 256, 1024)),
        Case("matmul", "dense+bias+gelu [1,128,256]", _dense_bias_gelu(128, 256, 1024),
             2 * 128 * 256 * 1024, "sgemm", (128, 256, 1024)),
        Case("matmul", "dense [1,128,1024] @ 1024x256", _dense(128, 1024, 256, (1,)),
             2 * 128 * 1024 * 256, "sgemm", (128, 1024, 256)),
        Case("matmul", "dense [1,128,256] @ 256x256", _dense(128, 256, 256, (1,)),
             2 * 128 * 256 * 256, "sgemm", (128, 256, 256)),
        Case("matmul", "dense 1x512 @ 512x1000", _dense(1, 512, 1000),
             2 * 512 * 1000, "sgemm", (1, 512, 1000)),
        Case("matmul", "batch_matmul 8x128x64 @ T", _batch_matmul(8, 128, 64, 128, True),
             2 * 8 * 128 * 64 * 128, "sgemm", (8 * 128, 64, 128)),
        Case("matmul", "batch_matmul 8x128x128 @ 8x128x64",
             _batch_matmul(8, 128, 128, 64, False),
             2 * 8 * 128 * 128 * 64, "sgemm", (8 * 128, 128, 64)),
    ]  # fmt: skip
    out += [
        Case("matvec", f"dense {m}x{k} @ {k}x{n}{note}", _dense(m, k, n),
             peak="read", reads=4 * (n * k + m * k + m * n))
        for m, k, n, note in (
            (1, 9216, 4096, ""),
            (1, 4096, 4096, ""),
            (1, 768, 50257, " (LM head)"),
            (4, 768, 50257, ""),
            (8, 4096, 4096, ""),
        )
    ]  # fmt: skip
    out += [
        Case("matvec", f"batch_matmul {b}x1x{k} @ {what}", _batch_matmul_const(b, 1, k, n, tb),
             peak="read", reads=4 * (b * n * k + b * k + b * n))
        for b, k, n, tb, what in (
            (12, 64, 4096, True, "T(12x4096x64) (Q K^T)"),
            (12, 4096, 64, False, "12x4096x64 (P V)"),
        )
    ]  # fmt: skip
    for name in ("exp", "log", "tanh", "sigmoid", "erf", "gelu", "silu", "relu"):
        out.append(Case("elementwise", f"{name} {ew}", _unary(name, ew)))
    out += [
        Case("normalize", "softmax [12,128,128] axis -1", _softmax((12, 128, 128))),
        Case("normalize", "layer_norm [1,128,768]", _layer_norm((1, 128, 768))),
        Case("reduce", "mean [768,1024] axis -1", _mean((768, 1024))),
        Case("reduce", "global_avg_pool [1,256,56,56]", _global_pool((1, 256, 56, 56))),
        Case("layout", "NCHW->NCHW16c [1,96,112,112]",
             _layout((1, 96, 112, 112), "NCHW", "NCHW16c")),
        Case("layout", "NCHW16c->NCHW [1,6,112,112,16]",
             _layout((1, 6, 112, 112, 16), "NCHW16c", "NCHW")),
        Case("layout", "NCHW->NCHW3c [1,3,224,224]",
             _layout((1, 3, 224, 224), "NCHW", "NCHW3c")),
        Case("layout", "NCHW8c->NCHW16c [1,32,28,28,8]",
             _layout((1, 32, 28, 28, 8), "NCHW8c", "NCHW16c")),
    ]  # fmt: skip
    for c, hw, k, s in (
        (96, 56, 3, 1),
        (144, 56, 3, 2),
        (240, 28, 5, 1),
        (240, 28, 5, 2),
        (96, 56, 7, 1),
        (96, 56, 7, 2),
    ):
        out.append(
            Case("conv-depthwise", f"dw {k}x{k}/s{s} c{c} {hw}x{hw}",
                 _conv(c, hw, k, s, c), _conv_flops(c, hw, k, s, c, c), "sgemm",
                 (c, k * k, (-(-hw // s)) ** 2))
        )  # fmt: skip
    for c, hw, k, s, g, oc in (
        (64, 56, 3, 1, 1, 64),
        (128, 28, 3, 1, 1, 128),
        (256, 14, 3, 1, 1, 256),
        (64, 56, 1, 1, 1, 256),
        (256, 56, 1, 1, 1, 64),
        (128, 56, 3, 2, 1, 128),
        (128, 28, 3, 1, 4, 128),
        (96, 56, 3, 1, 96, 96),
        (144, 56, 3, 2, 144, 144),
    ):
        kind = "dw " if g == c else f"g{g} " if g > 1 else ""
        out.append(
            Case("conv-int8", f"{kind}{k}x{k}/s{s} c{c}->{oc} {hw}x{hw}",
                 _qconv(c, hw, k, s, g, oc), _conv_flops(c, hw, k, s, g, oc), "int8",
                 twin=_conv(c, hw, k, s, g, oc))
        )  # fmt: skip
    out += [
        Case("matmul-int8", "qnn.dense 128x256 @ 256x1024", _qdense(128, 256, 1024),
             2 * 128 * 256 * 1024, "int8", twin=_dense(128, 256, 1024)),
        Case("matmul-int8", "qnn.dense 1x512 @ 512x1000", _qdense(1, 512, 1000),
             2 * 512 * 1000, "int8", twin=_dense(1, 512, 1000)),
        Case("matmul-int8", "qnn.batch_matmul 12x128x64 @ 12x64x128",
             _qbatch_matmul(12, 128, 64, 128), 2 * 12 * 128 * 64 * 128, "int8",
             twin=_batch_matmul(12, 128, 64, 128, True)),
    ]  # fmt: skip
    for k, c in ((1, 232), (3, 128)):
        for g in (1, 2, 4, 8):
            out.append(
                Case("conv-grouped", f"{k}x{k} g{g} c{c} 28x28", _conv(c, 28, k, 1, g),
                     _conv_flops(c, 28, k, 1, g, c), "sgemm",
                     (c, c // g * k * k, 784), f"{k}x{k} g1 c{c} 28x28" if g > 1 else "")
            )  # fmt: skip
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--opt-level", type=int, default=3)
    parser.add_argument("--only", nargs="*", help="families or name substrings")
    args = parser.parse_args()

    import xrelay
    from xrelay import relay
    from xrelay.pass_manager import PassContext

    print(f"threads {args.threads}, opt_level {args.opt_level}, runs {args.runs}")
    print(
        f"{'family':15} {'case':36} {'xrelay ms':>9} {'peak ms':>8} "
        f"{'xrelay':>10} {'peak':>10} {'ratio':>6}"
    )
    times: dict[str, float] = {}
    int_peak: tuple[float, str] | None = None

    def timed(build: Callable[[Any], Any]) -> tuple[list[float], list[Any], Any]:
        expr, inputs = build(relay)
        mod = relay.IRModule.from_expr(expr)
        with PassContext(opt_level=args.opt_level):
            lib = xrelay.build(mod, num_threads=args.threads)
        m = lib.create()
        for k, a in enumerate(inputs):
            m.set_input_zero_copy(k, a)
        first = lib(*inputs)
        out = np.empty(first.shape, first.dtype)
        m.set_output_zero_copy(0, out)
        return _times_s(m.run, args.runs), inputs, out

    for case in cases():
        if args.only and not any(s == case.family or s in case.name for s in args.only):
            continue
        runs, inputs, out = timed(case.build)
        # the matvec family is set against the best read time: its best too
        t = min(runs) if case.peak == "read" else statistics.median(runs)
        if case.peak == "int8":
            if int_peak is None:
                int_peak = _int_peak(args.threads, args.runs)
                print(f"integer peak: {int_peak[0]:.1f} GOP/s ({int_peak[1]})")
            assert case.twin is not None
            twin_t = statistics.median(timed(case.twin)[0])
            gops = case.flops / t / 1e9
            peak_t = case.flops / (int_peak[0] * 1e9) if int_peak[0] else 0.0
            ours = f"{gops:6.1f} GO/s"
            peak = f"{int_peak[0]:6.1f} GO/s"
            ratio = t / peak_t if peak_t else 0.0
            print(
                f"{case.family:15} {case.name:36} {t * 1e3:9.3f} {peak_t * 1e3:8.3f} "
                f"{ours:>10} {peak:>10} {ratio:6.2f}  {twin_t / t:5.2f}x f32 "
                f"({twin_t * 1e3:.3f} ms)",
                flush=True,
            )
            continue
        if case.peak == "sgemm":
            assert case.gemm is not None
            gm, gk, gn = case.gemm
            a, b = _rand(gm, gk), _rand(gk, gn)
            c = np.empty((gm, gn), np.float32)
            peak_t = _median_s(lambda a=a, b=b, c=c: np.matmul(a, b, out=c), args.runs)
            flops = case.flops
            ours = f"{flops / t / 1e9:6.1f} GF/s"
            peak = f"{2 * gm * gk * gn / peak_t / 1e9:6.1f} GF/s"
            ratio = t / (peak_t * flops / (2 * gm * gk * gn))
        elif case.peak == "read":
            moved = case.reads
            peak_t = _read_bandwidth_s(moved, args.threads, args.runs)
            ours = f"{moved / t / 1e9:6.1f} GB/s"
            peak = f"{moved / peak_t / 1e9:6.1f} GB/s"
            ratio = t / peak_t
        else:
            src = inputs[0]
            dst = np.empty_like(src)
            peak_t = _median_s(lambda d=dst, s=src: np.copyto(d, s), args.runs)
            moved = sum(a.nbytes for a in inputs) + out.nbytes
            ours = f"{moved / t / 1e9:6.1f} GB/s"
            peak = f"{2 * src.nbytes / peak_t / 1e9:6.1f} GB/s"
            ratio = t / (peak_t * moved / (2 * src.nbytes))
        times[case.name] = t
        base = times.get(case.baseline)
        vs = f"  {t / base:5.2f}x the g1 time" if base else ""
        print(
            f"{case.family:15} {case.name:36} {t * 1e3:9.3f} {peak_t * 1e3:8.3f} "
            f"{ours:>10} {peak:>10} {ratio:6.2f}{vs}",
            flush=True,
        )


if __name__ == "__main__":
    main()
