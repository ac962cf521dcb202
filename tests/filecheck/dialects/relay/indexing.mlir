// RUN: XRELAY_ROUNDTRIP
// RUN: XRELAY_GENERIC_ROUNDTRIP

// CHECK-LABEL: func.func @scatters
// CHECK-GENERIC-LABEL: "func.func"() <{sym_name = "scatters"
func.func @scatters(%d: tensor<4x3x2xf32>, %i: tensor<2x5xi64>, %u: tensor<5x2xf32>, %j: tensor<2x3x2xi32>, %v: tensor<2x3x2xf32>, %k: tensor<i64>) -> tensor<4x3x2xf32> {
  // CHECK-NEXT: %0 = relay.scatter_nd %d, %i, %u : (tensor<4x3x2xf32>, tensor<2x5xi64>, tensor<5x2xf32>) -> tensor<4x3x2xf32>
  // CHECK-GENERIC: %0 = "relay.scatter_nd"(
  %0 = relay.scatter_nd %d, %i, %u : (tensor<4x3x2xf32>, tensor<2x5xi64>, tensor<5x2xf32>) -> tensor<4x3x2xf32>
  // CHECK-NEXT: %1 = relay.scatter_nd %d, %i, %u {mode = "add"} : (tensor<4x3x2xf32>, tensor<2x5xi64>, tensor<5x2xf32>) -> tensor<*xf32>
  // CHECK-GENERIC: %1 = "relay.scatter_nd"(
  %1 = relay.scatter_nd %d, %i, %u {mode = "add"} : (tensor<4x3x2xf32>, tensor<2x5xi64>, tensor<5x2xf32>) -> tensor<*xf32>
  // CHECK-NEXT: %2 = relay.scatter_elements %d, %j, %v : (tensor<4x3x2xf32>, tensor<2x3x2xi32>, tensor<2x3x2xf32>) -> tensor<4x3x2xf32>
  // CHECK-GENERIC: %2 = "relay.scatter_elements"(
  %2 = relay.scatter_elements %d, %j, %v : (tensor<4x3x2xf32>, tensor<2x3x2xi32>, tensor<2x3x2xf32>) -> tensor<4x3x2xf32>
  // CHECK-NEXT: %3 = relay.scatter_elements %d, %j, %v {axis = -1 : i64, reduction = "max"} : (tensor<4x3x2xf32>, tensor<2x3x2xi32>, tensor<2x3x2xf32>) -> tensor<4x3x2xf32>
  // CHECK-GENERIC: %3 = "relay.scatter_elements"(
  %3 = relay.scatter_elements %d, %j, %v {axis = -1 : i64, reduction = "max"} : (tensor<4x3x2xf32>, tensor<2x3x2xi32>, tensor<2x3x2xf32>) -> tensor<4x3x2xf32>
  // CHECK-NEXT: %4 = relay.trilu %d, %k : (tensor<4x3x2xf32>, tensor<i64>) -> tensor<4x3x2xf32>
  // CHECK-GENERIC: %4 = "relay.trilu"(
  %4 = relay.trilu %d, %k : (tensor<4x3x2xf32>, tensor<i64>) -> tensor<4x3x2xf32>
  // CHECK-NEXT: %5 = relay.trilu %d, %k {upper = false} : (tensor<4x3x2xf32>, tensor<i64>) -> tensor<4x3x2xf32>
  // CHECK-GENERIC: %5 = "relay.trilu"(
  %5 = relay.trilu %d, %k {upper = false} : (tensor<4x3x2xf32>, tensor<i64>) -> tensor<4x3x2xf32>
  func.return %0 : tensor<4x3x2xf32>
}
