// Verifies (the reshape's result type is incomplete), but InferType fails on it.
func.func @main(%x: tensor<2x3xf32>) -> tensor<*xf32> {
  %0 = relay.nn.relu %x : (tensor<2x3xf32>) -> tensor<*xf32>
  %1 = relay.reshape %0 {newshape = array<i64: 7>} : (tensor<*xf32>) -> tensor<*xf32>
  func.return %1 : tensor<*xf32>
}
