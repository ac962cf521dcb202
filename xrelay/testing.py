"""``xrelay.testing`` (TVM's ``tvm.testing``): the pytest helpers TVM's tests use.

    @xrelay.testing.parametrize_targets("llvm")
    def test_conv(target, dev): ...

    link_params = xrelay.testing.parameter(False, True)

xrelay compiles for the host CPU only: the enabled targets are ``llvm`` on
``xrelay.cpu(0)``; a test asking for another target is skipped, naming it.
(``xrelay.relay.testing`` is TVM's ``tvm.relay.testing``, the workloads.)
"""

from __future__ import annotations

import inspect
import sys
from collections.abc import Callable
from typing import Any, TypeVar, cast

import numpy as np

_F = TypeVar("_F", bound=Callable[..., Any])


def assert_allclose(
    actual: Any, desired: Any, rtol: float = 1e-7, atol: float = 1e-7
) -> None:
    """numpy's ``assert_allclose`` on arrays or anything with ``.numpy()``, with
    TVM's default tolerances; the shapes must be equal (no broadcasting)."""
    a = np.asarray(actual.numpy() if hasattr(actual, "numpy") else actual)
    d = np.asarray(desired.numpy() if hasattr(desired, "numpy") else desired)
    np.testing.assert_equal(a.shape, d.shape)
    np.testing.assert_allclose(a, d, rtol=rtol, atol=atol, verbose=True)


def enabled_targets() -> list[tuple[str, Any]]:
    """``[(target, device)]`` the tests may compile for: ``llvm`` on the CPU."""
    from xrelay.runtime.ndarray import cpu

    return [("llvm", cpu(0))]


def uses_gpu(fn: _F) -> _F:
    """TVM marks tests that also run on a GPU; xrelay runs them on the CPU."""
    return fn


def parametrize_targets(*targets: Any) -> Callable[[_F], _F]:
    """Run the test for each named target it accepts as ``(target, dev)``; only
    ``llvm`` (and ``c``) run here, others are skipped with their name."""
    import pytest

    from xrelay.runtime.ndarray import cpu

    def params(names: tuple[str, ...]) -> list[Any]:
        out: list[Any] = []
        for t in names or ("llvm",):
            kind = str(t).split()[0]
            if kind in ("llvm", "c"):
                out.append(pytest.param(t, cpu(0), id=kind))
            else:
                out.append(
                    pytest.param(
                        t,
                        None,
                        id=kind,
                        marks=pytest.mark.skip(reason=f"target {kind} is not built"),
                    )
                )
        return out

    if len(targets) == 1 and callable(targets[0]):
        fn = targets[0]
        return cast(Any, pytest.mark.parametrize(("target", "dev"), params(()))(fn))

    def decorate(fn: _F) -> _F:
        return pytest.mark.parametrize(("target", "dev"), params(targets))(fn)

    return decorate


def parameter(*values: Any, ids: Any = None) -> Any:
    """A pytest fixture taking each of ``values`` in turn (TVM's
    ``tvm.testing.parameter``): assign it to a module-level name, and tests asking
    for that name run once per value."""
    import pytest

    @pytest.fixture(params=list(values), ids=ids)
    def fixture(request: Any) -> Any:
        return request.param

    return fixture


def main() -> None:
    """Run the calling test file under pytest (``if __name__ == "__main__":``)."""
    import pytest

    frame = inspect.stack()[1]
    sys.exit(pytest.main([frame.filename, *sys.argv[1:]]))
