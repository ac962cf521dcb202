// RUN: xrelay-opt %s --split-input-file --verify-diagnostics | filecheck %s

func.func @f(%a: tensor<2x3xf32>, %b: tensor<3xf32>) -> tensor<2x3xf32> {
  // CHECK: relay.bitwise_and needs integer or i1 operands, got f32
  %r = relay.bitwise_and %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  func.return %r : tensor<2x3xf32>
}

// -----

func.func @f(%a: tensor<4xi1>, %b: tensor<4xi1>) -> tensor<4xi1> {
  // CHECK: relay.left_shift needs integer operands, got i1
  %r = relay.left_shift %a, %b : (tensor<4xi1>, tensor<4xi1>) -> tensor<4xi1>
  func.return %r : tensor<4xi1>
}

// -----

func.func @f(%a: tensor<2xi32>, %b: tensor<3xi32>) -> tensor<2xi32> {
  // CHECK: relay.right_shift: shapes [2] and [3] do not broadcast
  %r = relay.right_shift %a, %b : (tensor<2xi32>, tensor<3xi32>) -> tensor<2xi32>
  func.return %r : tensor<2xi32>
}

// -----

func.func @f(%a: tensor<2xf64>) -> tensor<2xf64> {
  // CHECK: relay.bitwise_not needs integer or i1 operands, got f64
  %r = relay.bitwise_not %a : (tensor<2xf64>) -> tensor<2xf64>
  func.return %r : tensor<2xf64>
}

// -----

func.func @f(%a: tensor<2xf32>, %b: tensor<2xf32>) -> tensor<2xf32> {
  // CHECK: relay.bitwise_or needs integer or i1 operands, got f32
  %r = relay.bitwise_or %a, %b : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  func.return %r : tensor<2xf32>
}

// -----

func.func @f(%a: tensor<2xi8>, %b: tensor<2xi16>) -> tensor<2xi8> {
  // CHECK: relay.bitwise_xor: rhs has element type i16 but lhs has i8 (relay does not promote dtypes)
  %r = relay.bitwise_xor %a, %b : (tensor<2xi8>, tensor<2xi16>) -> tensor<2xi8>
  func.return %r : tensor<2xi8>
}
