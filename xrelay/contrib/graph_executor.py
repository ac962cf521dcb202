"""``xrelay.contrib.graph_executor`` (TVM's ``tvm.contrib.graph_executor``): the
wrapper TVM scripts put around a built model's executor.

    lib = relay.build(mod, target="llvm", params=params)
    m = graph_executor.GraphModule(lib["default"](xrelay.cpu(0)))
    m.set_input("data", xrelay.nd.array(x))
    m.run()
    y = m.get_output(0).numpy()

Outputs are :class:`~xrelay.runtime.ndarray.NDArray`\\ s (numpy arrays answering
``.numpy()``). ``benchmark`` times ``run`` as TVM's does (seconds).
"""

from __future__ import annotations

import statistics
import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from xrelay.runtime.executor import GraphModule as Executor
from xrelay.runtime.ndarray import NDArray, ndarray


@dataclass
class BenchmarkResult:
    """Run times in seconds (TVM's ``BenchmarkResult``)."""

    results: list[float] = field(default_factory=list[float])

    @property
    def mean(self) -> float:
        return statistics.fmean(self.results)

    @property
    def median(self) -> float:
        return statistics.median(self.results)

    @property
    def min(self) -> float:
        return min(self.results)

    @property
    def max(self) -> float:
        return max(self.results)

    @property
    def std(self) -> float:
        return statistics.pstdev(self.results)

    def __str__(self) -> str:
        ms = [x * 1e3 for x in (self.mean, self.median, self.max, self.min, self.std)]
        return (
            "Execution time summary:\n"
            " mean (ms)   median (ms)    max (ms)     min (ms)     std (ms)  \n"
            + "".join(f"{v:^13.4f}" for v in ms)
        )


class GraphModule:
    """TVM's ``graph_executor.GraphModule`` over an xrelay executor (what
    ``lib["default"](dev)`` returns), or over a library (its default executor)."""

    def __init__(self, module: Any):
        if isinstance(module, Executor):
            self.module = module
        elif callable(getattr(module, "create", None)):
            self.module = module.create()
        else:
            raise TypeError(
                "GraphModule wraps what lib['default'](dev) returns (an executor of a "
                f"built model), got {type(module).__name__}"
            )

    def set_input(
        self,
        key: int | str | dict[str, Any] | None = None,
        value: Any = None,
        **params: Any,
    ) -> None:
        self.module.set_input(key, value, **params)

    def run(self, **input_dict: Any) -> None:
        self.module.run(**input_dict)

    def get_num_outputs(self) -> int:
        return self.module.get_num_outputs()

    def get_num_inputs(self) -> int:
        return self.module.get_num_inputs()

    def get_input_index(self, name: str) -> int:
        return self.module.get_input_index(name)

    def get_input(self, index: int | str, out: Any = None) -> NDArray:
        value = self.module.get_input(index)
        if out is not None:
            np.copyto(out, value, casting="unsafe")
            return out
        return ndarray(value)

    def get_output(self, index: int, out: Any = None) -> NDArray:
        """Output ``index`` as a new array (or copied into ``out``)."""
        if out is not None:
            self.module.get_output(index, np.asarray(out))
            return out
        return ndarray(self.module.get_output(index))

    def benchmark(
        self,
        device: Any = None,
        func_name: str = "run",
        repeat: int = 5,
        number: int = 5,
        min_repeat_ms: int | None = None,
        end_to_end: bool = False,
        **kwargs: Any,
    ) -> BenchmarkResult:
        """Time ``run`` ``repeat`` times, each the mean of ``number`` runs (at least
        ``min_repeat_ms`` long); ``kwargs`` are inputs set first."""
        del device, end_to_end
        if func_name != "run":
            raise ValueError(f"only 'run' can be benchmarked, not {func_name!r}")
        if kwargs:
            self.set_input(**kwargs)
        self.module.run()
        results: list[float] = []
        for _ in range(max(1, repeat)):
            n = max(1, number)
            while True:
                start = time.perf_counter()
                self.module.benchmark_run(n)
                elapsed = time.perf_counter() - start
                if min_repeat_ms is None or elapsed * 1e3 >= min_repeat_ms:
                    break
                n *= 2
            results.append(elapsed / n)
        return BenchmarkResult(results)


def create(graph_json_str: str, libmod: Any, device: Any) -> GraphModule:
    """TVM's ``graph_executor.create(graph_json, lib, dev)``: the graph JSON must be
    the library's own (``lib.get_graph_json()``)."""
    if graph_json_str != libmod.get_graph_json():
        raise ValueError("the graph JSON does not belong to this library")
    return GraphModule(libmod["default"](device))
