func.func @main(%x: tensor<2xf32>) -> tensor<2xf32> {
  %1 = relay.add %0, %x : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  %0 = relay.negative %x : (tensor<2xf32>) -> tensor<2xf32>
  func.return %1 : tensor<2xf32>
}
