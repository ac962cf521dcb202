"""Compile an ONNX model with relay.build and run it with the graph executor: TVM's
"Compile ONNX Models" tutorial, with its imports changed (``import tvm`` ->
``import xrelay as tvm``, ``from tvm import relay`` -> ``from xrelay import relay``,
``from tvm.contrib import graph_executor`` -> ``from xrelay.contrib import
graph_executor``). Nothing else differs.

    python examples/compile_onnx.py [MODEL.onnx]

Without a model it writes a small convolutional network to a temporary folder
first (the tutorial downloads a super-resolution model; this machine has no
network). It prints the output's shape, its first values, and the run time.
"""

import sys
import tempfile

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

import xrelay as tvm
from xrelay import relay
from xrelay.contrib import graph_executor


def small_model(path):
    """A conv + relu + global pool + gemm network on a 1x3x32x32 image."""
    rng = np.random.default_rng(0)
    w = rng.standard_normal((8, 3, 3, 3)).astype("float32") * 0.2
    fc = rng.standard_normal((10, 8)).astype("float32") * 0.2
    graph = helper.make_graph(
        [
            helper.make_node("Conv", ["input", "w"], ["c"], pads=[1, 1, 1, 1]),
            helper.make_node("Relu", ["c"], ["r"]),
            helper.make_node("GlobalAveragePool", ["r"], ["p"]),
            helper.make_node("Flatten", ["p"], ["f"]),
            helper.make_node("Gemm", ["f", "fc"], ["output"], transB=1),
        ],
        "small",
        [helper.make_tensor_value_info("input", TensorProto.FLOAT, [1, 3, 32, 32])],
        [helper.make_tensor_value_info("output", TensorProto.FLOAT, [1, 10])],
        [numpy_helper.from_array(w, "w"), numpy_helper.from_array(fc, "fc")],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    onnx.save(model, path)


def main(argv):
    if len(argv) > 1:
        model_path = argv[1]
    else:
        model_path = tempfile.mkdtemp(prefix="xrelay-example-") + "/small.onnx"
        small_model(model_path)

    onnx_model = onnx.load(model_path)
    graph_input = onnx_model.graph.input[0]
    input_name = graph_input.name
    dims = [d.dim_value or 1 for d in graph_input.type.tensor_type.shape.dim]
    x = np.random.default_rng(1).standard_normal(dims).astype("float32")

    # the tutorial's code from here on
    target = "llvm"
    shape_dict = {input_name: x.shape}
    mod, params = relay.frontend.from_onnx(onnx_model, shape_dict)

    with tvm.transform.PassContext(opt_level=3):
        lib = relay.build(mod, target=target, params=params)

    dev = tvm.cpu(0)
    dtype = "float32"
    module = graph_executor.GraphModule(lib["default"](dev))
    module.set_input(input_name, tvm.nd.array(x.astype(dtype)))
    module.run()
    tvm_output = module.get_output(0).numpy()

    timing = module.benchmark(dev, repeat=3, number=10)
    print("output shape:", tvm_output.shape)
    print("first values:", np.array2string(tvm_output.reshape(-1)[:5], precision=5))
    print(f"median run: {timing.median * 1e3:.3f} ms")
    np.save(tempfile.gettempdir() + "/xrelay-example-output.npy", tvm_output)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
