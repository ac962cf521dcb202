// RUN: XRELAY_ROUNDTRIP
// RUN: XRELAY_GENERIC_ROUNDTRIP

// CHECK-LABEL: func.func @det
// CHECK-GENERIC-LABEL: "func.func"() <{sym_name = "det"
func.func @det(%a: tensor<2x3x4x4xf32>) -> tensor<2x3xf32> {
  // CHECK-NEXT: %r = relay.det %a : (tensor<2x3x4x4xf32>) -> tensor<2x3xf32>
  // CHECK-GENERIC: "relay.det"(%a)
  %r = relay.det %a : (tensor<2x3x4x4xf32>) -> tensor<2x3xf32>
  func.return %r : tensor<2x3xf32>
}

// CHECK-LABEL: func.func @det_one_matrix
func.func @det_one_matrix(%a: tensor<5x5xf64>) -> tensor<f64> {
  // CHECK-NEXT: %r = relay.det %a : (tensor<5x5xf64>) -> tensor<f64>
  %r = relay.det %a : (tensor<5x5xf64>) -> tensor<f64>
  func.return %r : tensor<f64>
}
