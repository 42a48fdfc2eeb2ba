// A transformer-style block, f32, sequence 256, model width 512, 8 heads of
// 64, feed-forward width 1024:
//   q, k, v = x·Wqᵀ, x·Wkᵀ, x·Wvᵀ          (linear layers, transposed weights)
//   scores  = q_h · k_hᵀ per head          (batch matmul, transposed B)
//   ctx     = scores_h · v_h per head      (batch matmul)
//   h       = x + ctx                      (residual)
//   y       = (relu(h·Wg) * (h·Wu)) · Wd   (gated feed-forward, ReGLU)
// The softmax between the two batch matmuls is left out: it would time
// libm's scalar expf rather than the tuned code.
#nt_a = affine_map<(m, n, k) -> (m, k)>
#nt_b = affine_map<(m, n, k) -> (n, k)>
#nt_c = affine_map<(m, n, k) -> (m, n)>
#bnt_a = affine_map<(b, m, n, k) -> (b, m, k)>
#bnt_b = affine_map<(b, m, n, k) -> (b, n, k)>
#bnt_c = affine_map<(b, m, n, k) -> (b, m, n)>
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @forward(%x: tensor<256x512xf32>, %wq: tensor<512x512xf32>,
                   %wk: tensor<512x512xf32>, %wv: tensor<512x512xf32>,
                   %wg: tensor<512x1024xf32>, %wu: tensor<512x1024xf32>,
                   %wd: tensor<1024x512xf32>) -> tensor<256x512xf32> {
  %zero = arith.constant 0.0 : f32
  // QKV projections: y = x · Wᵀ, the layout of a linear layer's weights.
  %e = tensor.empty() : tensor<256x512xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<256x512xf32>) -> tensor<256x512xf32>
  %q = linalg.matmul indexing_maps = [#nt_a, #nt_b, #nt_c]
      ins(%x, %wq : tensor<256x512xf32>, tensor<512x512xf32>)
      outs(%f : tensor<256x512xf32>) -> tensor<256x512xf32>
  %k = linalg.matmul indexing_maps = [#nt_a, #nt_b, #nt_c]
      ins(%x, %wk : tensor<256x512xf32>, tensor<512x512xf32>)
      outs(%f : tensor<256x512xf32>) -> tensor<256x512xf32>
  %v = linalg.matmul indexing_maps = [#nt_a, #nt_b, #nt_c]
      ins(%x, %wv : tensor<256x512xf32>, tensor<512x512xf32>)
      outs(%f : tensor<256x512xf32>) -> tensor<256x512xf32>
  // Split heads: [256, 512] -> [8, 256, 64].
  %q3 = tensor.expand_shape %q [[0], [1, 2]] output_shape [256, 8, 64]
      : tensor<256x512xf32> into tensor<256x8x64xf32>
  %k3 = tensor.expand_shape %k [[0], [1, 2]] output_shape [256, 8, 64]
      : tensor<256x512xf32> into tensor<256x8x64xf32>
  %v3 = tensor.expand_shape %v [[0], [1, 2]] output_shape [256, 8, 64]
      : tensor<256x512xf32> into tensor<256x8x64xf32>
  %eh = tensor.empty() : tensor<8x256x64xf32>
  %qh = linalg.transpose ins(%q3 : tensor<256x8x64xf32>) outs(%eh : tensor<8x256x64xf32>) permutation = [1, 0, 2]
  %kh = linalg.transpose ins(%k3 : tensor<256x8x64xf32>) outs(%eh : tensor<8x256x64xf32>) permutation = [1, 0, 2]
  %vh = linalg.transpose ins(%v3 : tensor<256x8x64xf32>) outs(%eh : tensor<8x256x64xf32>) permutation = [1, 0, 2]
  // Attention scores and context, per head.
  %es = tensor.empty() : tensor<8x256x256xf32>
  %fs = linalg.fill ins(%zero : f32) outs(%es : tensor<8x256x256xf32>) -> tensor<8x256x256xf32>
  %scores = linalg.batch_matmul indexing_maps = [#bnt_a, #bnt_b, #bnt_c]
      ins(%qh, %kh : tensor<8x256x64xf32>, tensor<8x256x64xf32>)
      outs(%fs : tensor<8x256x256xf32>) -> tensor<8x256x256xf32>
  %fc = linalg.fill ins(%zero : f32) outs(%eh : tensor<8x256x64xf32>) -> tensor<8x256x64xf32>
  %ctx = linalg.batch_matmul ins(%scores, %vh : tensor<8x256x256xf32>, tensor<8x256x64xf32>)
      outs(%fc : tensor<8x256x64xf32>) -> tensor<8x256x64xf32>
  // Merge heads and add the residual.
  %e3 = tensor.empty() : tensor<256x8x64xf32>
  %ctxt = linalg.transpose ins(%ctx : tensor<8x256x64xf32>) outs(%e3 : tensor<256x8x64xf32>) permutation = [1, 0, 2]
  %ctx2 = tensor.collapse_shape %ctxt [[0], [1, 2]] : tensor<256x8x64xf32> into tensor<256x512xf32>
  %h = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %ctx2 : tensor<256x512xf32>, tensor<256x512xf32>) outs(%e : tensor<256x512xf32>) {
  ^bb0(%a: f32, %b: f32, %out: f32):
    %s = arith.addf %a, %b : f32
    linalg.yield %s : f32
  } -> tensor<256x512xf32>
  // Gated feed-forward.
  %ef = tensor.empty() : tensor<256x1024xf32>
  %ff = linalg.fill ins(%zero : f32) outs(%ef : tensor<256x1024xf32>) -> tensor<256x1024xf32>
  %g = linalg.matmul ins(%h, %wg : tensor<256x512xf32>, tensor<512x1024xf32>)
      outs(%ff : tensor<256x1024xf32>) -> tensor<256x1024xf32>
  %u = linalg.matmul ins(%h, %wu : tensor<256x512xf32>, tensor<512x1024xf32>)
      outs(%ff : tensor<256x1024xf32>) -> tensor<256x1024xf32>
  %a = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%g, %u : tensor<256x1024xf32>, tensor<256x1024xf32>) outs(%ef : tensor<256x1024xf32>) {
  ^bb0(%gv: f32, %uv: f32, %out: f32):
    %r = arith.maximumf %gv, %zero : f32
    %p = arith.mulf %r, %uv : f32
    linalg.yield %p : f32
  } -> tensor<256x1024xf32>
  %y = linalg.matmul ins(%a, %wd : tensor<256x1024xf32>, tensor<1024x512xf32>)
      outs(%f : tensor<256x512xf32>) -> tensor<256x512xf32>
  return %y : tensor<256x512xf32>
}
