"""The architecture families of ``bench/families.py`` (ShuffleNet-V2, RegNet-Y,
ResNeXt, ConvNeXt, ViT, MobileNet-V3, Inception-V3, GPT-2, SqueezeNet, DeepLabV3's
ASPP head, a Whisper-style encoder, a GPT-2 decode step with a KV cache, generated
with random weights) build with ``xrelay.build`` at opt_level 3 and at the default level, on one
and two threads, and match ``onnx.reference`` within rtol 1e-3, atol 1e-4 (the zoo's
tolerance). They are built at a reduced spatial scale: the block structure, channel
counts, groups and attention shapes are those of the published networks."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np
import pytest
from onnx.reference import ReferenceEvaluator

import xrelay
from xrelay.frontend import from_onnx
from xrelay.pass_manager import PassContext


def _families() -> ModuleType:
    path = Path(__file__).resolve().parents[2] / "bench" / "families.py"
    spec = importlib.util.spec_from_file_location("xrelay_bench_families", path)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


FAMILIES = _families()
SCALE = 0.3


@pytest.fixture(scope="module", params=sorted(FAMILIES.FAMILIES))
def family(
    request: pytest.FixtureRequest,
) -> tuple[Any, dict[str, np.ndarray], np.ndarray]:
    model, _ = FAMILIES.FAMILIES[request.param](SCALE)
    feeds = FAMILIES.random_inputs(model)
    expected = np.asarray(ReferenceEvaluator(model).run(None, feeds)[0])
    return model, feeds, expected


@pytest.mark.parametrize("level", [3, None], ids=["opt3", "default"])
def test_family_matches_reference(
    family: tuple[Any, dict[str, np.ndarray], np.ndarray], level: int | None
) -> None:
    model, feeds, expected = family
    mod, params = from_onnx(model)
    if level is None:
        lib = xrelay.build(mod, params=params)
    else:
        with PassContext(opt_level=level):
            lib = xrelay.build(mod, params=params)
    for threads in (1, 2):
        m = lib.create()
        m.set_num_threads(threads)
        for name, value in feeds.items():
            m.set_input(name, value)
        m.run()
        got = m.get_output(0)
        assert got.shape == expected.shape
        np.testing.assert_allclose(got, expected, rtol=1e-3, atol=1e-4)


def test_generated_models_have_the_families_shapes() -> None:
    """The generator keeps the published networks' awkward channel counts (the
    point of the families): ShuffleNet's 58/116/232, RegNet's 440 = 8 x 55."""
    shuffle, _ = FAMILIES.shufflenet_v2(1.0)
    splits = [n for n in shuffle.graph.node if n.op_type == "Split"]
    assert splits
    assert shuffle.graph.input[0].type.tensor_type.shape.dim[1].dim_value == 116
    regnet, _ = FAMILIES.regnet_y(1.0)
    groups = {
        a.i
        for n in regnet.graph.node
        if n.op_type == "Conv"
        for a in n.attribute
        if a.name == "group"
    }
    assert 55 in groups
