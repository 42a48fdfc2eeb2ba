// A CNN layer as iree-import-onnx 3.13 writes it: a 3x3 convolution at
// stride 1 with padding 1 and a bias. IREE 3.13's Winograd transform drops
// the bias; the flag search's rewrite adds it after the convolution.
module {
  func.func @main_graph(%x: !torch.vtensor<[1,8,14,14],f32>, %w: !torch.vtensor<[16,8,3,3],f32>, %b: !torch.vtensor<[16],f32>) -> !torch.vtensor<[1,16,14,14],f32> attributes {torch.onnx_meta.ir_version = 8 : si64, torch.onnx_meta.opset_version = 17 : si64, torch.onnx_meta.producer_name = "retune", torch.onnx_meta.producer_version = ""} {
    %0 = torch.operator "onnx.Conv"(%x, %w, %b) {torch.onnx.kernel_shape = [3 : si64, 3 : si64], torch.onnx.pads = [1 : si64, 1 : si64, 1 : si64, 1 : si64], torch.onnx.strides = [1 : si64, 1 : si64]} : (!torch.vtensor<[1,8,14,14],f32>, !torch.vtensor<[16,8,3,3],f32>, !torch.vtensor<[16],f32>) -> !torch.vtensor<[1,16,14,14],f32>
    return %0 : !torch.vtensor<[1,16,14,14],f32>
  }
}
