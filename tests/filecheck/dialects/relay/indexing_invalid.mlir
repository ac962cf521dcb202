// RUN: xrelay-opt %s --split-input-file --verify-diagnostics | filecheck %s

func.func @f(%d: tensor<4x3xf32>, %i: tensor<2x5xf32>, %u: tensor<5x3xf32>) -> tensor<4x3xf32> {
  // CHECK: relay.scatter_nd: indices must be an integer tensor, got tensor<2x5xf32>
  %r = relay.scatter_nd %d, %i, %u : (tensor<4x3xf32>, tensor<2x5xf32>, tensor<5x3xf32>) -> tensor<4x3xf32>
  func.return %r : tensor<4x3xf32>
}

// -----

func.func @f(%d: tensor<4x3xf32>, %i: tensor<1x5xi64>, %u: tensor<5x2xf32>) -> tensor<4x3xf32> {
  // CHECK: relay.scatter_nd: updates must have the shape indices.shape[1:] + data.shape[M:]: [5, 2] != [5, 3]
  %r = relay.scatter_nd %d, %i, %u : (tensor<4x3xf32>, tensor<1x5xi64>, tensor<5x2xf32>) -> tensor<4x3xf32>
  func.return %r : tensor<4x3xf32>
}

// -----

func.func @f(%d: tensor<4x3xf32>, %i: tensor<1x5xi64>, %u: tensor<5x3xf32>) -> tensor<4x3xf32> {
  // CHECK: relay.scatter_nd: unknown reduction "sub" (one of update, add, mul, min, max)
  %r = relay.scatter_nd %d, %i, %u {mode = "sub"} : (tensor<4x3xf32>, tensor<1x5xi64>, tensor<5x3xf32>) -> tensor<4x3xf32>
  func.return %r : tensor<4x3xf32>
}

// -----

func.func @f(%d: tensor<4x3xf32>, %i: tensor<2x4xi64>, %u: tensor<2x4xf32>) -> tensor<4x3xf32> {
  // CHECK: relay.scatter_elements: indices dim 1 is 4 but data dim 1 is only 3
  %r = relay.scatter_elements %d, %i, %u : (tensor<4x3xf32>, tensor<2x4xi64>, tensor<2x4xf32>) -> tensor<4x3xf32>
  func.return %r : tensor<4x3xf32>
}

// -----

func.func @f(%d: tensor<4x3xf32>, %i: tensor<2x3xi64>, %u: tensor<2x3xf16>) -> tensor<4x3xf32> {
  // CHECK: relay.scatter_elements: updates has element type f16 but data has f32 (relay does not promote dtypes)
  %r = relay.scatter_elements %d, %i, %u : (tensor<4x3xf32>, tensor<2x3xi64>, tensor<2x3xf16>) -> tensor<4x3xf32>
  func.return %r : tensor<4x3xf32>
}

// -----

func.func @f(%d: tensor<4xf32>, %k: tensor<i64>) -> tensor<4xf32> {
  // CHECK: relay.trilu: data must have rank >= 2, got tensor<4xf32>
  %r = relay.trilu %d, %k : (tensor<4xf32>, tensor<i64>) -> tensor<4xf32>
  func.return %r : tensor<4xf32>
}

// -----

func.func @f(%d: tensor<4x4xf32>, %k: tensor<1xi64>) -> tensor<4x4xf32> {
  // CHECK: relay.trilu: k must be a 0-d tensor, got tensor<1xi64>
  %r = relay.trilu %d, %k : (tensor<4x4xf32>, tensor<1xi64>) -> tensor<4x4xf32>
  func.return %r : tensor<4x4xf32>
}
