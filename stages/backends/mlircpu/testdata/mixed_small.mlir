// examples/mixed/model.mlir at a quarter of its sizes: a transposed-B
// matmul, a batch_matmul and a 3x3 convolution, each initialized by a fill.
// CpuSpecTest compiles every op kind's top candidate with it in seconds;
// the full-size model is its `long` variant.
#mA = affine_map<(m, n, k) -> (m, k)>
#mBt = affine_map<(m, n, k) -> (n, k)>
#mC = affine_map<(m, n, k) -> (m, n)>
func.func @forward(%q: tensor<128x128xf32>, %wt: tensor<128x128xf32>,
                   %a: tensor<2x32x64xf32>, %b: tensor<2x64x32xf32>,
                   %img: tensor<1x10x10x16xf32>, %filter: tensor<3x3x16x16xf32>)
    -> (tensor<128x128xf32>, tensor<2x32x32xf32>, tensor<1x8x8x16xf32>) {
  %zero = arith.constant 0.0 : f32
  %e0 = tensor.empty() : tensor<128x128xf32>
  %f0 = linalg.fill ins(%zero : f32) outs(%e0 : tensor<128x128xf32>) -> tensor<128x128xf32>
  %proj = linalg.matmul indexing_maps = [#mA, #mBt, #mC]
      ins(%q, %wt : tensor<128x128xf32>, tensor<128x128xf32>)
      outs(%f0 : tensor<128x128xf32>) -> tensor<128x128xf32>
  %e1 = tensor.empty() : tensor<2x32x32xf32>
  %f1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<2x32x32xf32>) -> tensor<2x32x32xf32>
  %bmm = linalg.batch_matmul ins(%a, %b : tensor<2x32x64xf32>, tensor<2x64x32xf32>)
      outs(%f1 : tensor<2x32x32xf32>) -> tensor<2x32x32xf32>
  %e2 = tensor.empty() : tensor<1x8x8x16xf32>
  %f2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<1x8x8x16xf32>) -> tensor<1x8x8x16xf32>
  %conv = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%img, %filter : tensor<1x10x10x16xf32>, tensor<3x3x16x16xf32>)
      outs(%f2 : tensor<1x8x8x16xf32>) -> tensor<1x8x8x16xf32>
  return %proj, %bmm, %conv : tensor<128x128xf32>, tensor<2x32x32xf32>, tensor<1x8x8x16xf32>
}
