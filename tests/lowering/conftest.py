"""Helpers for the lowering tests: build a module holding many op instances (one
compilation for all), lower it, JIT it and compare with the ops' numpy semantics."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pytest
from xdsl.dialects.builtin import FunctionType, ModuleOp
from xdsl.dialects.func import FuncOp, ReturnOp
from xdsl.ir import Block, Region, SSAValue

from xrelay.dialects.relay.base import RelayOp
from xrelay.dialects.relay.structural import ConstantOp
from xrelay.dialects.relay.testing import type_of


@pytest.fixture(scope="module", autouse=True)
def share_every_kernel() -> Any:
    """Kernels as the team shares them: every kernel that can be shared out is
    (``XRELAY_SHARE_MIN_NS=0``), however small, so that runs on several threads
    exercise the shared-out loops of these small test cases. (Autouse and
    module-scoped: set before the modules' own builds. The default threshold is
    tested in tests/runtime/test_threads.py.) Independent calls are not run side by
    side either (``XRELAY_OVERLAP_MAX_NS=0``): tests/lowering/test_overlap.py turns
    that on where it checks it."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("XRELAY_SHARE_MIN_NS", "0")
        mp.setenv("XRELAY_OVERLAP_MAX_NS", "0")
        yield


@dataclass
class Case:
    """One op instance: its class, operand arrays, attributes; ``constants`` lists
    the operands given as relay constants instead of inputs."""

    op: type[RelayOp]
    args: Sequence[Any]
    attrs: dict[str, Any] = field(default_factory=dict[str, Any])
    constants: Sequence[int] = ()
    rtol: float = 1e-5
    atol: float = 1e-6

    def label(self) -> str:
        shapes = ", ".join(str(list(np.shape(a))) for a in self.args)
        return f"{self.op.name}({shapes}) {self.attrs}"


def module_of(
    cases: Sequence[Case],
) -> tuple[ModuleOp, list[Any], list[tuple[Case, Any]]]:
    """One ``@main`` computing every case; its inputs and the expected outputs."""
    inputs: list[Any] = []
    arg_types = []
    for case in cases:
        for k, a in enumerate(case.args):
            if k not in case.constants:
                inputs.append(np.asarray(a))
                arg_types.append(type_of(a))
    block = Block(arg_types=arg_types)
    args = iter(block.args)
    results: list[SSAValue] = []
    expected: list[tuple[Case, Any]] = []
    for case in cases:
        operands: list[SSAValue] = []
        for k, a in enumerate(case.args):
            if k in case.constants:
                const = ConstantOp.from_numpy(np.asarray(a))
                block.add_op(const)
                operands.append(const.result)
            else:
                operands.append(next(args))
        op = case.op.make(operands, case.attrs)
        op.verify()
        block.add_op(op)
        values = op.evaluate(*[np.asarray(a) for a in case.args])
        for res, value in zip(op.results, values, strict=True):
            results.append(res)
            expected.append((case, value))
    block.add_op(ReturnOp(*results))
    main = FuncOp(
        "main",
        FunctionType.from_lists(arg_types, [r.type for r in results]),
        Region(block),
    )
    return ModuleOp([main]), inputs, expected


def run_lowered(module: ModuleOp, inputs: Sequence[Any]) -> list[Any]:
    """Lower ``module`` (no optimisation passes), JIT it and run it on one thread and
    on three (which must agree exactly); the outputs."""
    from xrelay.lowering.pipeline import lower_model
    from xrelay.runtime.library import Library

    lowered = lower_model(module)
    lib = Library(lowered.spec, lowered.llvm_ir)
    outs = []
    # one thread, and a team of three (more than the cores, chunks of unequal size):
    # the threads share out whole outputs, so the results are the same bits
    for threads in (1, 3):
        m = lib.create()
        m.set_num_threads(threads)
        m.set_input(**{t.name: a for t, a in zip(lib.spec.inputs, inputs, strict=True)})
        m.run()
        outs.append([m.get_output(i) for i in range(m.get_num_outputs())])
    for alone, team in zip(*outs, strict=True):
        np.testing.assert_array_equal(team, alone, err_msg="3 threads differ from 1")
    return outs[0]


def check_cases(cases: Sequence[Case]) -> None:
    """Lower every case in one module, run it, compare with the reference."""
    module, inputs, expected = module_of(cases)
    outputs = run_lowered(module, inputs)
    assert len(outputs) == len(expected)
    failures: list[str] = []
    for out, (case, ref) in zip(outputs, expected, strict=True):
        ref = np.asarray(ref)
        if out.shape != ref.shape or out.dtype != ref.dtype:
            failures.append(
                f"{case.label()}: got {out.dtype}{list(out.shape)}, "
                f"expected {ref.dtype}{list(ref.shape)}"
            )
            continue
        if ref.dtype.kind in "fc":
            ok = np.allclose(out, ref, rtol=case.rtol, atol=case.atol, equal_nan=True)
        else:
            ok = np.array_equal(out, ref)
        if not ok:
            diff = np.max(np.abs(out.astype(np.float64) - ref.astype(np.float64)))
            failures.append(f"{case.label()}: max abs diff {diff}")
    assert not failures, "\n".join(failures)


@pytest.fixture
def rng() -> np.random.Generator:
    return np.random.default_rng(20240617)


@pytest.fixture
def check() -> Callable[[Sequence[Case]], None]:
    return check_cases


@pytest.fixture
def case() -> type[Case]:
    """The :class:`Case` class (test modules cannot import conftest)."""
    return Case
