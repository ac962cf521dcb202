"""float16 kernels compute in float32: products are accumulated in float32 and
rounded to float16 once, when stored (as every peer does), at opt 0 and 3."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import xrelay
from tests.safety.subprocess_util import assert_clean, run_python
from xrelay import relay
from xrelay.pass_manager import PassContext


def _ulps(got: Any, want32: Any) -> float:
    """The largest error in float16 ulps (of the exact value's magnitude)."""
    want = want32.astype(np.float64)
    spacing = np.spacing(np.abs(want32).astype(np.float16)).astype(np.float64)
    return float(np.max(np.abs(got.astype(np.float64) - want) / spacing))


@pytest.mark.parametrize("opt_level", [0, 3])
def test_float16_products_accumulate_in_float32(opt_level: int) -> None:
    # in a subprocess: float16 code used to crash on its first run
    outcome = run_python(
        "from tests.safety.test_float16 import check_products; "
        f"check_products({opt_level}); print('ok')"
    )
    assert_clean(outcome)
    assert "ok" in outcome.stdout


def check_products(opt_level: int) -> None:
    rng = np.random.default_rng(0)
    k = 512
    feeds = {
        "d": rng.random((4, k)).astype(np.float16),
        "dw": rng.random((8, k)).astype(np.float16),
        "a": rng.random((2, 4, k)).astype(np.float16),
        "b": rng.random((2, 8, k)).astype(np.float16),
        "x": rng.random((1, 32, 6, 6)).astype(np.float16),
        "w": rng.random((4, 32, 3, 3)).astype(np.float16),
    }
    v = {n: relay.var(n, shape=a.shape, dtype="float16") for n, a in feeds.items()}
    body = relay.Tuple(
        [
            relay.nn.dense(v["d"], v["dw"]),
            relay.nn.batch_matmul(v["a"], v["b"]),
            relay.nn.conv2d(v["x"], v["w"], padding=(1, 1)),
        ]
    )
    mod = relay.IRModule.from_expr(relay.Function(list(v.values()), body))
    with PassContext(opt_level=opt_level):
        lib = xrelay.build(mod)
    dense, bmm, conv = lib(**feeds)
    f = {n: a.astype(np.float32) for n, a in feeds.items()}
    want_dense = f["d"] @ f["dw"].T
    want_bmm = f["a"] @ f["b"].transpose(0, 2, 1)
    xp = np.pad(f["x"], ((0, 0), (0, 0), (1, 1), (1, 1)))
    want_conv = np.zeros((1, 4, 6, 6), np.float32)
    for i in range(3):
        for j in range(3):
            want_conv += np.einsum(
                "nchw,oc->nohw", xp[:, :, i : i + 6, j : j + 6], f["w"][:, :, i, j]
            )
    for got, want in ((dense, want_dense), (bmm, want_bmm), (conv, want_conv)):
        assert got.dtype == np.float16
        # float16 accumulation of 512 products of [0, 1) is off by many ulps
        assert _ulps(got, want) <= 1.0
