//===- ModelRewrite.cpp - Rewrites of the model IREE compiles faster ------===//
#include "stages/backends/iree/ModelRewrite.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"

#include <functional>
#include <map>
#include <set>
#include <optional>
#include <variant>

using namespace llvm;

namespace retune::iree {
namespace {

/// A `!torch.vtensor<[d0,d1,...],element>` with static dims.
struct TensorShape {
  std::vector<int64_t> dims;
  std::string element;
};

std::optional<TensorShape> staticShape(StringRef type) {
  if (!type.consume_front("!torch.vtensor<[") || !type.consume_back(">"))
    return std::nullopt;
  auto [dims, element] = type.split("],");
  TensorShape shape;
  shape.element = element.str();
  SmallVector<StringRef> parts;
  dims.split(parts, ',');
  for (StringRef dim : parts) {
    int64_t value;
    if (dim.trim().getAsInteger(10, value) || value < 0)
      return std::nullopt;
    shape.dims.push_back(value);
  }
  return shape;
}

std::string joinInts(ArrayRef<int64_t> values, StringRef separator) {
  return join(map_range(values, [](int64_t v) { return std::to_string(v); }),
              separator);
}

std::string vtensor(ArrayRef<int64_t> dims, StringRef element) {
  return formatv("!torch.vtensor<[{0}],{1}>", joinInts(dims, ","), element)
      .str();
}

std::string si64(int64_t value) { return formatv("{0} : si64", value).str(); }

std::string si64Array(ArrayRef<int64_t> values) {
  return "[" + join(map_range(values, si64), ", ") + "]";
}

std::string dims(ArrayRef<int64_t> values) { return joinInts(values, "x"); }

/// Whether `op` is ONNX's `name` as iree-import-onnx writes it.
bool isOnnx(const IreeIrOp &op, StringRef name) {
  return op.name() == "torch.operator" &&
         op.stringAttr("name") == std::optional<std::string>(("onnx." + name).str());
}

/// One stride phase along one axis: output pixels s*q + r. `taps`: the
/// kernel taps it meets, in the order its convolution reads them (the
/// transposed convolution's kernel is flipped); the padding its
/// convolution needs for the phase's share of the output.
struct AxisPhase {
  std::vector<int64_t> taps;
  int64_t padBegin = 0;
  int64_t padEnd = 0;
};

/// Output y = s*i - pad + t, so phase r meets the taps t = (r + pad) mod s
/// + j*s, each at input i = q + (r + pad) div s - j.
std::optional<AxisPhase> axisPhase(int64_t r, int64_t stride, int64_t kernel,
                                   int64_t pad, int64_t in, int64_t out) {
  int64_t first = (r + pad) % stride, shift = (r + pad) / stride;
  AxisPhase phase;
  for (int64_t t = first; t < kernel; t += stride)
    phase.taps.insert(phase.taps.begin(), t);
  int64_t taps = phase.taps.size();
  phase.padBegin = taps - 1 - shift;
  phase.padEnd = out / stride - 1 + taps - in - phase.padBegin;
  if (taps == 0 || phase.padBegin < 0 || phase.padEnd < 0)
    return std::nullopt;
  return phase;
}

/// What the rewrite needs of one ConvTranspose.
/// A 2-D convolution's (or ConvTranspose's) operand and result shapes.
struct ConvShapes {
  TensorShape input, weights, output;
};

/// The shapes of `op`'s input, weights and result, when all three are
/// static and 4-D.
std::optional<ConvShapes> convShapes(const IreeIrOp &op) {
  std::optional<TensorShape> input = staticShape(op.operandType(0)),
                             weights = staticShape(op.operandType(1)),
                             output = staticShape(op.resultType(0));
  if (!input || !weights || !output || input->dims.size() != 4 ||
      weights->dims.size() != 4 || output->dims.size() != 4)
    return std::nullopt;
  return ConvShapes{*input, *weights, *output};
}

/// `op`'s ONNX attribute `name` (a list of integers), or `fallback` where
/// ONNX's default applies.
std::vector<int64_t> onnxInts(const IreeIrOp &op, StringRef name,
                              std::vector<int64_t> fallback) {
  return op.intArrayAttr(("torch.onnx." + name).str()).value_or(fallback);
}

constexpr StringLiteral kNotStatic2d = "not a 2-D convolution of static shape";

/// Rewrites every convolution `isOfKind` picks: `read` takes one as its
/// rewrite needs it (a variant of that and why it is left as it is),
/// `rewrite` replaces it, and `describe` says what it became after
/// "line N: Conv" in the report.
template <typename Read, typename Rewrite, typename Describe>
Expected<RewriteReport> rewriteEachConv(const IreeIrModule &module,
                                        bool (*isOfKind)(const IreeIrOp &),
                                        Read read, Rewrite rewrite,
                                        Describe describe) {
  std::vector<IreeIrOp> found;
  module.walk([&](IreeIrOp op, ArrayRef<IreeIrOp>) {
    if (isOfKind(op))
      found.push_back(op);
  });
  RewriteReport report;
  for (const IreeIrOp &op : found) {
    std::string where = formatv("line {0}: Conv", op.line()).str();
    auto taken = read(op);
    if (auto *why = std::get_if<std::string>(&taken)) {
      report.left.push_back(where + ": left as it is: " + *why);
      continue;
    }
    const auto &conv = std::get<0>(taken);
    if (Error err = rewrite(op, conv))
      return std::move(err);
    report.rewritten.push_back(where + " " + describe(conv));
  }
  return report;
}

struct ConvTranspose : ConvShapes {
  int64_t stride = 1;
  std::vector<int64_t> kernel, pads;
};

/// Why a 2-D convolution or ConvTranspose is not a plain one (automatic
/// padding, groups, dilation), which the rewrites leave as it is.
std::optional<std::string> unplainConv(const IreeIrOp &op) {
  if (op.stringAttr("torch.onnx.auto_pad").value_or("NOTSET") != "NOTSET")
    return std::string("it pads automatically (auto_pad)");
  if (op.hasAttr("torch.onnx.group") &&
      op.attr("torch.onnx.group") != "1 : si64")
    return std::string("it has groups");
  std::vector<int64_t> unit = {1, 1};
  if (op.intArrayAttr("torch.onnx.dilations").value_or(unit) != unit)
    return std::string("it is dilated");
  return std::nullopt;
}

/// The ConvTranspose as the rewrite takes it, or why it is left as it is.
std::variant<ConvTranspose, std::string> readConvTranspose(const IreeIrOp &op) {
  std::optional<ConvShapes> shapes = convShapes(op);
  if (!shapes)
    return kNotStatic2d.str();
  ConvTranspose ct;
  static_cast<ConvShapes &>(ct) = *shapes;
  std::vector<int64_t> strides = onnxInts(op, "strides", {1, 1});
  ct.kernel =
      onnxInts(op, "kernel_shape", {ct.weights.dims[2], ct.weights.dims[3]});
  ct.pads = onnxInts(op, "pads", {0, 0, 0, 0});
  if (op.hasAttr("torch.onnx.output_shape"))
    return std::string("it gives output_shape");
  if (std::optional<std::string> why = unplainConv(op))
    return *why;
  if (onnxInts(op, "output_padding", {0, 0}) != std::vector<int64_t>{0, 0})
    return std::string("it pads its output");
  if (strides.size() != 2 || strides[0] != strides[1] || strides[0] < 2)
    return std::string("its strides are not one stride above 1 on both axes");
  if (ct.kernel.size() != 2 || ct.pads.size() != 4 ||
      ct.kernel != std::vector<int64_t>{ct.weights.dims[2], ct.weights.dims[3]})
    return std::string("its kernel_shape or pads are not those of a 2-D kernel");
  ct.stride = strides[0];
  if (ct.output.dims[2] % ct.stride || ct.output.dims[3] % ct.stride)
    return std::string("its output is not a multiple of the stride");
  return ct;
}

/// Builds ONNX ops (`torch.operator`) before `anchor`.
class OnnxBuilder {
public:
  explicit OnnxBuilder(const IreeIrOp &anchor) : anchor(anchor) {}

  Expected<IreeIrValue>
  op(StringRef onnxName, std::vector<IreeIrValue> operands,
     std::string resultType,
     std::vector<std::pair<std::string, std::string>> attributes = {}) {
    IreeIrOpSpec spec;
    spec.name = "torch.operator";
    spec.operands = std::move(operands);
    spec.resultTypes = {std::move(resultType)};
    spec.attributes = {{"name", "\"onnx." + onnxName.str() + "\""}};
    for (auto &attribute : attributes)
      spec.attributes.push_back(
          {"torch.onnx." + attribute.first, std::move(attribute.second)});
    Expected<IreeIrOp> created = anchor.insertBefore(spec);
    if (!created)
      return created.takeError();
    return created->result(0);
  }

  /// A 1-D si64 constant, one per distinct value.
  Expected<IreeIrValue> indices(ArrayRef<int64_t> values) {
    std::vector<int64_t> key(values.begin(), values.end());
    if (auto it = constants.find(key); it != constants.end())
      return it->second;
    std::string value = formatv("dense<[{0}]> : tensor<{1}xsi64>",
                                joinInts(values, ", "), values.size())
                            .str();
    Expected<IreeIrValue> constant =
        op("Constant", {}, vtensor({int64_t(values.size())}, "si64"),
           {{"value", value}});
    if (constant)
      constants[key] = *constant;
    return constant;
  }

  /// `value` sliced along `axis` from `start` to `end` by `step`, as
  /// torch's `aten.slice.Tensor`: IREE 3.13 lowers ONNX's Slice (starts and
  /// ends as inputs) only in a model of opset 13 or later, and an opset-12
  /// model's Slice fails to compile; this one compiles at every opset.
  Expected<IreeIrValue> slice(IreeIrValue value, int64_t axis, int64_t start,
                              int64_t end, int64_t step,
                              std::string resultType) {
    std::vector<IreeIrValue> operands = {value};
    for (int64_t v : {axis, start, end, step}) {
      Expected<IreeIrValue> constant = torchInt(v);
      if (!constant)
        return constant.takeError();
      operands.push_back(*constant);
    }
    IreeIrOpSpec spec;
    spec.name = "torch.aten.slice.Tensor";
    spec.operands = std::move(operands);
    spec.resultTypes = {std::move(resultType)};
    Expected<IreeIrOp> created = anchor.insertBefore(spec);
    if (!created)
      return created.takeError();
    return created->result(0);
  }

private:
  /// A `!torch.int` constant, one per distinct value.
  Expected<IreeIrValue> torchInt(int64_t value) {
    if (auto it = ints.find(value); it != ints.end())
      return it->second;
    IreeIrOpSpec spec;
    spec.name = "torch.constant.int";
    spec.resultTypes = {"!torch.int"};
    spec.attributes = {{"value", formatv("{0} : i64", value).str()}};
    Expected<IreeIrOp> created = anchor.insertBefore(spec);
    if (!created)
      return created.takeError();
    return ints[value] = created->result(0);
  }

  const IreeIrOp &anchor;
  std::map<std::vector<int64_t>, IreeIrValue> constants;
  std::map<int64_t, IreeIrValue> ints;
};

/// `value` (NCHW, of `resultType`) plus a convolution's bias [C]: the bias
/// reshaped to [1, C, 1, 1] and an `onnx.Add`.
Expected<IreeIrValue> addChannelBias(OnnxBuilder &b, IreeIrValue value,
                                     IreeIrValue bias, int64_t channels,
                                     StringRef biasElement,
                                     std::string resultType) {
  Expected<IreeIrValue> perChannel = b.indices({1, channels, 1, 1});
  if (!perChannel)
    return perChannel.takeError();
  Expected<IreeIrValue> reshaped =
      b.op("Reshape", {bias, *perChannel},
           vtensor({1, channels, 1, 1}, biasElement));
  if (!reshaped)
    return reshaped.takeError();
  return b.op("Add", {value, *reshaped}, std::move(resultType));
}

/// The kernel of one phase: the weights [Cin, Cout, kh, kw] at the phase's
/// taps, as a convolution's [Cout, Cin, kh', kw'].
Expected<IreeIrValue> phaseKernel(OnnxBuilder &b, const ConvTranspose &ct,
                                  IreeIrValue weights, const AxisPhase &h,
                                  const AxisPhase &w) {
  int64_t cin = ct.weights.dims[0], cout = ct.weights.dims[1];
  int64_t kh = h.taps.size(), kw = w.taps.size();
  const std::string &e = ct.weights.element;
  Expected<IreeIrValue> rows = b.indices(h.taps);
  if (!rows)
    return rows.takeError();
  Expected<IreeIrValue> byRow =
      b.op("Gather", {weights, *rows}, vtensor({cin, cout, kh, ct.kernel[1]}, e),
           {{"axis", si64(2)}});
  if (!byRow)
    return byRow.takeError();
  Expected<IreeIrValue> cols = b.indices(w.taps);
  if (!cols)
    return cols.takeError();
  Expected<IreeIrValue> taps = b.op("Gather", {*byRow, *cols},
                                    vtensor({cin, cout, kh, kw}, e),
                                    {{"axis", si64(3)}});
  if (!taps)
    return taps.takeError();
  return b.op("Transpose", {*taps}, vtensor({cout, cin, kh, kw}, e),
              {{"perm", si64Array({1, 0, 2, 3})}});
}

/// A stride-1 convolution of the input with `kernel` for phases of the
/// padding of `h` and `w`.
Expected<IreeIrValue> phaseConv(OnnxBuilder &b, const ConvTranspose &ct,
                                std::vector<IreeIrValue> operands,
                                int64_t channels, const AxisPhase &h,
                                const AxisPhase &w) {
  int64_t s = ct.stride;
  return b.op("Conv", std::move(operands),
              vtensor({ct.output.dims[0], channels, ct.output.dims[2] / s,
                       ct.output.dims[3] / s},
                      ct.output.element),
              {{"dilations", si64Array({1, 1})},
               {"group", si64(1)},
               {"kernel_shape", si64Array({int64_t(h.taps.size()),
                                           int64_t(w.taps.size())})},
               {"pads", si64Array({h.padBegin, w.padBegin, h.padEnd, w.padEnd})},
               {"strides", si64Array({1, 1})}});
}

/// One convolution computes every phase when their kernels have one size
/// and padding: the phases' kernels stacked on output channels, the bias
/// repeated.
Expected<IreeIrValue> stackedConv(OnnxBuilder &b, const ConvTranspose &ct,
                                  IreeIrValue input,
                                  std::vector<IreeIrValue> kernels,
                                  std::optional<IreeIrValue> bias,
                                  const AxisPhase &h, const AxisPhase &w) {
  int64_t phases = kernels.size(), cout = ct.output.dims[1];
  Expected<IreeIrValue> stacked =
      b.op("Concat", std::move(kernels),
           vtensor({phases * cout, ct.weights.dims[0], int64_t(h.taps.size()),
                    int64_t(w.taps.size())},
                   ct.weights.element),
           {{"axis", si64(0)}});
  if (!stacked)
    return stacked.takeError();
  std::vector<IreeIrValue> operands = {input, *stacked};
  if (bias) {
    Expected<IreeIrValue> biases =
        b.op("Concat", std::vector<IreeIrValue>(phases, *bias),
             vtensor({phases * cout}, ct.output.element), {{"axis", si64(0)}});
    if (!biases)
      return biases.takeError();
    operands.push_back(*biases);
  }
  return phaseConv(b, ct, std::move(operands), phases * cout, h, w);
}

bool samePhase(const AxisPhase &a, const AxisPhase &b) {
  return a.taps.size() == b.taps.size() && a.padBegin == b.padBegin &&
         a.padEnd == b.padEnd;
}

/// Replaces `op` by its phases; false (nothing changed) when a phase meets
/// no tap or would need negative padding.
Expected<bool> rewritePhases(const IreeIrOp &op, const ConvTranspose &ct) {
  int64_t s = ct.stride, cout = ct.output.dims[1];
  std::vector<AxisPhase> rows, cols;
  for (int64_t r = 0; r < s; ++r) {
    std::optional<AxisPhase> h = axisPhase(r, s, ct.kernel[0], ct.pads[0],
                                           ct.input.dims[2], ct.output.dims[2]);
    std::optional<AxisPhase> w = axisPhase(r, s, ct.kernel[1], ct.pads[1],
                                           ct.input.dims[3], ct.output.dims[3]);
    if (!h || !w)
      return false;
    rows.push_back(*h);
    cols.push_back(*w);
  }
  bool uniform =
      all_of(rows, [&](const AxisPhase &p) { return samePhase(p, rows[0]); }) &&
      all_of(cols, [&](const AxisPhase &p) { return samePhase(p, cols[0]); });
  OnnxBuilder b(op);
  IreeIrValue input = op.operand(0), weights = op.operand(1);
  std::optional<IreeIrValue> bias;
  if (op.numOperands() > 2)
    bias = op.operand(2);
  // Phases in DepthToSpace's DCR order: channel block rh * s + rw.
  std::vector<IreeIrValue> parts;
  for (const AxisPhase &h : rows)
    for (const AxisPhase &w : cols) {
      Expected<IreeIrValue> kernel = phaseKernel(b, ct, weights, h, w);
      if (!kernel)
        return kernel.takeError();
      if (uniform) {
        parts.push_back(*kernel);
        continue;
      }
      std::vector<IreeIrValue> operands = {input, *kernel};
      if (bias)
        operands.push_back(*bias);
      Expected<IreeIrValue> conv = phaseConv(b, ct, operands, cout, h, w);
      if (!conv)
        return conv.takeError();
      parts.push_back(*conv);
    }
  int64_t phases = s * s;
  Expected<IreeIrValue> stacked =
      uniform ? stackedConv(b, ct, input, parts, bias, rows[0], cols[0])
              : b.op("Concat", parts,
                     vtensor({ct.output.dims[0], phases * cout,
                              ct.output.dims[2] / s, ct.output.dims[3] / s},
                             ct.output.element),
                     {{"axis", si64(1)}});
  if (!stacked)
    return stacked.takeError();
  Expected<IreeIrValue> interleaved =
      b.op("DepthToSpace", {*stacked}, op.resultType(0),
           {{"blocksize", si64(s)}, {"mode", "\"DCR\""}});
  if (!interleaved)
    return interleaved.takeError();
  op.replaceUsesOfResult(0, *interleaved);
  op.erase();
  return true;
}

} // namespace

Expected<RewriteReport> rewriteStridedConvTransposes(const IreeIrModule &module) {
  std::vector<IreeIrOp> found;
  module.walk([&](IreeIrOp op, ArrayRef<IreeIrOp>) {
    if (isOnnx(op, "ConvTranspose"))
      found.push_back(op);
  });
  RewriteReport report;
  for (const IreeIrOp &op : found) {
    std::string where = formatv("line {0}: ConvTranspose", op.line()).str();
    std::variant<ConvTranspose, std::string> read = readConvTranspose(op);
    if (auto *why = std::get_if<std::string>(&read)) {
      report.left.push_back(where + ": left as it is: " + *why);
      continue;
    }
    const ConvTranspose &ct = std::get<ConvTranspose>(read);
    std::string what =
        formatv("{0} {1} -> {2}, kernel {3}, stride {4}", where,
                dims(ct.input.dims), dims(ct.output.dims), dims(ct.kernel),
                ct.stride)
            .str();
    Expected<bool> rewritten = rewritePhases(op, ct);
    if (!rewritten)
      return rewritten.takeError();
    if (*rewritten)
      report.rewritten.push_back(
          what + formatv(": {0} phase convolutions and DepthToSpace",
                         ct.stride * ct.stride)
                     .str());
    else
      report.left.push_back(what + ": left as it is: a phase meets no tap of "
                                   "the kernel");
  }
  return report;
}

namespace {

/// What the patch rewrite needs of one convolution.
struct PatchConv : ConvShapes {
  std::vector<int64_t> kernel;
};

/// A 2-D convolution's kernel: its kernel_shape, which ONNX makes
/// optional, else its weights' [F, C, kh, kw]; none when neither says.
std::optional<std::vector<int64_t>> kernelOf(const IreeIrOp &op) {
  if (std::optional<std::vector<int64_t>> kernel =
          op.intArrayAttr("torch.onnx.kernel_shape"))
    return kernel;
  std::optional<TensorShape> weights = staticShape(op.operandType(1));
  if (!weights || weights->dims.size() != 4)
    return std::nullopt;
  return std::vector<int64_t>{weights->dims[2], weights->dims[3]};
}

/// Whether `op` is a convolution whose windows tile its input (strides =
/// kernel, above one pixel): a ViT's patch embedding, a ConvNeXt's or
/// Swin's stem. Other convolutions are not of the patch rewrite's kind.
bool tilesItsInput(const IreeIrOp &op) {
  if (!isOnnx(op, "Conv") || op.numOperands() < 2)
    return false;
  std::optional<std::vector<int64_t>> kernel = kernelOf(op);
  std::optional<std::vector<int64_t>> strides =
      op.intArrayAttr("torch.onnx.strides");
  return kernel && strides && kernel == strides && kernel->size() == 2 &&
         (*kernel)[0] * (*kernel)[1] >= 2;
}

/// The convolution (one that tiles its input) as the patch rewrite takes
/// it, or why it is left as it is.
std::variant<PatchConv, std::string> readPatchConv(const IreeIrOp &op) {
  std::optional<ConvShapes> shapes = convShapes(op);
  if (!shapes)
    return kNotStatic2d.str();
  PatchConv pc;
  static_cast<ConvShapes &>(pc) = *shapes;
  pc.kernel = *kernelOf(op);
  if (std::optional<std::string> why = unplainConv(op))
    return *why;
  if (op.intArrayAttr("torch.onnx.pads").value_or(std::vector<int64_t>(4, 0)) !=
      std::vector<int64_t>(4, 0))
    return std::string("it pads its input");
  if (pc.kernel != std::vector<int64_t>{pc.weights.dims[2], pc.weights.dims[3]})
    return std::string("its kernel_shape is not its weights'");
  if (pc.input.dims[2] != pc.output.dims[2] * pc.kernel[0] ||
      pc.input.dims[3] != pc.output.dims[3] * pc.kernel[1])
    return std::string("its input is not a whole number of patches");
  return pc;
}

/// Replaces `op` by a matmul of its input's patches: the input reshaped
/// and transposed to one row of C*kh*kw values per output pixel, a Gemm
/// by the weights as [F, C*kh*kw] (transB) with the bias, and the result
/// back to NCHW.
Error rewritePatches(const IreeIrOp &op, const PatchConv &pc) {
  int64_t n = pc.input.dims[0], c = pc.input.dims[1];
  int64_t oh = pc.output.dims[2], ow = pc.output.dims[3], f = pc.output.dims[1];
  int64_t kh = pc.kernel[0], kw = pc.kernel[1];
  const std::string &e = pc.input.element;
  OnnxBuilder b(op);
  auto reshape = [&](IreeIrValue value, ArrayRef<int64_t> to,
                     StringRef element) -> Expected<IreeIrValue> {
    Expected<IreeIrValue> shape = b.indices(to);
    if (!shape)
      return shape.takeError();
    return b.op("Reshape", {value, *shape}, vtensor(to, element));
  };
  auto transpose = [&](IreeIrValue value, ArrayRef<int64_t> to,
                       ArrayRef<int64_t> perm) {
    return b.op("Transpose", {value}, vtensor(to, e),
                {{"perm", si64Array(perm)}});
  };
  Expected<IreeIrValue> split =
      reshape(op.operand(0), {n, c, oh, kh, ow, kw}, e);
  if (!split)
    return split.takeError();
  Expected<IreeIrValue> patches =
      transpose(*split, {n, oh, ow, c, kh, kw}, {0, 2, 4, 1, 3, 5});
  if (!patches)
    return patches.takeError();
  Expected<IreeIrValue> rows = reshape(*patches, {n * oh * ow, c * kh * kw}, e);
  if (!rows)
    return rows.takeError();
  Expected<IreeIrValue> kernel =
      reshape(op.operand(1), {f, c * kh * kw}, pc.weights.element);
  if (!kernel)
    return kernel.takeError();
  std::vector<IreeIrValue> operands = {*rows, *kernel};
  if (op.numOperands() > 2)
    operands.push_back(op.operand(2));
  Expected<IreeIrValue> product =
      b.op("Gemm", operands, vtensor({n * oh * ow, f}, pc.output.element),
           {{"transB", si64(1)}});
  if (!product)
    return product.takeError();
  Expected<IreeIrValue> pixels =
      reshape(*product, {n, oh, ow, f}, pc.output.element);
  if (!pixels)
    return pixels.takeError();
  Expected<IreeIrValue> nchw =
      b.op("Transpose", {*pixels}, op.resultType(0),
           {{"perm", si64Array({0, 3, 1, 2})}});
  if (!nchw)
    return nchw.takeError();
  op.replaceUsesOfResult(0, *nchw);
  op.erase();
  return Error::success();
}

} // namespace

Expected<RewriteReport> rewritePatchConvolutions(const IreeIrModule &module) {
  return rewriteEachConv(
      module, tilesItsInput, readPatchConv, rewritePatches,
      [](const PatchConv &pc) {
        return formatv("{0} -> {1}, kernel = stride {2}: a Gemm of {3}x{4} "
                       "patches by {5}x{4}",
                       dims(pc.input.dims), dims(pc.output.dims),
                       dims(pc.kernel),
                       pc.output.dims[0] * pc.output.dims[2] * pc.output.dims[3],
                       pc.input.dims[1] * pc.kernel[0] * pc.kernel[1],
                       pc.output.dims[1])
            .str();
      });
}

namespace {

/// What the depthwise rewrite needs of one convolution.
struct DepthwiseConv : ConvShapes {
  std::vector<int64_t> kernel, strides, pads;
};

/// The most taps a depthwise convolution is rewritten with (a 9x9 kernel):
/// each is an op of the model, and all of them one dispatch's operands.
constexpr int64_t kMaxDepthwiseTaps = 81;

/// Whether `op` is a depthwise convolution: one group per input channel,
/// each with one filter (weights [C, 1, kh, kw]). Others are not of the
/// depthwise rewrite's kind.
bool isDepthwise(const IreeIrOp &op) {
  if (!isOnnx(op, "Conv") || op.numOperands() < 2 ||
      !op.hasAttr("torch.onnx.group"))
    return false;
  std::optional<ConvShapes> shapes = convShapes(op);
  return shapes && shapes->input.dims[1] > 1 &&
         op.attr("torch.onnx.group") == si64(shapes->input.dims[1]) &&
         shapes->weights.dims[0] == shapes->input.dims[1] &&
         shapes->weights.dims[1] == 1;
}

/// The depthwise convolution as the rewrite takes it, or why it is left as
/// it is.
std::variant<DepthwiseConv, std::string> readDepthwiseConv(const IreeIrOp &op) {
  DepthwiseConv dc;
  static_cast<ConvShapes &>(dc) = *convShapes(op);
  dc.kernel =
      onnxInts(op, "kernel_shape", {dc.weights.dims[2], dc.weights.dims[3]});
  dc.strides = onnxInts(op, "strides", {1, 1});
  dc.pads = onnxInts(op, "pads", {0, 0, 0, 0});
  if (op.stringAttr("torch.onnx.auto_pad").value_or("NOTSET") != "NOTSET")
    return std::string("it pads automatically (auto_pad)");
  if (onnxInts(op, "dilations", {1, 1}) != std::vector<int64_t>{1, 1})
    return std::string("it is dilated");
  if (dc.kernel != std::vector<int64_t>{dc.weights.dims[2], dc.weights.dims[3]} ||
      dc.strides.size() != 2 || dc.pads.size() != 4 ||
      llvm::any_of(dc.strides, [](int64_t s) { return s < 1; }) ||
      llvm::any_of(dc.pads, [](int64_t p) { return p < 0; }))
    return std::string("its kernel_shape, strides or pads are not those of a "
                       "2-D kernel");
  // Measured: at stride 2 the taps step over every other column, and the
  // channels-last set of the PP-OCRv4 detector ran no faster with them.
  if (dc.strides != std::vector<int64_t>{1, 1})
    return std::string("it is strided: its taps would step over columns");
  if (dc.kernel[0] * dc.kernel[1] > kMaxDepthwiseTaps)
    return formatv("its kernel has {0} taps, above {1}",
                   dc.kernel[0] * dc.kernel[1], kMaxDepthwiseTaps)
        .str();
  for (int axis : {0, 1}) {
    int64_t padded = dc.input.dims[2 + axis] + dc.pads[axis] + dc.pads[2 + axis];
    if (dc.output.dims[2 + axis] !=
        (padded - dc.kernel[axis]) / dc.strides[axis] + 1)
      return std::string("its output size is not its input's through the "
                         "kernel, strides and pads");
  }
  return dc;
}

/// Replaces `op` by a sum over its kernel taps: the (padded) input sliced
/// at the tap's offset with the convolution's strides, times the tap's
/// weight per channel ([1, C, 1, 1], a slice of the weights that IREE
/// evaluates once), plus the bias. Every op of it is elementwise or an
/// index, so IREE fuses them into one dispatch that reads the input in
/// rows, where its depthwise convolution gathers (docs/iree-backend.md).
Error rewriteDepthwise(const IreeIrOp &op, const DepthwiseConv &dc) {
  int64_t n = dc.input.dims[0], c = dc.input.dims[1];
  int64_t oh = dc.output.dims[2], ow = dc.output.dims[3];
  const std::string &e = dc.input.element, &we = dc.weights.element;
  OnnxBuilder b(op);
  IreeIrValue input = op.operand(0);
  if (llvm::any_of(dc.pads, [](int64_t p) { return p > 0; })) {
    Expected<IreeIrValue> pads = b.indices(
        {0, 0, dc.pads[0], dc.pads[1], 0, 0, dc.pads[2], dc.pads[3]});
    if (!pads)
      return pads.takeError();
    Expected<IreeIrValue> paddedInput =
        b.op("Pad", {input, *pads},
             vtensor({n, c, dc.input.dims[2] + dc.pads[0] + dc.pads[2],
                      dc.input.dims[3] + dc.pads[1] + dc.pads[3]},
                     e),
             {{"mode", "\"constant\""}});
    if (!paddedInput)
      return paddedInput.takeError();
    input = *paddedInput;
  }
  // A window of `value` [a, b, h, w]: rows from `row` by `rowStep`, then
  // columns, `size` of each.
  auto window = [&](IreeIrValue value, ArrayRef<int64_t> shape, int64_t row,
                    int64_t col, ArrayRef<int64_t> size, ArrayRef<int64_t> step,
                    StringRef element) -> Expected<IreeIrValue> {
    Expected<IreeIrValue> rows = b.slice(
        value, 2, row, row + step[0] * (size[0] - 1) + 1, step[0],
        vtensor({shape[0], shape[1], size[0], shape[3]}, element));
    if (!rows)
      return rows.takeError();
    return b.slice(*rows, 3, col, col + step[1] * (size[1] - 1) + 1, step[1],
                   vtensor({shape[0], shape[1], size[0], size[1]}, element));
  };
  std::vector<int64_t> padded = {n, c, dc.input.dims[2] + dc.pads[0] + dc.pads[2],
                                 dc.input.dims[3] + dc.pads[1] + dc.pads[3]};
  Expected<IreeIrValue> perChannel = b.indices({1, c, 1, 1});
  if (!perChannel)
    return perChannel.takeError();
  std::optional<IreeIrValue> sum;
  int64_t sh = dc.strides[0], sw = dc.strides[1];
  for (int64_t i = 0; i < dc.kernel[0]; ++i)
    for (int64_t j = 0; j < dc.kernel[1]; ++j) {
      Expected<IreeIrValue> shifted =
          window(input, padded, i, j, {oh, ow}, {sh, sw}, e);
      Expected<IreeIrValue> tap =
          window(op.operand(1), dc.weights.dims, i, j, {1, 1}, {1, 1}, we);
      if (!shifted || !tap)
        return joinErrors(shifted.takeError(), tap.takeError());
      Expected<IreeIrValue> weight =
          b.op("Reshape", {*tap, *perChannel}, vtensor({1, c, 1, 1}, we));
      if (!weight)
        return weight.takeError();
      Expected<IreeIrValue> product =
          b.op("Mul", {*shifted, *weight}, vtensor({n, c, oh, ow}, e));
      if (!product)
        return product.takeError();
      if (!sum) {
        sum = *product;
        continue;
      }
      Expected<IreeIrValue> added =
          b.op("Add", {*sum, *product}, vtensor({n, c, oh, ow}, e));
      if (!added)
        return added.takeError();
      sum = *added;
    }
  if (op.numOperands() > 2) {
    Expected<IreeIrValue> biased = addChannelBias(
        b, *sum, op.operand(2), c, we, vtensor({n, c, oh, ow}, e));
    if (!biased)
      return biased.takeError();
    sum = *biased;
  }
  op.replaceUsesOfResult(0, *sum);
  op.erase();
  return Error::success();
}

} // namespace

Expected<RewriteReport> rewriteDepthwiseConvolutions(const IreeIrModule &module) {
  return rewriteEachConv(
      module, isDepthwise, readDepthwiseConv, rewriteDepthwise,
      [](const DepthwiseConv &dc) {
        return formatv("{0} -> {1}, depthwise {2} at stride {3}: {4} shifted "
                       "multiply-adds",
                       dims(dc.input.dims), dims(dc.output.dims),
                       dims(dc.kernel), dims(dc.strides),
                       dc.kernel[0] * dc.kernel[1])
            .str();
      });
}

namespace {

/// Whether `op` is a 2-D convolution IREE's Winograd transform takes (a
/// 3x3 kernel at stride 1, one group) and adds a bias. Others are not of
/// the bias rewrite's kind.
bool isBiasedWinogradConv(const IreeIrOp &op) {
  if (!isOnnx(op, "Conv") || op.numOperands() < 3 ||
      !StringRef(op.operandType(2)).starts_with("!torch.vtensor<"))
    return false;
  if (op.hasAttr("torch.onnx.group") && op.attr("torch.onnx.group") != si64(1))
    return false;
  std::optional<std::vector<int64_t>> kernel = kernelOf(op);
  return kernel && *kernel == std::vector<int64_t>{3, 3} &&
         onnxInts(op, "strides", {1, 1}) == std::vector<int64_t>{1, 1};
}

/// The convolution as the bias rewrite takes it, or why it is left as it is.
std::variant<ConvShapes, std::string> readBiasedConv(const IreeIrOp &op) {
  std::optional<ConvShapes> shapes = convShapes(op);
  if (!shapes)
    return kNotStatic2d.str();
  if (std::optional<std::string> why = unplainConv(op))
    return *why;
  return *shapes;
}

/// Replaces `op` by the convolution without its bias and an `onnx.Add` of
/// the bias as [1, F, 1, 1].
Error addBiasAfter(const IreeIrOp &op, const ConvShapes &bc) {
  OnnxBuilder b(op);
  std::vector<std::pair<std::string, std::string>> attributes;
  for (StringRef name : {"auto_pad", "dilations", "group", "kernel_shape",
                         "pads", "strides"})
    if (std::string value = op.attr(("torch.onnx." + name).str());
        !value.empty())
      attributes.push_back({name.str(), value});
  Expected<IreeIrValue> unbiased = b.op("Conv", {op.operand(0), op.operand(1)},
                                        op.resultType(0), attributes);
  if (!unbiased)
    return unbiased.takeError();
  Expected<IreeIrValue> biased =
      addChannelBias(b, *unbiased, op.operand(2), bc.output.dims[1],
                     bc.weights.element, op.resultType(0));
  if (!biased)
    return biased.takeError();
  op.replaceUsesOfResult(0, *biased);
  op.erase();
  return Error::success();
}

} // namespace

Expected<RewriteReport>
addWinogradConvolutionBiasesAfter(const IreeIrModule &module) {
  return rewriteEachConv(
      module, isBiasedWinogradConv, readBiasedConv, addBiasAfter,
      [](const ConvShapes &bc) {
        return formatv("{0} -> {1}, 3x3 at stride 1 with a bias: the bias "
                       "added after it",
                       dims(bc.input.dims), dims(bc.output.dims))
            .str();
      });
}

namespace {

/// Ops that only index or reshape their operands: moving one up, before
/// ops it does not read, changes nothing it computes.
bool onlyIndexes(const IreeIrOp &op) {
  for (StringRef name : {"Gather", "Slice", "Squeeze", "Unsqueeze", "Reshape",
                         "Flatten", "Constant"})
    if (isOnnx(op, name))
      return true;
  return false;
}

/// How many index or reshape ops deep a batched Gemm's input may be made
/// after the group's first Gemm (they move up).
constexpr unsigned kIndexDepth = 4;

/// A group's key: Gemms with the same weights, bias, attributes and input
/// type compute the same function of their input.
std::string gemmKey(const IreeIrOp &gemm) {
  std::string key = formatv("{0}/{1}/{2}", gemm.operand(1).value,
                            gemm.numOperands() > 2 ? gemm.operand(2).value
                                                   : nullptr,
                            gemm.operandType(0))
                        .str();
  for (StringRef attr : {"torch.onnx.alpha", "torch.onnx.beta",
                         "torch.onnx.transA", "torch.onnx.transB"})
    key += "/" + gemm.attr(attr);
  return key;
}

/// The Gemms of one function body (`ops`, in order) by group, groups in
/// the order of their first Gemm: positions in `ops`.
std::vector<std::vector<size_t>> gemmGroups(ArrayRef<IreeIrOp> ops) {
  std::map<std::string, size_t> groupOf;
  std::vector<std::vector<size_t>> groups;
  for (auto [i, op] : enumerate(ops)) {
    if (!isOnnx(op, "Gemm") || op.numOperands() < 2 || op.numResults() != 1 ||
        op.attr("torch.onnx.transA") == "1 : si64")
      continue;
    std::optional<TensorShape> a = staticShape(op.operandType(0));
    if (!a || a->dims.size() != 2 || !staticShape(op.resultType(0)))
      continue;
    auto [it, isNew] = groupOf.try_emplace(gemmKey(op), groups.size());
    if (isNew)
      groups.emplace_back();
    groups[it->second].push_back(i);
  }
  return groups;
}

/// The members of a group whose input is ready at its first member, and
/// the ops to move up for that, operands first.
struct ReadyMembers {
  std::vector<size_t> members;
  std::vector<IreeIrOp> toMove;
};

/// A value is ready at the first member when it is defined before it, or
/// by an index or reshape op (a constant among them) whose operands are
/// ready, up to kIndexDepth ops deep.
ReadyMembers readyMembers(ArrayRef<IreeIrOp> ops,
                          const std::map<const void *, size_t> &position,
                          ArrayRef<size_t> group) {
  size_t first = group.front();
  const IreeIrOp &anchor = ops[first];
  std::function<bool(IreeIrValue, unsigned, std::vector<IreeIrOp> &)> ready =
      [&](IreeIrValue value, unsigned depth, std::vector<IreeIrOp> &moves) {
        std::optional<IreeIrOp> def = anchor.definingOp(value);
        if (!def)
          return true;
        auto at = position.find(def->id());
        if (at == position.end())
          return false;
        if (at->second < first)
          return true;
        if (depth == 0 || !onlyIndexes(*def) || def->numResults() != 1)
          return false;
        for (unsigned k = 0; k < def->numOperands(); ++k)
          if (!ready(def->operand(k), depth - 1, moves))
            return false;
        moves.push_back(*def);
        return true;
      };
  ReadyMembers result;
  std::set<const void *> moving;
  for (size_t m : group) {
    std::vector<IreeIrOp> moves;
    if (!ready(ops[m].operand(0), kIndexDepth, moves))
      continue;
    result.members.push_back(m);
    for (const IreeIrOp &op : moves)
      if (moving.insert(op.id()).second)
        result.toMove.push_back(op);
  }
  return result;
}

/// Replaces the Gemms `batched` (at least two, the first first) by one
/// Gemm of their inputs stacked on rows and a row slice of it for each.
Error batchGemms(ArrayRef<IreeIrOp> ops, ArrayRef<size_t> batched) {
  const IreeIrOp &anchor = ops[batched.front()];
  TensorShape a = *staticShape(anchor.operandType(0));
  TensorShape out = *staticShape(anchor.resultType(0));
  int64_t n = batched.size(), rows = a.dims[0];
  OnnxBuilder b(anchor);
  std::vector<IreeIrValue> inputs;
  for (size_t m : batched)
    inputs.push_back(ops[m].operand(0));
  Expected<IreeIrValue> stacked =
      b.op("Concat", inputs, vtensor({n * rows, a.dims[1]}, a.element),
           {{"axis", si64(0)}});
  if (!stacked)
    return stacked.takeError();
  std::vector<IreeIrValue> operands = {*stacked, anchor.operand(1)};
  if (anchor.numOperands() > 2)
    operands.push_back(anchor.operand(2));
  std::vector<std::pair<std::string, std::string>> attributes;
  for (StringRef attr : {"alpha", "beta", "transB"})
    if (anchor.hasAttr(("torch.onnx." + attr).str()))
      attributes.push_back(
          {attr.str(), anchor.attr(("torch.onnx." + attr).str())});
  Expected<IreeIrValue> product =
      b.op("Gemm", operands, vtensor({n * rows, out.dims[1]}, out.element),
           attributes);
  if (!product)
    return product.takeError();
  for (auto [k, m] : enumerate(batched)) {
    Expected<IreeIrValue> row =
        b.slice(*product, 0, int64_t(k) * rows, int64_t(k + 1) * rows, 1,
                ops[m].resultType(0));
    if (!row)
      return row.takeError();
    ops[m].replaceUsesOfResult(0, *row);
  }
  return Error::success();
}

} // namespace

Expected<RewriteReport> batchSharedWeightGemms(const IreeIrModule &module) {
  RewriteReport report;
  std::vector<IreeIrOp> functions;
  module.walk([&](IreeIrOp op, ArrayRef<IreeIrOp>) {
    if (op.name() == "func.func")
      functions.push_back(op);
  });
  for (const IreeIrOp &function : functions) {
    std::vector<IreeIrOp> ops = function.children();
    std::map<const void *, size_t> position;
    for (auto [i, op] : enumerate(ops))
      position[op.id()] = i;
    for (const std::vector<size_t> &group : gemmGroups(ops)) {
      if (group.size() < 2)
        continue;
      ReadyMembers ready = readyMembers(ops, position, group);
      if (ready.members.size() < 2)
        continue;
      const IreeIrOp &anchor = ops[ready.members.front()];
      for (const IreeIrOp &op : ready.toMove)
        op.moveBefore(anchor);
      if (Error err = batchGemms(ops, ready.members))
        return std::move(err);
      TensorShape a = *staticShape(anchor.operandType(0));
      int64_t n = ready.members.size();
      report.rewritten.push_back(
          formatv("line {0}: {1} Gemms of {2}x{3} by the same {4} weights: one "
                  "Gemm of {5}x{3}",
                  anchor.line(), n, a.dims[0], a.dims[1],
                  dims(staticShape(anchor.operandType(1))
                           .value_or(TensorShape{})
                           .dims),
                  n * a.dims[0])
              .str());
      if (group.size() > ready.members.size())
        report.left.push_back(
            formatv("line {0}: {1} Gemm(s) by the same weights left as they "
                    "are: their inputs are not ready before the first",
                    anchor.line(), group.size() - ready.members.size())
                .str());
      for (size_t m : ready.members)
        ops[m].erase();
    }
  }
  return report;
}

} // namespace retune::iree
