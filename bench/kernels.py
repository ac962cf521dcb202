"""Per kernel family: the speed of xrelay's generated kernel next to the machine's
measured peak, so that the weakest family is visible at a glance.

    .venv/bin/python bench/kernels.py [--threads 1] [--runs 30] [--only matmul ...]
                                      [--opt-level 3]

Peaks, measured in this process: numpy's sgemm (single-threaded BLAS: the
``*_NUM_THREADS`` variables are set to 1 before numpy loads) for the matrix
products and convolutions (GFLOP/s), a memory copy of the same tensor
(``np.copyto``) for the memory-bound families (GB/s: bytes read + written).

The ``matvec`` family (matrix-vector and skinny products, a decode step's
attention over a KV cache, embedding lookups: their time is reading the weight,
the cache or the table once) is set against the machine's read bandwidth,
measured in the same run by a compiled streaming sum (:class:`ReadProbe`: four
sequential streams per thread, a cache line each per step, full-width vector
loads, on ``--threads`` threads). The header gives the DRAM figure (a 512 MiB
buffer) on 1 and 2 threads and the load; each case is then timed in alternating
blocks with the probe reading as many bytes as the case must move (its operands,
weights too, and its output, each once), so that both see the same caches (a
KV cache of 1024 entries is L3-resident, a 150 MB weight is not) and the same
load. ``%`` is the probe's best time over the kernel's (100%: the kernel reads
as fast as the probe; the target is 80%), medians in brackets.

The ``conv`` family (dense float32 direct convolutions: ResNet's 3x3 layers from
56 x 56 to 7 x 7, its 7x7 stride-2 stem) is set against the host's float
multiply-add peak, measured in this process (:func:`_fma_peak`: twelve
independent vector multiply-add chains of the host's widest vectors, one thread):
``ratio`` 1.0 is the peak.

The int8 families (``conv-int8``, ``matmul-int8``: ``relay.qnn`` convolutions and
products with u8 activations and s8 weights, requantized to u8 and clipped, built
through Legalize's int16 form) are in GOP/s (a multiply-add is two) against the
machine's measured integer peak: a loop of the host's pair multiply-add
(``pmaddwd``, which LLVM makes ``vpdpwssd`` on VNNI hosts) and add on twelve
independent vector sums, compiled for the host and run on ``--threads`` threads
(printed next to it: onnxruntime's AVX2 step ``pmaddubsw`` + ``pmaddwd`` by ones,
which saturates and which xrelay does not use, for reference);
``x f32`` is the same case's float32 twin (xrelay, measured in the same run) over
the int8 time (above 1: int8 is faster).

Each case is one small relay function built with ``xrelay.build`` at the opt level
and run through an executor with zero-copy inputs and outputs; the figure is the
median of ``--runs`` runs after a warm-up. ``ratio`` is xrelay's time over the
peak's time for the same work (1.0 = as fast as the peak; lower is better). A
grouped convolution is also shown against the same convolution with ``groups=1``
(which does ``groups`` times its work).

``--scaling`` prints instead, per case, the thread scaling: the same built
kernel run by a team of 2 and of 1 (``set_num_threads``) in alternating blocks,
``2T/1T`` the ratio of their medians (0.5: perfect sharing; above 1: the second
thread costs more than it brings), and per family the geometric mean of the
ratios. (Small layers run on one thread whatever the team, see
:mod:`xrelay.lowering.work`: their ratio is about 1 by design.)

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
    """``sgemm`` (compare with numpy's matmul of ``gemm`` shapes), ``fma`` (the
    host's float multiply-add peak), ``memcpy`` or ``read`` (the read bandwidth
    over the bytes the case reads)."""
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


_READ_IR = """
define float @stream_sum(ptr %p, i64 %n) {{
entry:
  br label %loop
loop:
  %i = phi i64 [0, %entry], [%next, %loop]
{phis}
{body}
  %next = add i64 %i, {step}
  %done = icmp uge i64 %next, %n
  br i1 %done, label %exit, label %loop
exit:
{sums}
  %r = call float @llvm.vector.reduce.fadd.v{lanes}f32(float 0.0, <{lanes} x float> %t{last})
  ret float %r
}}
declare float @llvm.vector.reduce.fadd.v{lanes}f32(float, <{lanes} x float>)
"""

READ_STREAMS = 4
"""Sequential streams the read probe reads at once (each thread's chunk cut into
this many parts): one stream leaves the prefetchers short of loads in flight (on
the Zen 3 here, by CPU time: one stream 19-21 GB/s, four 24-25), and a
matrix-vector kernel reads several weight blocks at once too."""

READ_STREAM_LINE = 64
"""Bytes each stream reads per step (a cache line)."""

DRAM_PROBE_BYTES = 512 << 20
"""Bytes the DRAM read probe streams: far larger than any L3 of these hosts."""


class ReadProbe:
    """The machine's read bandwidth, measured by a compiled streaming sum: a loop
    that reads :data:`READ_STREAMS` sequential streams a cache line at a time in
    full-width vector loads, added into independent vector sums (compiled for the
    host by LLVM, like the kernels), over a buffer cut into one contiguous chunk
    per thread (ctypes releases the GIL, so the chunks are read at once). It reads
    each byte once, as a matrix-vector product reads its weight, and does no other
    work."""

    def __init__(self, threads: int):
        import ctypes
        from concurrent.futures import ThreadPoolExecutor

        import llvmlite.binding as llvm

        from xrelay.lowering.tiling import host_vector_unit

        lanes = max(4, host_vector_unit().bytes // 4)
        per_line = max(1, READ_STREAM_LINE // (4 * lanes))
        self.step = per_line * lanes
        sums = READ_STREAMS * per_line
        phis = "\n".join(
            f"  %a{j} = phi <{lanes} x float> [zeroinitializer, %entry], [%b{j}, %loop]"
            for j in range(sums)
        )
        body = "\n".join(
            f"  %o{j} = add i64 %i, {lanes * (j % per_line)}\n"
            f"  %s{j} = mul i64 %n, {j // per_line}\n"
            f"  %at{j} = add i64 %o{j}, %s{j}\n"
            f"  %q{j} = getelementptr float, ptr %p, i64 %at{j}\n"
            f"  %v{j} = load <{lanes} x float>, ptr %q{j}, align 32\n"
            f"  %b{j} = fadd <{lanes} x float> %a{j}, %v{j}"
            for j in range(sums)
        )
        tree = [f"  %t0 = fadd <{lanes} x float> %b0, %b1"]
        tree += [
            f"  %t{j - 1} = fadd <{lanes} x float> %t{j - 2}, %b{j}"
            for j in range(2, sums)
        ]
        ir = _READ_IR.format(
            phis=phis, body=body, step=self.step, sums="\n".join(tree),
            lanes=lanes, last=sums - 2,
        )  # fmt: skip
        llvm.initialize_native_target()
        llvm.initialize_native_asmprinter()
        target = llvm.Target.from_default_triple().create_target_machine(
            cpu=llvm.get_host_cpu_name(),
            features=llvm.get_host_cpu_features().flatten(),
            opt=3,
        )
        self._engine = llvm.create_mcjit_compiler(llvm.parse_assembly(ir), target)
        self._engine.finalize_object()
        self._fn = ctypes.CFUNCTYPE(ctypes.c_float, ctypes.c_void_p, ctypes.c_int64)(
            self._engine.get_function_address("stream_sum")
        )
        self.threads = threads
        self._pool = ThreadPoolExecutor(threads)
        self._buffers: dict[int, np.ndarray] = {}

    def _per_stream(self, nbytes: int) -> int:
        """Floats of one stream of a read of ``nbytes`` (rounded up to whole
        steps)."""
        parts = self.threads * READ_STREAMS
        return -(-max(1, nbytes // 4) // (parts * self.step)) * self.step

    def bytes_read(self, nbytes: int) -> int:
        """The bytes :meth:`reader` of ``nbytes`` actually reads."""
        return self._per_stream(nbytes) * self.threads * READ_STREAMS * 4

    def reader(self, nbytes: int) -> Callable[[], Any]:
        """A call that reads ``nbytes`` (rounded up to whole steps of every
        stream) once, shared by the threads."""
        per = self._per_stream(nbytes)
        total = per * self.threads * READ_STREAMS
        if total not in self._buffers:
            # 64-byte aligned, of ones (touched: no page faults when timed)
            raw = np.ones(total + 16, np.float32)
            start = (-raw.ctypes.data % 64) // 4
            self._buffers[total] = raw[start : start + total]
        flat = self._buffers[total]
        fn, pool = self._fn, self._pool
        chunk = per * READ_STREAMS
        addrs = [flat[t * chunk :].ctypes.data for t in range(self.threads)]
        if self.threads == 1:
            return lambda: fn(addrs[0], per)
        return lambda: list(pool.map(lambda a: fn(a, per), addrs))


def _alternate(
    fns: list[Callable[[], Any]], runs: int, blocks: int = 5
) -> list[list[float]]:
    """Times of each of ``fns`` over ``runs`` runs, in ``blocks`` alternating
    blocks (a change of load on the machine hits both sides alike), each block
    after one untimed run."""
    per = max(1, runs // blocks)
    times: list[list[float]] = [[] for _ in fns]
    for _ in range(blocks):
        for fn, ts in zip(fns, times, strict=True):
            ts.extend(_times_s(fn, per))
    return times


def _matmul_kn(m: int, k: int, n: int) -> Callable[[Any], Any]:
    """``nn.matmul`` with its weight given as ``[K, N]`` (ONNX MatMul's)."""

    def build(relay: Any) -> Any:
        x = relay.var("x", shape=(m, k), dtype="float32")
        return relay.nn.matmul(x, relay.const(_rand(k, n))), [_rand(m, k)]

    return build


def _attention_decode(heads: int, past: int, hd: int) -> Callable[[Any], Any]:
    """One decode step's attention over a KV cache given as inputs: ``softmax(q
    K^T / sqrt(hd)) V`` with ``q [heads, 1, hd]``, ``K``, ``V`` ``[heads, past,
    hd]``."""

    def build(relay: Any) -> Any:
        q = relay.var("q", shape=(heads, 1, hd), dtype="float32")
        k = relay.var("k", shape=(heads, past, hd), dtype="float32")
        v = relay.var("v", shape=(heads, past, hd), dtype="float32")
        s = relay.nn.batch_matmul(q, k)
        p = relay.nn.softmax(relay.multiply(s, relay.const(float(hd**-0.5))))
        out = relay.nn.batch_matmul(p, v, transpose_b=False)
        return out, [
            _rand(heads, 1, hd),
            _rand(heads, past, hd),
            _rand(heads, past, hd),
        ]

    return build


def _embedding(rows: int, dim: int, m: int) -> Callable[[Any], Any]:
    """An embedding lookup: ``take`` of ``m`` rows of a ``[rows, dim]`` table."""

    def build(relay: Any) -> Any:
        ids = relay.var("ids", shape=(m,), dtype="int64")
        table = relay.const(_rand(rows, dim))
        picked = np.random.default_rng(1).integers(0, rows, m).astype(np.int64)
        return relay.take(table, ids, axis=0), [picked]

    return build


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
declare <{m} x i16> @{ubs}(<{b} x i8>, <{b} x i8>)
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

PMADDUBS_INTRINSICS = {
    4: "llvm.x86.ssse3.pmadd.ub.sw.128",
    8: "llvm.x86.avx2.pmadd.ub.sw",
    16: "llvm.x86.avx512.pmaddubs.w.512",
}
"""``pmaddubsw`` (u8 x s8 pairs summed, saturated to int16) per count of int32 lanes."""


def _int_peak(threads: int, runs: int, u8s8: bool = False) -> tuple[float, str]:
    """The host's integer multiply-add peak in GOP/s (a multiply-add is two) and
    the instruction measured: a loop of ``pmaddwd`` and ``add`` on twelve
    independent vector sums (LLVM makes the pair ``vpdpwssd`` on VNNI hosts),
    compiled for the host, on ``threads`` threads at once; best of ``runs``.
    ``u8s8``: ``pmaddubsw`` (u8 x s8, four products per int32 lane) then
    ``pmaddwd`` by ones and ``add``, onnxruntime's AVX2 step (its int16 pair sums
    saturate, so xrelay's exact kernels do not use it): the reference for what
    8-bit operands could reach on a host without VNNI."""
    import ctypes
    from concurrent.futures import ThreadPoolExecutor

    import llvmlite.binding as llvm

    from xrelay.lowering.kernels.int16 import PMADD_INTRINSICS, pair_lanes

    lanes = pair_lanes()
    if lanes == 0:
        return 0.0, "none"
    chains = 12
    name = PMADD_INTRINSICS[lanes]
    ubs = PMADDUBS_INTRINSICS[lanes]
    phis = "\n".join(
        f"  %a{j} = phi <{lanes} x i32> [splat (i32 {j + 1}), %entry], [%b{j}, %loop]"
        for j in range(chains)
    )
    if u8s8:
        body = "\n".join(
            f"  %u{j} = bitcast <{lanes} x i32> %a{j} to <{4 * lanes} x i8>\n"
            f"  %w{j} = call <{2 * lanes} x i16> @{ubs}(<{4 * lanes} x i8> %u{j}, "
            f"<{4 * lanes} x i8> splat (i8 3))\n"
            f"  %p{j} = call <{lanes} x i32> @{name}(<{2 * lanes} x i16> %w{j}, "
            f"<{2 * lanes} x i16> splat (i16 1))\n"
            f"  %b{j} = add <{lanes} x i32> %a{j}, %p{j}"
            for j in range(chains)
        )
    else:
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
        n=lanes, m=2 * lanes, b=4 * lanes, name=name, ubs=ubs, phis=phis, body=body,
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
    per_lane = 4 if u8s8 else 2
    ops = 2.0 * per_lane * lanes * chains * count * threads
    if u8s8:
        return ops / best / 1e9, f"vpmaddubsw + vpmaddwd x{lanes} lanes"
    vnni = llvm.get_host_cpu_features()
    kind = "vpdpwssd" if vnni.get("avxvnni") or vnni.get("avx512vnni") else "vpmaddwd"
    return ops / best / 1e9, f"{kind} x{lanes} lanes"


_FMA_IR = """
declare <{n} x float> @llvm.fma.v{n}f32(<{n} x float>, <{n} x float>, <{n} x float>)
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
  store <{n} x float> %s{last}, ptr %out, align 4
  ret void
}}
"""


def _fma_peak(runs: int) -> tuple[float, str]:
    """The host's float32 multiply-add peak of one thread in GFLOP/s (a multiply-add
    is two) and the vector measured: a loop of vector FMAs on twelve independent
    sums of the host's widest vectors, compiled for the host; best of ``runs``."""
    import ctypes

    import llvmlite.binding as llvm

    from xrelay.lowering.tiling import host_vector_unit

    lanes, chains = host_vector_unit().bytes // 4, 12
    phis = "\n".join(
        f"  %a{j} = phi <{lanes} x float> [zeroinitializer, %entry], [%b{j}, %loop]"
        for j in range(chains)
    )
    body = "\n".join(
        f"  %b{j} = call <{lanes} x float> @llvm.fma.v{lanes}f32(<{lanes} x float> "
        f"%a{j}, <{lanes} x float> splat (float 1.0), <{lanes} x float> splat "
        "(float 0.5))"
        for j in range(chains)
    )
    sums = [f"  %s0 = fadd <{lanes} x float> %b0, %b1"]
    sums += [
        f"  %s{j - 1} = fadd <{lanes} x float> %s{j - 2}, %b{j}"
        for j in range(2, chains)
    ]
    ir = _FMA_IR.format(
        n=lanes, phis=phis, body=body, sum="\n".join(sums), last=chains - 2
    )
    llvm.initialize_native_target()
    llvm.initialize_native_asmprinter()
    target = llvm.Target.from_default_triple().create_target_machine(
        cpu=llvm.get_host_cpu_name(),
        features=llvm.get_host_cpu_features().flatten(),
        opt=3,
    )
    engine = llvm.create_mcjit_compiler(llvm.parse_assembly(ir), target)
    engine.finalize_object()
    fn = ctypes.CFUNCTYPE(None, ctypes.c_int64, ctypes.c_void_p)(
        engine.get_function_address("peak")
    )
    count = 2_000_000
    out = np.empty(lanes, np.float32)
    best = min(_times_s(lambda: fn(count, out.ctypes.data), max(10, runs)))
    return 2.0 * lanes * chains * count / best / 1e9, f"vfmadd x{lanes} lanes"


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
            (1, 768, 50257, " (GPT-2 LM head)"),
            (1, 9216, 4096, " (AlexNet fc6)"),
            (1, 4096, 4096, " (AlexNet fc7)"),
            (1, 2048, 5632, " (LLaMA MLP)"),
            (2, 2048, 5632, ""),
            (4, 2048, 5632, ""),
            (8, 2048, 5632, ""),
            (4, 768, 50257, ""),
        )
    ]  # fmt: skip
    out += [
        Case("matvec", "matmul 1x4096 @ [K,N] 4096x4096", _matmul_kn(1, 4096, 4096),
             peak="read", reads=4 * (4096 * 4096 + 2 * 4096)),
    ]  # fmt: skip
    out += [
        Case("matvec", f"batch_matmul {b}x1x{k} @ {what}", _batch_matmul_const(b, 1, k, n, tb),
             peak="read", reads=4 * (b * n * k + b * k + b * n))
        for b, k, n, tb, what in (
            (12, 64, 4096, True, "T(12x4096x64) (Q K^T)"),
            (12, 4096, 64, False, "12x4096x64 (P V)"),
        )
    ]  # fmt: skip
    out += [
        Case("matvec", f"attention decode 12 heads, KV {past}", _attention_decode(12, past, 64),
             peak="read", reads=4 * (2 * 12 * past * 64 + 2 * 12 * 64))
        for past in (128, 1024)
    ]  # fmt: skip
    out += [
        Case("matvec", f"embedding take {m} of 50257x768", _embedding(50257, 768, m),
             peak="read", reads=8 * m + 2 * 4 * m * 768)
        for m in (1, 128)
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
    for c, hw, k, s, oc in (
        (3, 224, 7, 2, 64),
        (64, 56, 3, 1, 64),
        (128, 28, 3, 1, 128),
        (256, 14, 3, 1, 256),
        (256, 14, 3, 2, 512),
        (512, 7, 3, 1, 512),
    ):
        out.append(
            Case("conv", f"{k}x{k}/s{s} c{c}->{oc} {hw}x{hw}",
                 _conv(c, hw, k, s, 1, oc), _conv_flops(c, hw, k, s, 1, oc), "fma")
        )  # fmt: skip
    for c, hw, oc in (
        (16, 112, 96),
        (96, 56, 24),
        (128, 28, 128),
        (112, 14, 672),
        (672, 14, 112),
        (1152, 7, 192),
        (320, 7, 1280),
        (232, 28, 232),
    ):
        out.append(
            Case("conv-pointwise", f"1x1 c{c}->{oc} {hw}x{hw}",
                 _conv(c, hw, 1, 1, 1, oc), _conv_flops(c, hw, 1, 1, 1, oc), "sgemm",
                 (oc, c, hw * hw))
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


def _dram_header(threads: int, runs: int) -> ReadProbe:
    """Print the load and the DRAM read bandwidth (a buffer of
    :data:`DRAM_PROBE_BYTES`) on 1 and 2 threads; the probe of ``threads``."""
    load = ", ".join(f"{v:.2f}" for v in os.getloadavg())
    figures: list[str] = []
    probes: dict[int, ReadProbe] = {}
    for n in sorted({1, 2, threads}):
        probes[n] = ReadProbe(n)
        reader = probes[n].reader(DRAM_PROBE_BYTES)
        best = min(_times_s(reader, max(3, runs // 5)))
        figures.append(
            f"{n} thr {probes[n].bytes_read(DRAM_PROBE_BYTES) / best / 1e9:.1f}"
        )
    print(
        f"read bandwidth (streaming sum of {DRAM_PROBE_BYTES >> 20} MiB, GB/s): "
        f"{', '.join(figures)}; load {load}"
    )
    print(
        "matvec: xrelay and the read probe over the same bytes in alternating "
        "blocks; % = probe time / xrelay time (best of each; medians in brackets)"
    )
    return probes[threads]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--opt-level", type=int, default=3)
    parser.add_argument("--only", nargs="*", help="families or name substrings")
    parser.add_argument(
        "--scaling", action="store_true", help="2-thread / 1-thread time per case"
    )
    args = parser.parse_args()
    if args.scaling:
        _scaling(args)
        return

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
    fma_peak: tuple[float, str] | None = None
    probe: ReadProbe | None = None

    def compiled(
        build: Callable[[Any], Any],
    ) -> tuple[Callable[[], Any], list[Any], Any]:
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
        return m.run, inputs, out

    def timed(build: Callable[[Any], Any]) -> tuple[list[float], list[Any], Any]:
        run, inputs, out = compiled(build)
        return _times_s(run, args.runs), inputs, out

    for case in cases():
        if args.only and not any(s == case.family or s in case.name for s in args.only):
            continue
        if case.peak == "read":
            if probe is None:
                probe = _dram_header(args.threads, args.runs)
            run, _, _ = compiled(case.build)
            reader = probe.reader(case.reads)
            ours_ts, read_ts = _alternate([run, reader], args.runs)
            # best of each side (the bandwidth, not the noise), and medians
            t, peak_t = min(ours_ts), min(read_ts)
            med = statistics.median(read_ts) / statistics.median(ours_ts)
            peak_bw = probe.bytes_read(case.reads) / peak_t
            print(
                f"{case.family:15} {case.name:36} {t * 1e3:9.3f} "
                f"{case.reads / peak_bw * 1e3:8.3f} "
                f"{case.reads / t / 1e9:6.1f} GB/s {peak_bw / 1e9:6.1f} GB/s "
                f"{case.reads / peak_bw / t:6.0%}  (medians {med:4.0%})",
                flush=True,
            )
            continue
        runs, inputs, out = timed(case.build)
        t = statistics.median(runs)
        if case.peak == "int8":
            if int_peak is None:
                int_peak = _int_peak(args.threads, args.runs)
                print(f"integer peak: {int_peak[0]:.1f} GOP/s ({int_peak[1]})")
                ubs = _int_peak(args.threads, args.runs, u8s8=True)
                print(
                    f"  u8 x s8 reference: {ubs[0]:.1f} GOP/s ({ubs[1]}: saturates "
                    "int16 pair sums, not used)"
                )
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
        if case.peak == "fma":
            if fma_peak is None:
                fma_peak = _fma_peak(args.runs)
                print(f"float peak: {fma_peak[0]:.1f} GFLOP/s a thread ({fma_peak[1]})")
            peak_t = case.flops / (fma_peak[0] * 1e9 * args.threads)
            print(
                f"{case.family:15} {case.name:36} {t * 1e3:9.3f} {peak_t * 1e3:8.3f} "
                f"{case.flops / t / 1e9:6.1f} GF/s "
                f"{fma_peak[0] * args.threads:6.1f} GF/s {t / peak_t:6.2f}",
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


def _scaling(args: argparse.Namespace) -> None:
    """``--scaling``: per case, a team of 2 against a team of 1 on the same kernel."""
    import math

    import xrelay
    from xrelay import relay
    from xrelay.pass_manager import PassContext

    print(
        f"thread scaling, opt_level {args.opt_level}, runs {args.runs}, "
        f"load {os.getloadavg()[0]:.1f}"
    )
    print(f"{'family':15} {'case':36} {'1T ms':>9} {'2T ms':>9} {'2T/1T':>6}")
    ratios: dict[str, list[float]] = {}
    for case in cases():
        if args.only and not any(s == case.family or s in case.name for s in args.only):
            continue
        expr, inputs = case.build(relay)
        with PassContext(opt_level=args.opt_level):
            lib = xrelay.build(relay.IRModule.from_expr(expr))
        runs = []
        for team in (1, 2):
            m = lib.create()
            m.set_num_threads(team)
            for k, a in enumerate(inputs):
                m.set_input_zero_copy(k, a)
            runs.append(m.run)
        one, two = (statistics.median(ts) for ts in _alternate(runs, args.runs))
        ratios.setdefault(case.family, []).append(two / one)
        print(
            f"{case.family:15} {case.name:36} {one * 1e3:9.3f} {two * 1e3:9.3f} "
            f"{two / one:6.2f}",
            flush=True,
        )
    print("per family (geometric mean of 2T/1T):")
    for family, rs in ratios.items():
        mean = math.exp(sum(math.log(r) for r in rs) / len(rs))
        print(f"  {family:15} {mean:5.2f}  ({len(rs)} cases, worst {max(rs):.2f})")


if __name__ == "__main__":
    main()
