// A decoder's upsampling as iree-import-onnx 3.13 writes it: a 4x4
// ConvTranspose at stride 2 with padding 1, then a 2x2 one at stride 2 with
// a bias (the flag search rewrites both into stride phases).
module {
  func.func @main_graph(%x: !torch.vtensor<[1,3,5,6],f32>, %w1: !torch.vtensor<[3,4,4,4],f32>, %w2: !torch.vtensor<[4,2,2,2],f32>, %b2: !torch.vtensor<[2],f32>) -> !torch.vtensor<[1,2,20,24],f32> attributes {torch.onnx_meta.ir_version = 8 : si64, torch.onnx_meta.opset_version = 17 : si64, torch.onnx_meta.producer_name = "retune", torch.onnx_meta.producer_version = ""} {
    %0 = torch.operator "onnx.ConvTranspose"(%x, %w1) {torch.onnx.kernel_shape = [4 : si64, 4 : si64], torch.onnx.pads = [1 : si64, 1 : si64, 1 : si64, 1 : si64], torch.onnx.strides = [2 : si64, 2 : si64]} : (!torch.vtensor<[1,3,5,6],f32>, !torch.vtensor<[3,4,4,4],f32>) -> !torch.vtensor<[1,4,10,12],f32>
    %1 = torch.operator "onnx.ConvTranspose"(%0, %w2, %b2) {torch.onnx.kernel_shape = [2 : si64, 2 : si64], torch.onnx.strides = [2 : si64, 2 : si64]} : (!torch.vtensor<[1,4,10,12],f32>, !torch.vtensor<[4,2,2,2],f32>, !torch.vtensor<[2],f32>) -> !torch.vtensor<[1,2,20,24],f32>
    return %1 : !torch.vtensor<[1,2,20,24],f32>
  }
}
