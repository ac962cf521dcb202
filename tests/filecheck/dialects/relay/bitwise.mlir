// RUN: XRELAY_ROUNDTRIP
// RUN: XRELAY_GENERIC_ROUNDTRIP

// CHECK-LABEL: func.func @bitwise
// CHECK-GENERIC-LABEL: "func.func"() <{sym_name = "bitwise"
func.func @bitwise(%a: tensor<2x3xi32>, %b: tensor<3xi32>, %p: tensor<4xi1>) -> tensor<2x3xi32> {
  // CHECK-NEXT: %0 = relay.bitwise_and %a, %b : (tensor<2x3xi32>, tensor<3xi32>) -> tensor<2x3xi32>
  // CHECK-GENERIC: "relay.bitwise_and"(%a, %b) : (tensor<2x3xi32>, tensor<3xi32>) -> tensor<2x3xi32>
  %0 = relay.bitwise_and %a, %b : (tensor<2x3xi32>, tensor<3xi32>) -> tensor<2x3xi32>
  // CHECK-NEXT: %1 = relay.bitwise_or %0, %b : (tensor<2x3xi32>, tensor<3xi32>) -> tensor<2x3xi32>
  %1 = relay.bitwise_or %0, %b : (tensor<2x3xi32>, tensor<3xi32>) -> tensor<2x3xi32>
  // CHECK-NEXT: %2 = relay.bitwise_xor %1, %a : (tensor<2x3xi32>, tensor<2x3xi32>) -> tensor<2x3xi32>
  %2 = relay.bitwise_xor %1, %a : (tensor<2x3xi32>, tensor<2x3xi32>) -> tensor<2x3xi32>
  // CHECK-NEXT: %3 = relay.bitwise_not %2 : (tensor<2x3xi32>) -> tensor<2x3xi32>
  %3 = relay.bitwise_not %2 : (tensor<2x3xi32>) -> tensor<2x3xi32>
  // CHECK-NEXT: %4 = relay.left_shift %3, %b : (tensor<2x3xi32>, tensor<3xi32>) -> tensor<2x3xi32>
  %4 = relay.left_shift %3, %b : (tensor<2x3xi32>, tensor<3xi32>) -> tensor<2x3xi32>
  // CHECK-NEXT: %5 = relay.right_shift %4, %b : (tensor<2x3xi32>, tensor<3xi32>) -> tensor<2x3xi32>
  %5 = relay.right_shift %4, %b : (tensor<2x3xi32>, tensor<3xi32>) -> tensor<2x3xi32>
  // CHECK-NEXT: %6 = relay.bitwise_xor %p, %p : (tensor<4xi1>, tensor<4xi1>) -> tensor<4xi1>
  %6 = relay.bitwise_xor %p, %p : (tensor<4xi1>, tensor<4xi1>) -> tensor<4xi1>
  func.return %5 : tensor<2x3xi32>
}
