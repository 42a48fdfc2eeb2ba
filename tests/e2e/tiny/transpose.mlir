// One transpose with an odd inner range: a dispatch that only moves data,
// which IREE 3.13 gives a 16x16 register tile on this CPU kind.
func.func @main(%a: tensor<24x4097xf32>) -> tensor<4097x24xf32> {
  %e = tensor.empty() : tensor<4097x24xf32>
  %t = linalg.transpose ins(%a : tensor<24x4097xf32>) outs(%e : tensor<4097x24xf32>) permutation = [1, 0]
  return %t : tensor<4097x24xf32>
}
