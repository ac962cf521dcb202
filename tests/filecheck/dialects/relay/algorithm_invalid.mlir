// RUN: xrelay-opt %s --split-input-file --verify-diagnostics | filecheck %s

func.func @f(%a: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // CHECK: relay.cumsum: axis 2 is out of range for rank 2
  %r = relay.cumsum %a {axis = 2 : i64} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  func.return %r : tensor<2x3xf32>
}

// -----

func.func @f(%a: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // CHECK: relay.cumprod: result #0 has type tensor<2x3xf32> but the type relation gives tensor<6xf32>
  %r = relay.cumprod %a : (tensor<2x3xf32>) -> tensor<2x3xf32>
  func.return %r : tensor<2x3xf32>
}

// -----

func.func @f(%a: tensor<2x3xf32>) -> tensor<2x1xf32> {
  // CHECK: relay.topk: ret_type must be "both", "values" or "indices", got "value"
  %r = relay.topk %a {ret_type = "value"} : (tensor<2x3xf32>) -> tensor<2x1xf32>
  func.return %r : tensor<2x1xf32>
}

// -----

func.func @f(%a: tensor<2x3xf32>) -> tensor<2x1xf32> {
  // CHECK: relay.topk: expected 2 results, got 1
  %r = relay.topk %a : (tensor<2x3xf32>) -> tensor<2x1xf32>
  func.return %r : tensor<2x1xf32>
}

// -----

func.func @f(%a: tensor<3x4xf32>, %b: tensor<5x2xf32>) -> tensor<3x2xf32> {
  // CHECK: relay.einsum: label 'j' has size 4 and 5 in equation 'ij,jk->ik'
  %r = relay.einsum %a, %b {equation = "ij,jk->ik"} : (tensor<3x4xf32>, tensor<5x2xf32>) -> tensor<3x2xf32>
  func.return %r : tensor<3x2xf32>
}

// -----

func.func @f(%a: tensor<3x4xf32>) -> tensor<3xf32> {
  // CHECK: relay.einsum: output label 'k' is not in any operand of 'ij->k'
  %r = relay.einsum %a {equation = "ij->k"} : (tensor<3x4xf32>) -> tensor<3xf32>
  func.return %r : tensor<3xf32>
}

// -----

func.func @f(%a: tensor<3x4xf32>, %b: tensor<4xf32>) -> tensor<3xf32> {
  // CHECK: relay.einsum: equation 'ij->i' has 1 operand terms but there are 2 operands
  %r = relay.einsum %a, %b {equation = "ij->i"} : (tensor<3x4xf32>, tensor<4xf32>) -> tensor<3xf32>
  func.return %r : tensor<3xf32>
}

// -----

func.func @f(%a: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // CHECK: relay.argsort: dtype must be an integer type, got f32
  %r = relay.argsort %a {dtype = f32} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  func.return %r : tensor<2x3xf32>
}

// -----

func.func @f(%a: tensor<2x3xf32>) -> tensor<2x3xi32> {
  // CHECK: relay.argsort: axis 2 is out of range for rank 2
  %r = relay.argsort %a {axis = 2 : i64} : (tensor<2x3xf32>) -> tensor<2x3xi32>
  func.return %r : tensor<2x3xi32>
}
