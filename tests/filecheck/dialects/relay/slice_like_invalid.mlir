// RUN: xrelay-opt %s --split-input-file --verify-diagnostics | filecheck %s

func.func @f(%x: tensor<2x5xf32>, %l: tensor<3x3xf32>) -> tensor<3x3xf32> {
  // CHECK: relay.slice_like: shape_like's extent 3 on axis 0 exceeds data's 2
  %0 = relay.slice_like %x, %l : (tensor<2x5xf32>, tensor<3x3xf32>) -> tensor<3x3xf32>
  func.return %0 : tensor<3x3xf32>
}

// -----

func.func @f(%x: tensor<2x5x4xf32>, %l: tensor<1x3xf32>) -> tensor<2x5x4xf32> {
  // CHECK: relay.slice_like: axis 2 is past shape_like's rank 2
  %0 = relay.slice_like %x, %l {axes = array<i64: 2>} : (tensor<2x5x4xf32>, tensor<1x3xf32>) -> tensor<2x5x4xf32>
  func.return %0 : tensor<2x5x4xf32>
}

// -----

func.func @f(%x: tensor<2xf32>, %l: tensor<1x1xf32>) -> tensor<1xf32> {
  // CHECK: relay.slice_like: shape_like has rank 2, more than data's 1
  %0 = relay.slice_like %x, %l : (tensor<2xf32>, tensor<1x1xf32>) -> tensor<1xf32>
  func.return %0 : tensor<1xf32>
}
