//===- ModelRewrite.h - Rewrites of the model IREE compiles faster --------===//
//
// Changes to the model's program (not to a dispatch's config) that compute
// the same function with less work, made in the imported ONNX program
// (torch dialect) through IREE's own library (IreeIr.h). The model-level
// flag search (FlagsStage.h) builds its sets from the rewritten model and
// checks their results against the model as imported.
//
// A strided ConvTranspose: IREE (torch-mlir's lowering) computes it as a
// convolution over the input with stride - 1 zeros inserted between pixels,
// so of a 4x4 kernel at stride 2 three taps in four multiply a zero, and of
// a 2x2 kernel at stride 2 all but one. Output pixel y = s*q + r (its phase
// r) only ever meets the kernel taps t = (r + p) mod s + j*s; so each of the
// s*s phases is an ordinary convolution of the input as it is with those
// taps (flipped), and ONNX's DepthToSpace (DCR) interleaves the phases'
// channels into the output. Measured on a ViT's decoder (three 4x4 stride-2
// layers, 2 threads): 516 ms -> 220 ms for the whole model
// (docs/iree-backend.md, "Strided ConvTranspose").
//
// A convolution whose windows tile its input (stride = kernel, a ViT's patch
// embedding): with IREE's channels-last preprocessing its NCHW input stays
// in the convolution's indexing and every 16-wide vector of output channels
// gathers its C*kh*kw inputs one at a time. As a matmul of the patches it is
// data tiled like the others. Measured on a ViT-S/14's 14x14 patches (1
// thread, whole model, channels-last set): 314-366 -> 270-289 ms
// (docs/iree-backend.md, "Patch convolutions").
//
// A depthwise convolution (a mobile CNN's): IREE keeps it an NCHW generic
// whose vectors gather their inputs; as a sum over its kernel taps of
// shifted slices of the input times per-channel weights it is one
// elementwise dispatch that reads rows (rewriteDepthwiseConvolutions).
//
// Gemms that share their weights and not their inputs' dependencies are
// batched into one (batchSharedWeightGemms).
//
// A 3x3 convolution at stride 1 with a bias adds its bias after it, which
// the flag search's Winograd set needs to compute right
// (addWinogradConvolutionBiasesAfter).
//
//===----------------------------------------------------------------------===//
#ifndef RETUNE_IREE_MODELREWRITE_H
#define RETUNE_IREE_MODELREWRITE_H

#include "stages/backends/iree/IreeIr.h"

#include <string>
#include <vector>

namespace retune::iree {

/// What a rewrite did to a model: a line per op rewritten, and a line per op
/// of the kind left as it was, with why.
struct RewriteReport {
  std::vector<std::string> rewritten;
  std::vector<std::string> left;
};

/// Rewrites every 2-D `onnx.ConvTranspose` with a stride above 1 (the same
/// on both axes), group 1, no dilation, no output padding, static shapes and
/// an output a multiple of the stride into its stride phases: per phase a
/// `onnx.Conv` of the input with the phase's taps of the kernel (two
/// `onnx.Gather`s and a `onnx.Transpose` of the weights, which IREE
/// evaluates once: at compile time, or at load time for external weights),
/// the phases concatenated on channels and `onnx.DepthToSpace`. When every
/// phase has the same kernel size and padding (a 2x2 kernel at stride 2),
/// the phases' weights are concatenated instead, and one convolution
/// computes all of them. An error only when IREE refuses an op built here.
Expected<RewriteReport> rewriteStridedConvTransposes(const IreeIrModule &module);

/// Rewrites every 2-D `onnx.Conv` whose strides equal its kernel (its
/// kernel_shape, else its weights'; above one pixel) with group 1, no dilation, no padding, static shapes
/// and an input a whole number of patches into a `onnx.Gemm` of its
/// patches: the input reshaped and transposed to [N*OH*OW, C*kh*kw], the
/// weights reshaped to [F, C*kh*kw] (transB; IREE packs them once), the
/// bias added by the Gemm, the result reshaped and transposed back to NCHW.
/// Other convolutions are not of its kind and are not reported. An error
/// only when IREE refuses an op built here.
Expected<RewriteReport> rewritePatchConvolutions(const IreeIrModule &module);

/// Rewrites every depthwise 2-D `onnx.Conv` (group = its C input channels,
/// weights [C, 1, kh, kw]) at stride 1 with no dilation, static shapes and
/// at most 81 taps into a sum over its taps: the input (`onnx.Pad`ded when the
/// convolution pads) sliced at the tap's offset (torch slices),
/// `onnx.Mul` by the tap's weights as [1, C, 1, 1], `onnx.Add`ed, then the
/// bias. IREE fuses them into one elementwise dispatch that reads rows of
/// the input; its depthwise convolution in NCHW, which its channels-last
/// preprocessing leaves as it is, gathers them (measured, 1 thread: 96
/// channels 3x3 at 80x80 8.3 -> 0.56 ms; docs/iree-backend.md). Other
/// convolutions are not of its kind and are not reported. An error only
/// when IREE refuses an op built here.
Expected<RewriteReport> rewriteDepthwiseConvolutions(const IreeIrModule &module);

/// Batches `onnx.Gemm`s that multiply by the same weights (and add the same
/// bias, with the same attributes) and whose inputs do not depend on one
/// another into one Gemm over their inputs stacked on rows (`onnx.Concat`),
/// each original result a row slice of it (torch's `aten.slice.Tensor`,
/// which IREE compiles at every ONNX opset). An exported recurrent
/// network projects each time step's input by the same weights in a Gemm of
/// one row: batched, the weights are read once, not once per step (measured
/// on a CRNN's LSTM: docs/iree-backend.md). An input counts when it is
/// defined before the group's first Gemm, or by an op that only reshapes or
/// indexes values defined before it (moved up); a Gemm whose input depends
/// on the group's results (the recurrence) stays as it is.
Expected<RewriteReport> batchSharedWeightGemms(const IreeIrModule &module);

/// Rewrites every 2-D `onnx.Conv` that IREE's Winograd transform takes (a
/// 3x3 kernel at stride 1, group 1, no dilation, static shapes) and that
/// adds a bias into the convolution without it and an `onnx.Add` of the
/// bias as [1, F, 1, 1]. torch-mlir's lowering starts such a convolution
/// from its bias broadcast over the output, and IREE 3.13's transform
/// (`iree-linalg-ext-convert-conv2d-to-winograd`) drops that initial value:
/// a biased convolution through it computes without its bias (the flag
/// search's Winograd set, ModelFlags.cpp). Added after, the bias is an
/// elementwise op IREE fuses into the convolution's dispatch in every set
/// (measured: VGG16's data-tiled im2col set 527-561 -> 504-539 ms,
/// docs/iree-backend.md). An error only when IREE refuses an op built here.
Expected<RewriteReport>
addWinogradConvolutionBiasesAfter(const IreeIrModule &module);

} // namespace retune::iree

#endif // RETUNE_IREE_MODELREWRITE_H
