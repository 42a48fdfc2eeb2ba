// A three-layer perceptron: f32 matmuls with bias and ReLU, batch 256.
// Layers 1 and 2 have the same shape, so they form one dispatch.
#bias = affine_map<(d0, d1) -> (d1)>
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @forward(%x: tensor<256x1024xf32>,
                   %w1: tensor<1024x1024xf32>, %b1: tensor<1024xf32>,
                   %w2: tensor<1024x1024xf32>, %b2: tensor<1024xf32>,
                   %w3: tensor<1024x512xf32>, %b3: tensor<512xf32>)
    -> tensor<256x512xf32> {
  %zero = arith.constant 0.0 : f32
  // Layer 1
  %e1 = tensor.empty() : tensor<256x1024xf32>
  %f1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<256x1024xf32>) -> tensor<256x1024xf32>
  %m1 = linalg.matmul ins(%x, %w1 : tensor<256x1024xf32>, tensor<1024x1024xf32>)
                      outs(%f1 : tensor<256x1024xf32>) -> tensor<256x1024xf32>
  %h1 = linalg.generic {indexing_maps = [#id, #bias, #id],
                        iterator_types = ["parallel", "parallel"]}
      ins(%m1, %b1 : tensor<256x1024xf32>, tensor<1024xf32>) outs(%e1 : tensor<256x1024xf32>) {
  ^bb0(%a: f32, %b: f32, %out: f32):
    %s = arith.addf %a, %b : f32
    %r = arith.maximumf %s, %zero : f32
    linalg.yield %r : f32
  } -> tensor<256x1024xf32>
  // Layer 2
  %e2 = tensor.empty() : tensor<256x1024xf32>
  %f2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<256x1024xf32>) -> tensor<256x1024xf32>
  %m2 = linalg.matmul ins(%h1, %w2 : tensor<256x1024xf32>, tensor<1024x1024xf32>)
                      outs(%f2 : tensor<256x1024xf32>) -> tensor<256x1024xf32>
  %h2 = linalg.generic {indexing_maps = [#id, #bias, #id],
                        iterator_types = ["parallel", "parallel"]}
      ins(%m2, %b2 : tensor<256x1024xf32>, tensor<1024xf32>) outs(%e2 : tensor<256x1024xf32>) {
  ^bb0(%a: f32, %b: f32, %out: f32):
    %s = arith.addf %a, %b : f32
    %r = arith.maximumf %s, %zero : f32
    linalg.yield %r : f32
  } -> tensor<256x1024xf32>
  // Layer 3 (no activation)
  %e3 = tensor.empty() : tensor<256x512xf32>
  %f3 = linalg.fill ins(%zero : f32) outs(%e3 : tensor<256x512xf32>) -> tensor<256x512xf32>
  %m3 = linalg.matmul ins(%h2, %w3 : tensor<256x1024xf32>, tensor<1024x512xf32>)
                      outs(%f3 : tensor<256x512xf32>) -> tensor<256x512xf32>
  %y = linalg.generic {indexing_maps = [#id, #bias, #id],
                       iterator_types = ["parallel", "parallel"]}
      ins(%m3, %b3 : tensor<256x512xf32>, tensor<512xf32>) outs(%e3 : tensor<256x512xf32>) {
  ^bb0(%a: f32, %b: f32, %out: f32):
    %s = arith.addf %a, %b : f32
    linalg.yield %s : f32
  } -> tensor<256x512xf32>
  return %y : tensor<256x512xf32>
}
