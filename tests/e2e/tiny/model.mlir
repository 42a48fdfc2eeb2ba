// Two small matmuls with a ReLU between them: a model that tunes in seconds.
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @forward(%x: tensor<64x256xf32>, %w1: tensor<256x128xf32>,
                   %w2: tensor<128x64xf32>) -> tensor<64x64xf32> {
  %zero = arith.constant 0.0 : f32
  %e1 = tensor.empty() : tensor<64x128xf32>
  %f1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<64x128xf32>) -> tensor<64x128xf32>
  %m1 = linalg.matmul ins(%x, %w1 : tensor<64x256xf32>, tensor<256x128xf32>)
                      outs(%f1 : tensor<64x128xf32>) -> tensor<64x128xf32>
  %h = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%m1 : tensor<64x128xf32>) outs(%e1 : tensor<64x128xf32>) {
  ^bb0(%a: f32, %out: f32):
    %r = arith.maximumf %a, %zero : f32
    linalg.yield %r : f32
  } -> tensor<64x128xf32>
  %e2 = tensor.empty() : tensor<64x64xf32>
  %f2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<64x64xf32>) -> tensor<64x64xf32>
  %m2 = linalg.matmul ins(%h, %w2 : tensor<64x128xf32>, tensor<128x64xf32>)
                      outs(%f2 : tensor<64x64xf32>) -> tensor<64x64xf32>
  return %m2 : tensor<64x64xf32>
}
