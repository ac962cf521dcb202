// RUN: xrelay-opt %s --split-input-file --verify-diagnostics | filecheck %s

func.func @f(%a: tensor<3x4xf32>) -> tensor<f32> {
  // CHECK: relay.det: the matrices must be square, got 3 x 4
  %r = relay.det %a : (tensor<3x4xf32>) -> tensor<f32>
  func.return %r : tensor<f32>
}

// -----

func.func @f(%a: tensor<2x2xi32>) -> tensor<i32> {
  // CHECK: relay.det: data must be floating point, got int32
  %r = relay.det %a : (tensor<2x2xi32>) -> tensor<i32>
  func.return %r : tensor<i32>
}

// -----

func.func @f(%a: tensor<4xf32>) -> tensor<f32> {
  // CHECK: relay.det: data must be [..., n, n] (rank 2 or more), got rank 1
  %r = relay.det %a : (tensor<4xf32>) -> tensor<f32>
  func.return %r : tensor<f32>
}
