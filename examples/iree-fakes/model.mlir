// A small model for the iree backend on the fake IREE tools (tests/fakes):
// the fake iree-compile dumps its recorded ROCm dispatch benchmarks (matmul,
// convolution, attention, i8 batch matmul) for any model; a real IREE would
// compile this function. A line `// fake-iree: <word>` injects failures.
func.func @main(%lhs: tensor<2048x1280xf16>, %rhs: tensor<10240x1280xf16>) -> tensor<2048x10240xf32> {
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<2048x10240xf32>
  %init = linalg.fill ins(%zero : f32) outs(%empty : tensor<2048x10240xf32>) -> tensor<2048x10240xf32>
  %out = linalg.matmul_transpose_b ins(%lhs, %rhs : tensor<2048x1280xf16>, tensor<10240x1280xf16>) outs(%init : tensor<2048x10240xf32>) -> tensor<2048x10240xf32>
  return %out : tensor<2048x10240xf32>
}
