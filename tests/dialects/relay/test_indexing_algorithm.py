"""The numpy semantics of scatter_nd, scatter_elements, trilu, cumsum, cumprod, topk
and einsum against values computed by hand, the index checks of gather, gather_nd
and the scatters, and the type relations' errors."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from xrelay.dialects.relay import algorithm as alg
from xrelay.dialects.relay import indexing as ix
from xrelay.dialects.relay import transform as tr
from xrelay.dialects.relay.base import RelayOp, TypeRelationError
from xrelay.dialects.relay.structural import ConstantOp


def run(cls: type[RelayOp], *args: Any, **attrs: Any) -> Any:
    consts = [ConstantOp.from_numpy(np.asarray(a)) for a in args]
    op = cls.make([c.result for c in consts], attrs)
    out = op.evaluate(*[np.asarray(a) for a in args])
    return out if len(out) > 1 else out[0]


def test_scatter_nd_update_add_and_negative_indices():
    data = np.zeros((3, 2), np.float32)
    idx = np.array([[0, 2, -1, -3]], np.int64)  # -1 -> 2, -3 -> 0
    upd = np.array([[1, 1], [2, 2], [3, 3], [4, 4]], np.float32)
    got = run(ix.ScatterNDOp, data, idx, upd)
    np.testing.assert_array_equal(got, [[4, 4], [0, 0], [3, 3]])  # last one wins
    got = run(ix.ScatterNDOp, data, idx, upd, mode="add")
    np.testing.assert_array_equal(got, [[5, 5], [0, 0], [5, 5]])


def test_scatters_check_indices():
    """An index outside ``[-dim, dim)`` raises (the first in the updates' order),
    never a clamped write."""
    from xrelay.status import IndexOutOfRangeError

    data = np.zeros((3, 2), np.float32)
    upd = np.ones((4, 2), np.float32)
    with pytest.raises(
        IndexOutOfRangeError, match=r"^relay.scatter_nd: index 7 .* size 3 "
    ):
        run(ix.ScatterNDOp, data, np.array([[0, 7, -4, 1]], np.int64), upd)
    nd = np.array([[0, 1], [1, -3]], np.int64)  # (0, 1) fine; (1, -3): col -3 bad
    with pytest.raises(IndexOutOfRangeError, match=r"^relay.scatter_nd: index -3 "):
        run(ix.ScatterNDOp, data, nd, np.ones(2, np.float32))
    idx = np.array([[0, 2], [-4, 9]], np.int64)
    with pytest.raises(
        IndexOutOfRangeError, match=r"^relay.scatter_elements: index -4 .* size 3 "
    ):
        run(ix.ScatterElementsOp, np.zeros((3, 2)), idx, np.ones((2, 2)), axis=0)


def test_scatter_nd_full_index_tuples():
    data = np.arange(6, dtype=np.int32).reshape(2, 3)
    idx = np.array([[1, 0], [2, 0]], np.int64)  # positions (1, 2) and (0, 0)
    got = run(ix.ScatterNDOp, data, idx, np.array([10, 20], np.int32), mode="mul")
    np.testing.assert_array_equal(got, [[0, 1, 2], [3, 4, 50]])


def test_scatter_elements_reductions():
    data = np.array([[1.0, 2.0, 3.0]], np.float32)
    idx = np.array([[2, 0, 2]], np.int64)
    upd = np.array([[5.0, -1.0, 0.5]], np.float32)
    want = {
        "update": [[-1, 2, 0.5]],
        "add": [[0, 2, 8.5]],
        "mul": [[-1, 2, 7.5]],
        "min": [[-1, 2, 0.5]],
        "max": [[1, 2, 5]],
    }
    for how, expected in want.items():
        got = run(ix.ScatterElementsOp, data, idx, upd, axis=1, reduction=how)
        np.testing.assert_array_equal(got, expected, err_msg=how)


def test_trilu():
    x = np.arange(1, 13, dtype=np.float32).reshape(3, 4)
    k = np.array(1, np.int64)
    np.testing.assert_array_equal(
        run(ix.TriluOp, x, k), [[0, 2, 3, 4], [0, 0, 7, 8], [0, 0, 0, 12]]
    )
    np.testing.assert_array_equal(
        run(ix.TriluOp, x, np.array(-1, np.int64), upper=False),
        [[0, 0, 0, 0], [5, 0, 0, 0], [9, 10, 0, 0]],
    )


def test_cumsum_cumprod():
    x = np.array([[1, 2, 3], [4, 5, 6]], np.int32)
    np.testing.assert_array_equal(run(alg.CumsumOp, x), [1, 3, 6, 10, 15, 21])
    np.testing.assert_array_equal(
        run(alg.CumsumOp, x, axis=1, exclusive=True), [[0, 1, 3], [0, 4, 9]]
    )
    got = run(alg.CumprodOp, x, axis=0, dtype="int64")
    assert got.dtype == np.int64
    np.testing.assert_array_equal(got, [[1, 2, 3], [4, 10, 18]])
    np.testing.assert_array_equal(
        run(alg.CumprodOp, x, axis=-1, exclusive=True), [[1, 1, 2], [1, 4, 20]]
    )


def test_topk_order_ties_and_nan():
    x = np.array([3.0, 1.0, np.nan, 3.0, 2.0], np.float32)
    values, indices = run(alg.TopKOp, x, k=3)
    np.testing.assert_array_equal(indices, [2, 0, 3])
    assert indices.dtype == np.int32
    np.testing.assert_array_equal(values, [np.nan, 3, 3])
    got = run(alg.TopKOp, x, k=2, is_ascend=True, ret_type="indices", dtype="int64")
    np.testing.assert_array_equal(got, [1, 4])
    got = run(alg.TopKOp, np.array([[5, 1], [2, 7]], np.int8), axis=0, k=0)
    np.testing.assert_array_equal(got[0], [[5, 7], [2, 1]])
    np.testing.assert_array_equal(got[1], [[0, 1], [1, 0]])


def test_argsort_order_ties_and_nan():
    x = np.array([3.0, 1.0, np.nan, 3.0, 2.0], np.float32)
    got = run(alg.ArgsortOp, x)
    np.testing.assert_array_equal(got, [1, 4, 0, 3, 2])  # NaN last, ties by index
    assert got.dtype == np.int32
    got = run(alg.ArgsortOp, x, is_ascend=False, dtype="int64")
    np.testing.assert_array_equal(got, [2, 0, 3, 4, 1])
    assert got.dtype == np.int64
    m = np.array([[5, 1], [2, 7]], np.int8)
    np.testing.assert_array_equal(run(alg.ArgsortOp, m, axis=0), [[1, 0], [0, 1]])
    np.testing.assert_array_equal(run(alg.ArgsortOp, m, axis=0), np.argsort(m, 0))


def test_einsum():
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    b = np.arange(12, dtype=np.float32).reshape(3, 4)
    np.testing.assert_array_equal(run(alg.EinsumOp, a, b, equation="ij,jk->ik"), a @ b)
    np.testing.assert_array_equal(run(alg.EinsumOp, a, equation="ij"), a)
    np.testing.assert_array_equal(run(alg.EinsumOp, a, equation="ji"), a.T)
    m = np.arange(9, dtype=np.int32).reshape(3, 3)
    assert int(run(alg.EinsumOp, m, equation="ii")) == 0 + 4 + 8
    plan = alg.einsum_plan("...ij,...jk", [(5, 2, 3), (1, 3, 4)])
    assert plan.out_shape == (5, 2, 4)
    assert plan.summed == ("j",)


def test_gather_and_gather_nd_check_indices():
    """Negative indices count from the end; anything outside ``[-dim, dim)`` raises
    the error compiled code reports from its status block (never a clamped read)."""
    from xrelay.status import IndexOutOfRangeError

    x = np.arange(12, dtype=np.float32).reshape(3, 4)
    idx = np.array([[2, -1, -3, 0]], np.int64)
    np.testing.assert_array_equal(run(tr.GatherOp, x, idx, axis=0), [[8, 9, 2, 3]])
    nd = np.array([[-1, 2], [0, -4]], np.int64)  # rows -1, 2; cols 0, -4
    np.testing.assert_array_equal(run(tr.GatherNDOp, x, nd), [x[2, 0], x[2, 0]])
    with pytest.raises(IndexOutOfRangeError, match=r"relay.gather: index 5 .* size 3"):
        run(tr.GatherOp, x, np.array([[5, 0, 0, 0]], np.int64), axis=0)
    with pytest.raises(IndexOutOfRangeError, match=r"relay.gather_nd: index -5"):
        run(tr.GatherNDOp, x, np.array([[0], [-5]], np.int64))


@pytest.mark.parametrize(
    ("cls", "args", "attrs", "message"),
    [
        (
            ix.ScatterNDOp,
            [np.zeros((2, 2), np.float32), np.zeros((3, 1), np.int64)],
            {},
            "indices address 3 dims but data has rank 2",
        ),
        (
            alg.TopKOp,
            [np.zeros((), np.float32)],
            {},
            "data must have rank >= 1",
        ),
        (
            alg.TopKOp,
            [np.zeros((3,), np.float32)],
            {"dtype": "float32"},
            "dtype must be an integer type",
        ),
        (
            alg.EinsumOp,
            [np.zeros((3,), np.float32)],
            {"equation": "i...j"},
            "has more labels than the operand's rank 1",
        ),
        (
            alg.EinsumOp,
            [np.zeros((3,), np.float32), np.zeros((3,), np.int32)],
            {"equation": "i,i"},
            "operand #1 has element type i32",
        ),
    ],
)
def test_type_relation_errors(
    cls: type[RelayOp], args: list[Any], attrs: dict[str, Any], message: str
):
    if cls is ix.ScatterNDOp:
        args = [*args, np.zeros((1, 2), np.float32)]
    consts = [ConstantOp.from_numpy(a) for a in args]
    with pytest.raises(TypeRelationError, match=message.replace("(", r"\(")):
        cls.make([c.result for c in consts], attrs)
