"""Writes the MLP of examples/mlp/model.mlir as ONNX: three MatMul + Add +
Relu layers, batch 256 (1024 -> 1024 -> 1024 -> 512), its weights inputs
like the MLIR function's arguments. The zoo tunes it as it tunes every
ONNX model; bench/iree/models.sh times onnxruntime on it.

usage: .venv/bin/python bench/iree/zoo/make_mlp.py <output.onnx>
"""
import sys

import onnx
from onnx import TensorProto, helper


def mlp() -> onnx.ModelProto:
    dims = [("x", [256, 1024]), ("w1", [1024, 1024]), ("b1", [1024]),
            ("w2", [1024, 1024]), ("b2", [1024]), ("w3", [1024, 512]),
            ("b3", [512])]
    inputs = [helper.make_tensor_value_info(n, TensorProto.FLOAT, s)
              for n, s in dims]
    nodes = []
    h = "x"
    for k in (1, 2, 3):
        nodes += [helper.make_node("MatMul", [h, f"w{k}"], [f"m{k}"]),
                  helper.make_node("Add", [f"m{k}", f"b{k}"], [f"a{k}"]),
                  helper.make_node("Relu", [f"a{k}"], [f"h{k}"])]
        h = f"h{k}"
    out = helper.make_tensor_value_info("h3", TensorProto.FLOAT, [256, 512])
    return helper.make_model(helper.make_graph(nodes, "mlp", inputs, [out]),
                             opset_imports=[helper.make_opsetid("", 17)])


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: make_mlp.py <output.onnx>")
    onnx.save(mlp(), sys.argv[1])
