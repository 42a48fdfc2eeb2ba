// A model mixing a transposed-B matmul (attention-style projection), a
// batch_matmul and a 3x3 convolution, each initialized by a fill.
#mA = affine_map<(m, n, k) -> (m, k)>
#mBt = affine_map<(m, n, k) -> (n, k)>
#mC = affine_map<(m, n, k) -> (m, n)>
func.func @forward(%q: tensor<512x512xf32>, %wt: tensor<512x512xf32>,
                   %a: tensor<8x128x256xf32>, %b: tensor<8x256x128xf32>,
                   %img: tensor<1x30x30x64xf32>, %filter: tensor<3x3x64x64xf32>)
    -> (tensor<512x512xf32>, tensor<8x128x128xf32>, tensor<1x28x28x64xf32>) {
  %zero = arith.constant 0.0 : f32
  %e0 = tensor.empty() : tensor<512x512xf32>
  %f0 = linalg.fill ins(%zero : f32) outs(%e0 : tensor<512x512xf32>) -> tensor<512x512xf32>
  %proj = linalg.matmul indexing_maps = [#mA, #mBt, #mC]
      ins(%q, %wt : tensor<512x512xf32>, tensor<512x512xf32>)
      outs(%f0 : tensor<512x512xf32>) -> tensor<512x512xf32>
  %e1 = tensor.empty() : tensor<8x128x128xf32>
  %f1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<8x128x128xf32>) -> tensor<8x128x128xf32>
  %bmm = linalg.batch_matmul ins(%a, %b : tensor<8x128x256xf32>, tensor<8x256x128xf32>)
      outs(%f1 : tensor<8x128x128xf32>) -> tensor<8x128x128xf32>
  %e2 = tensor.empty() : tensor<1x28x28x64xf32>
  %f2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<1x28x28x64xf32>) -> tensor<1x28x28x64xf32>
  %conv = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%img, %filter : tensor<1x30x30x64xf32>, tensor<3x3x64x64xf32>)
      outs(%f2 : tensor<1x28x28x64xf32>) -> tensor<1x28x28x64xf32>
  return %proj, %bmm, %conv : tensor<512x512xf32>, tensor<8x128x128xf32>, tensor<1x28x28x64xf32>
}
