"""relay.constant: numpy-backed values, exact text round trips, elision of large ones."""

from __future__ import annotations

import io

import numpy as np
import pytest
from xdsl.dialects.builtin import ModuleOp
from xdsl.dialects.func import FuncOp, ReturnOp
from xdsl.ir import Block, Region
from xdsl.printer import Printer
from xdsl.utils.exceptions import ParseError

from xrelay.dialects.relay import ConstantOp, printing

# ResNet-18's convolution and classifier weights: about 11.7 M floats
RESNET18_WEIGHTS = (
    [(64, 3, 7, 7)]
    + [(64, 64, 3, 3)] * 4
    + [
        (128, 64, 3, 3),
        (128, 128, 3, 3),
        (128, 128, 3, 3),
        (128, 128, 3, 3),
        (128, 64, 1, 1),
    ]
    + [
        (256, 128, 3, 3),
        (256, 256, 3, 3),
        (256, 256, 3, 3),
        (256, 256, 3, 3),
        (256, 128, 1, 1),
    ]
    + [
        (512, 256, 3, 3),
        (512, 512, 3, 3),
        (512, 512, 3, 3),
        (512, 512, 3, 3),
        (512, 256, 1, 1),
    ]
    + [(1000, 512)]
)


def module_of(*arrays: np.ndarray) -> ModuleOp:
    consts = [ConstantOp(a) for a in arrays]
    func = FuncOp("main", ((), ()), Region(Block([*consts, ReturnOp()])))
    return ModuleOp([func])


def to_text(op: ModuleOp, elide: int | None = None) -> str:
    stream = io.StringIO()
    with printing.elide_constants(elide):
        Printer(stream=stream).print_op(op)
    return stream.getvalue()


@pytest.mark.parametrize(
    "array",
    [
        np.float32(1.5),
        np.arange(6, dtype=np.float32).reshape(2, 3),
        np.arange(300, dtype=np.int64) - 150,
        np.array([True, False, True]),
        np.full((4, 4), 7, dtype=np.int32),
        np.random.default_rng(0).standard_normal((3, 50)).astype(np.float64),
        np.array([np.nan, -np.inf, -0.0, 1e-45], dtype=np.float32),
    ],
)
def test_round_trip_keeps_every_byte(parse, array: np.ndarray):
    mod = module_of(array)
    back = parse(to_text(mod))
    (const,) = [op for op in back.walk() if isinstance(op, ConstantOp)]
    value = const.numpy()
    assert value.dtype == array.dtype
    assert value.shape == array.shape
    assert value.tobytes() == np.ascontiguousarray(array).tobytes()


def test_numpy_view_does_not_copy():
    array = np.arange(1000, dtype=np.float32)
    const = ConstantOp(array)
    view = const.numpy()
    assert not view.flags.writeable
    assert np.shares_memory(view, const.numpy())


def test_elision_is_opt_in_and_parse_rejects_elided_data(parse):
    mod = module_of(np.arange(1000, dtype=np.float32), np.arange(3, dtype=np.float32))
    full = to_text(mod)
    assert "__elided__" not in full
    elided = to_text(mod, elide=printing.DEFAULT_ELIDE_LIMIT)
    assert "relay.constant dense_resource<__elided__> : tensor<1000xf32>" in elided
    assert "dense<[0.000000e+00, 1.000000e+00, 2.000000e+00]> : tensor<3xf32>" in elided
    with pytest.raises(ParseError, match="elided when the IR was printed"):
        parse(elided)


def test_resnet18_sized_parameters_print_and_round_trip(parse):
    rng = np.random.default_rng(0)
    arrays = [rng.standard_normal(s, dtype=np.float32) for s in RESNET18_WEIGHTS]
    assert sum(a.size for a in arrays) > 11_000_000
    mod = module_of(*arrays)
    elided = to_text(mod, elide=printing.DEFAULT_ELIDE_LIMIT)
    assert len(elided) < 10_000
    back = parse(to_text(mod))
    consts = [op for op in back.walk() if isinstance(op, ConstantOp)]
    assert len(consts) == len(arrays)
    for array, const in zip(arrays, consts, strict=True):
        assert const.numpy().tobytes() == array.tobytes()
