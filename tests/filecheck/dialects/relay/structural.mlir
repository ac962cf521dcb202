// RUN: XRELAY_ROUNDTRIP
// RUN: XRELAY_GENERIC_ROUNDTRIP

// CHECK-LABEL: func.func @constants
// CHECK-GENERIC-LABEL: "func.func"() <{sym_name = "constants"
func.func @constants() -> (tensor<f32>, tensor<2x2xi32>, tensor<3xi1>, tensor<2xf32>, tensor<101xi8>) {
  // CHECK-NEXT: %0 = relay.constant dense<1.500000e+00> : tensor<f32>
  // CHECK-GENERIC: %0 = "relay.constant"() <{value = dense<1.500000e+00> : tensor<f32>}> : () -> tensor<f32>
  %0 = relay.constant dense<1.5> : tensor<f32>
  // CHECK-NEXT: %1 = relay.constant dense<{{\[}}[1, 2], [3, 4]]> : tensor<2x2xi32>
  %1 = relay.constant dense<[[1, 2], [3, 4]]> : tensor<2x2xi32>
  // CHECK-NEXT: %2 = relay.constant dense<[true, false, true]> : tensor<3xi1>
  %2 = relay.constant dense<[true, false, true]> : tensor<3xi1>
  // CHECK-NEXT: %3 = relay.constant dense<[-0.000000e+00, 1.401300e-45]> : tensor<2xf32>
  %3 = relay.constant dense<[-0.0, 1.4013e-45]> : tensor<2xf32>
  // a splat stays a splat
  // CHECK-NEXT: %4 = relay.constant dense<1> : tensor<101xi8>
  %4 = relay.constant dense<1> : tensor<101xi8>
  func.return %0, %1, %2, %3, %4 : tensor<f32>, tensor<2x2xi32>, tensor<3xi1>, tensor<2xf32>, tensor<101xi8>
}

// CHECK-LABEL: func.func @tuples
// CHECK-GENERIC-LABEL: "func.func"() <{sym_name = "tuples"
func.func @tuples(%a: tensor<2xf32>, %b: tensor<3xi32>) -> tensor<3xi32> {
  // CHECK-NEXT: %t = relay.tuple %a, %b : (tensor<2xf32>, tensor<3xi32>) -> tuple<tensor<2xf32>, tensor<3xi32>>
  // CHECK-GENERIC: %t = "relay.tuple"(%a, %b) : (tensor<2xf32>, tensor<3xi32>) -> tuple<tensor<2xf32>, tensor<3xi32>>
  %t = relay.tuple %a, %b : (tensor<2xf32>, tensor<3xi32>) -> tuple<tensor<2xf32>, tensor<3xi32>>
  // CHECK-NEXT: %0 = relay.tuple_get_item %t {index = 1 : i64} : (tuple<tensor<2xf32>, tensor<3xi32>>) -> tensor<3xi32>
  // CHECK-GENERIC: %0 = "relay.tuple_get_item"(%t) <{index = 1 : i64}>
  %0 = relay.tuple_get_item %t {index = 1 : i64} : (tuple<tensor<2xf32>, tensor<3xi32>>) -> tensor<3xi32>
  // CHECK-NEXT: %e = relay.tuple : () -> tuple<>
  %e = relay.tuple : () -> tuple<>
  func.return %0 : tensor<3xi32>
}

// CHECK-LABEL: func.func @branches
// CHECK-GENERIC-LABEL: "func.func"() <{sym_name = "branches"
func.func @branches(%c: tensor<i1>, %a: tensor<2xf32>) -> tensor<2xf32> {
  // CHECK-NEXT: %0 = relay.if %c : tensor<i1> -> (tensor<2xf32>) {
  // CHECK-NEXT:   %1 = relay.negative %a : (tensor<2xf32>) -> tensor<2xf32>
  // CHECK-NEXT:   relay.yield %1 : tensor<2xf32>
  // CHECK-NEXT: } else {
  // CHECK-NEXT:   relay.yield %a : tensor<2xf32>
  // CHECK-NEXT: }
  // CHECK-GENERIC: %0 = "relay.if"(%c) ({
  // CHECK-GENERIC: "relay.yield"(%1) : (tensor<2xf32>) -> ()
  %0 = relay.if %c : tensor<i1> -> (tensor<2xf32>) {
    %1 = relay.negative %a : (tensor<2xf32>) -> tensor<2xf32>
    relay.yield %1 : tensor<2xf32>
  } else {
    relay.yield %a : tensor<2xf32>
  }
  func.return %0 : tensor<2xf32>
}

// CHECK-LABEL: func.func @function_attributes
// CHECK-SAME: attributes {relay.skip_optimization, relay.inline}
func.func @function_attributes(%a: tensor<2xf32>) -> tensor<2xf32> attributes {relay.skip_optimization, relay.inline} {
  func.return %a : tensor<2xf32>
}
