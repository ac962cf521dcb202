// RUN: XRELAY_ROUNDTRIP
// RUN: XRELAY_GENERIC_ROUNDTRIP

// CHECK-LABEL: func.func @plain
// CHECK-GENERIC-LABEL: "func.func"() <{sym_name = "plain"
func.func @plain(%x: tensor<2x3x4xf32>, %i: tensor<2x3xi32>) -> tensor<f32> {
  // CHECK: %0 = relay.sum %x : (tensor<2x3x4xf32>) -> tensor<f32>
  // CHECK-GENERIC: %0 = "relay.sum"(%x) <{exclude = false, keepdims = false}> : (tensor<2x3x4xf32>) -> tensor<f32>
  %0 = relay.sum %x : (tensor<2x3x4xf32>) -> tensor<f32>
  // CHECK: %1 = relay.sum %x {axis = array<i64: 1, -1>, keepdims = true} : (tensor<2x3x4xf32>) -> tensor<2x1x1xf32>
  // CHECK-GENERIC: %1 = "relay.sum"(%x) <{axis = array<i64: 1, -1>, keepdims = true, exclude = false}> : (tensor<2x3x4xf32>) -> tensor<2x1x1xf32>
  %1 = relay.sum %x {axis = array<i64: 1, -1>, keepdims = true} : (tensor<2x3x4xf32>) -> tensor<2x1x1xf32>
  // CHECK: %2 = relay.mean %x {axis = array<i64: 1>, exclude = true} : (tensor<2x3x4xf32>) -> tensor<3xf32>
  // CHECK-GENERIC: "relay.mean"(%x) <{axis = array<i64: 1>, exclude = true, keepdims = false}>
  %2 = relay.mean %x {axis = array<i64: 1>, exclude = true} : (tensor<2x3x4xf32>) -> tensor<3xf32>
  // CHECK: %3 = relay.max %x {axis = array<i64: 0>} : (tensor<2x3x4xf32>) -> tensor<3x4xf32>
  // CHECK-GENERIC: "relay.max"(%x)
  %3 = relay.max %x {axis = array<i64: 0>} : (tensor<2x3x4xf32>) -> tensor<3x4xf32>
  // CHECK: %4 = relay.min %i {axis = array<i64>} : (tensor<2x3xi32>) -> tensor<2x3xi32>
  // CHECK-GENERIC: "relay.min"(%i) <{axis = array<i64>
  %4 = relay.min %i {axis = array<i64>} : (tensor<2x3xi32>) -> tensor<2x3xi32>
  // CHECK: %5 = relay.prod %i {keepdims = true} : (tensor<2x3xi32>) -> tensor<1x1xi32>
  // CHECK-GENERIC: "relay.prod"(%i)
  %5 = relay.prod %i {keepdims = true} : (tensor<2x3xi32>) -> tensor<1x1xi32>
  // CHECK: %6 = relay.sum %x {axis = array<i64: 2>} : (tensor<2x3x4xf32>) -> tensor<*xf32>
  %6 = relay.sum %x {axis = array<i64: 2>} : (tensor<2x3x4xf32>) -> tensor<*xf32>
  func.return %0 : tensor<f32>
}

// -----

// CHECK-LABEL: func.func @logical
func.func @logical(%b: tensor<2x3xi1>) -> tensor<3xi1> {
  // CHECK: %0 = relay.all %b {axis = array<i64: 0>} : (tensor<2x3xi1>) -> tensor<3xi1>
  // CHECK-GENERIC: %0 = "relay.all"(%b) <{axis = array<i64: 0>, exclude = false, keepdims = false}> : (tensor<2x3xi1>) -> tensor<3xi1>
  %0 = relay.all %b {axis = array<i64: 0>} : (tensor<2x3xi1>) -> tensor<3xi1>
  // CHECK: %1 = relay.any %b {keepdims = true} : (tensor<2x3xi1>) -> tensor<1x1xi1>
  // CHECK-GENERIC: "relay.any"(%b)
  %1 = relay.any %b {keepdims = true} : (tensor<2x3xi1>) -> tensor<1x1xi1>
  func.return %0 : tensor<3xi1>
}

// -----

// CHECK-LABEL: func.func @arg
func.func @arg(%x: tensor<2x3x4xf32>) -> tensor<i32> {
  // CHECK: %0 = relay.argmax %x : (tensor<2x3x4xf32>) -> tensor<i32>
  // CHECK-GENERIC: %0 = "relay.argmax"(%x) <{select_last_index = false, exclude = false, keepdims = false}> : (tensor<2x3x4xf32>) -> tensor<i32>
  %0 = relay.argmax %x : (tensor<2x3x4xf32>) -> tensor<i32>
  // CHECK: %1 = relay.argmin %x {axis = array<i64: -1>, keepdims = true, select_last_index = true} : (tensor<2x3x4xf32>) -> tensor<2x3x1xi32>
  // CHECK-GENERIC: "relay.argmin"(%x) <{axis = array<i64: -1>, keepdims = true, select_last_index = true, exclude = false}>
  %1 = relay.argmin %x {axis = array<i64: -1>, keepdims = true, select_last_index = true} : (tensor<2x3x4xf32>) -> tensor<2x3x1xi32>
  func.return %0 : tensor<i32>
}

// -----

// CHECK-LABEL: func.func @statistics
func.func @statistics(%x: tensor<2x3x4xf32>, %m: tensor<2x1x4xf32>) -> tensor<2x4xf32> {
  // CHECK: %0 = relay.variance %x, %m {axis = array<i64: 1>} : (tensor<2x3x4xf32>, tensor<2x1x4xf32>) -> tensor<2x4xf32>
  // CHECK-GENERIC: %0 = "relay.variance"(%x, %m) <{axis = array<i64: 1>, unbiased = false, exclude = false, keepdims = false}> : (tensor<2x3x4xf32>, tensor<2x1x4xf32>) -> tensor<2x4xf32>
  %0 = relay.variance %x, %m {axis = array<i64: 1>} : (tensor<2x3x4xf32>, tensor<2x1x4xf32>) -> tensor<2x4xf32>
  // CHECK: %1 = relay.variance %x, %m {axis = array<i64: 1>, keepdims = true, unbiased = true} : (tensor<2x3x4xf32>, tensor<2x1x4xf32>) -> tensor<2x1x4xf32>
  %1 = relay.variance %x, %m {axis = array<i64: 1>, keepdims = true, unbiased = true} : (tensor<2x3x4xf32>, tensor<2x1x4xf32>) -> tensor<2x1x4xf32>
  // CHECK: %2 = relay.std %x {axis = array<i64: 0, 2>, exclude = true, unbiased = true} : (tensor<2x3x4xf32>) -> tensor<2x4xf32>
  // CHECK-GENERIC: "relay.std"(%x) <{axis = array<i64: 0, 2>, exclude = true, unbiased = true
  %2 = relay.std %x {axis = array<i64: 0, 2>, exclude = true, unbiased = true} : (tensor<2x3x4xf32>) -> tensor<2x4xf32>
  // CHECK: %3 = relay.logsumexp %x {axis = array<i64: -1>, keepdims = true} : (tensor<2x3x4xf32>) -> tensor<2x3x1xf32>
  // CHECK-GENERIC: "relay.logsumexp"(%x) <{axis = array<i64: -1>, keepdims = true}>
  %3 = relay.logsumexp %x {axis = array<i64: -1>, keepdims = true} : (tensor<2x3x4xf32>) -> tensor<2x3x1xf32>
  // CHECK: %4 = relay.logsumexp %x : (tensor<2x3x4xf32>) -> tensor<f32>
  %4 = relay.logsumexp %x : (tensor<2x3x4xf32>) -> tensor<f32>
  func.return %0 : tensor<2x4xf32>
}
