"""xrelay.lowering: relay → loops on memref → ``llvm`` dialect → LLVM IR.

The pipeline and where each step lives
--------------------------------------

1. **relay → kernels** (:mod:`.graph`, :mod:`.group`, :mod:`.kernels`; pass
   ``relay-to-kernels``). Input: a relay module with static types (InferType runs
   first). Each function fused by FuseOps (``func.func`` marked ``relay.primitive``,
   called with ``func.call``) becomes one kernel; without FuseOps every op is its own
   kernel. A kernel is a ``func.func`` taking memrefs (inputs, weights, outputs,
   scratch) whose body is ``scf.for`` loops of ``memref.load``/``store``, ``arith``
   and ``math``: valid MLIR (``mlir-opt`` parses it; a lit directory checks that MLIR's
   own lowering of it computes the same numbers). Kernels with the same code are
   shared. ``main`` becomes a host function on memrefs calling the kernels in order.
2. **memory planning** (:mod:`.memory_plan`; ``plan-memory``): the host's
   ``memref.alloc``/``dealloc`` pairs become ``memref.view``s at static offsets of one
   arena, reused between buffers whose lifetimes do not overlap (greedy by size, best
   fit). Nothing is allocated at run time.
3. **→ llvm** (:mod:`.llvm`; ``lower-to-llvm``): weights and the arena become
   pointer arguments; xDSL's ``convert-scf-to-cf``; xrelay's own memref (typed
   ``getelementptr`` at the folded linear index, in place of xDSL's
   ``convert-memref-to-ptr`` and ptr passes), arith, math, cf and func → llvm
   conversions (xDSL 0.74 has none of the last four); ``reconcile-unrealized-casts``;
   ``xrelay_run(args, tid, nthreads, team)``, one thread's call of the host.
4. **→ LLVM IR** (:mod:`.emit`): xDSL's ``convert_module``, then the thread team
   (:mod:`.llvm.threads`: ``void xrelay_entry(void **args, int64_t nthreads)``, the
   barrier and the worker threads, written with llvmlite's IR builder); ``xrelay-opt
   -p relay-lower-to-llvm -t llvm`` prints it.

:func:`~xrelay.lowering.pipeline.lower_model` runs it all; ``xrelay.build`` adds the
optimisation pipeline before and the JIT after (:mod:`xrelay.runtime`). A large
module's kernels go through steps 3 and 4 and LLVM's compilation in several
processes, one object file per part (:mod:`.parallel`).

Decisions
---------

* **Per-op lowering = emitter functions registered per op class**
  (:mod:`.kernels`), two forms: *pointwise* (the value of an output element, from
  operand elements read at other indices: elementwise ops through one generic
  emitter driven by a scalar function per op, injective ops through an "output index
  → input index" map per op, and reductions / pooling / matrix products as loops
  inside the element) and *materialize* (ops needing several passes or another loop
  order: softmax, the normalisations, the direct convolutions). In a fused kernel,
  cheap pointwise ops are inlined into their consumers (TVM's compute-inline); others
  write scratch buffers, except a convolution whose only consumers are elementwise
  ops reading it at the output index (bias, residual add, relu...): those run as its
  *epilogue*, applied to each output plane (row for NCHWc) while it is hot, and the
  convolution writes the kernel's output directly. linalg is not used: xDSL's
  ``convert-linalg-to-loops`` adds nothing the emitters do not already produce, and
  loops are where tiling and vectorisation (issue 8) slot in:
  :class:`~.builder.KernelBuilder` has loops with steps and carried values.
* **Buffers**: a memref lowers to one bare pointer (static shapes, identity layout),
  not MLIR's descriptor. ``bool`` is stored as a byte (numpy's layout). Kernel
  arguments are ``llvm.noalias`` (the planner never gives one kernel overlapping
  buffers), which lets LLVM vectorise without run-time checks.
* **Weights** (constants with more than one element) are ``memref.global`` at the
  memref level, and the ``k``-th pointer of a weight table at the llvm level: bound
  once by the runtime (numpy views of the constants' bytes, never copied), never
  written into LLVM IR. One-element constants are inlined as ``arith.constant``.
* **Views**: reshapes, ``batch_flatten``, ``squeeze``, ``expand_dims`` and ``copy`` in
  the host, and fused functions made only of them, are ``memref.reinterpret_cast``s
  (no kernel, no copy). A graph output that is an input, a constant, a view or a
  repeated value is copied into its output buffer; other outputs are written in place
  by the kernel producing them.
* **Code generation**: LLVM's O3 pipeline for the host CPU (name and features) with
  full loop unrolling off: unrolling the short inner loops of the blocked kernels
  before vectorisation made LLVM vectorise the wrong loop with gathers. Kernels are
  ``noinline`` and internal; the entry point is the only exported symbol.
* **Register tiling** (:mod:`.tiling`, issue 8): the direct convolutions,
  ``contrib_dense_pack`` and float ``batch_matmul`` keep a tile of outputs (pixels
  times a block of output channels, or units) as ``scf.for`` carried values through
  the reduction loops and store it once (through the fused epilogue); the innermost
  step loads one contiguous weight vector and broadcasts input values, which LLVM's
  SLP vectoriser turns into vector registers of the host's widest SIMD
  (``-prefer-256-bit`` is turned off on AVX-512 hosts, :mod:`xrelay.runtime.jit`).
  Tile sizes come from the host's vector registers (:func:`.tiling.split_row_tile`
  for the float convolution rows, cut without overlap by :func:`.tiling.row_pieces`;
  :func:`.tiling.row_tile` for the int16 ones, :func:`.tiling.gemm_tile` for the matrix products, which are
  written with ``vector`` ops: ``mr`` rows times ``nv`` vectors of sums,
  :mod:`.kernels.gemm`; override
  ``XRELAY_TILE_ROWS``). Operands contiguous along the reduction (a plain
  ``dense`` weight, a transposed ``batch_matmul`` operand of a product with few
  rows) run dot-product tiles instead (:func:`.tiling.dot_tile`: vector sums
  along ``K``, their lanes added once). A plain ``conv2d`` (one AlterOpLayout did not block)
  repacks its weights into a kernel scratch buffer (``OpLowering.scratch``) and runs
  the same tiles (``batch_matmul`` likewise repacks a transposed ``y``). Products
  are accumulated with a fused multiply-add (``math.fma``, one rounding) in the
  reference's reduction order per output.
* **Threads** (:mod:`.llvm.threads`): every kernel takes the thread id and count
  last; one whose emitter marks a single loop nest ``KernelBuilder.parallel`` (and
  stores nothing outside it) is run by every thread on its share of that nest, the
  others by thread 0; the host, run by every thread, has barriers between kernels.
* **Numerics** follow each op's numpy reference (``op.compute``): NaN-propagating
  ``maximum``/``minimum``, truncating integer division with ``x / 0 == 0`` (no trap),
  numpy's casts (float → int truncates, saturating outside the range), float sums
  accumulated in ``f64`` (numpy sums float32 pairwise), exact ``erf``/``tanh``/``fmod``
  through libm.
* **Errors**: an op that cannot lower (a dynamic shape) raises :class:`LoweringError` naming the op; ``xrelay-opt
  --verify-diagnostics`` prints it like a verifier diagnostic.

* **Control flow**: ``relay.if`` becomes an ``scf.if`` in the host on the condition's
  byte; each branch calls its kernels and copies what it yields into result buffers
  allocated before it (branch buffers are planned as live across the whole ``if``).

Not lowered yet: tuple-typed function parameters (a diagnostic).
:func:`~.kernels.unlowered_ops` lists dialect ops without a lowering (none at the time
of writing).
"""

from __future__ import annotations

from xrelay.lowering import cpu_layout as cpu_layout
from xrelay.lowering import passes as passes
from xrelay.lowering.errors import LoweringError

__all__ = ["LoweringError", "passes"]
