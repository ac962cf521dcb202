// RUN: xrelay-opt %s --split-input-file -p defuse-ops | filecheck %s
// RUN: xrelay-opt %s --split-input-file -p fuse-ops,defuse-ops | filecheck %s --check-prefix=ROUND

// Every call to a primitive function is replaced by the callee's body (a kernel
// called twice is inlined twice); the primitive functions are removed.

// CHECK-NOT:  func.func private
// CHECK-LABEL: func.func @main(%x: tensor<1x3x8x8xf32>, %w: tensor<8x3x3x3xf32>, %b: tensor<8xf32>) -> tensor<1x8x8x8xf32> {
// CHECK-NEXT:   %0 = relay.nn.conv2d %x, %w {padding = array<i64: 1, 1, 1, 1>} : (tensor<1x3x8x8xf32>, tensor<8x3x3x3xf32>) -> tensor<1x8x8x8xf32>
// CHECK-NEXT:   %1 = relay.nn.bias_add %0, %b : (tensor<1x8x8x8xf32>, tensor<8xf32>) -> tensor<1x8x8x8xf32>
// CHECK-NEXT:   %2 = relay.nn.relu %1 : (tensor<1x8x8x8xf32>) -> tensor<1x8x8x8xf32>
// CHECK-NEXT:   %c = relay.constant dense<1.000000e+00> : tensor<f32>
// CHECK-NEXT:   %3 = relay.add %2, %c : (tensor<1x8x8x8xf32>, tensor<f32>) -> tensor<1x8x8x8xf32>
// CHECK-NEXT:   %c_1 = relay.constant dense<1.000000e+00> : tensor<f32>
// CHECK-NEXT:   %4 = relay.add %3, %c_1 : (tensor<1x8x8x8xf32>, tensor<f32>) -> tensor<1x8x8x8xf32>
// CHECK-NEXT:   func.return %4 : tensor<1x8x8x8xf32>
// CHECK-NEXT: }
// CHECK-NOT:  func.func

// FuseOps leaves the calls alone (they are opaque), so the round trip gives the same.
// ROUND-NOT:  func.func private
// ROUND-LABEL: func.func @main(
// ROUND-NEXT:   relay.nn.conv2d
// ROUND-NEXT:   relay.nn.bias_add
// ROUND-NEXT:   relay.nn.relu
// ROUND-NEXT:   relay.constant
// ROUND-NEXT:   relay.add
// ROUND-NEXT:   relay.constant
// ROUND-NEXT:   relay.add
// ROUND-NEXT:   func.return
func.func private @fused_nn_conv2d_nn_bias_add_nn_relu(%p0: tensor<1x3x8x8xf32>, %p1: tensor<8x3x3x3xf32>, %p2: tensor<8xf32>) -> tensor<1x8x8x8xf32> attributes {relay.primitive} {
  %0 = relay.nn.conv2d %p0, %p1 {padding = array<i64: 1, 1, 1, 1>} : (tensor<1x3x8x8xf32>, tensor<8x3x3x3xf32>) -> tensor<1x8x8x8xf32>
  %1 = relay.nn.bias_add %0, %p2 : (tensor<1x8x8x8xf32>, tensor<8xf32>) -> tensor<1x8x8x8xf32>
  %2 = relay.nn.relu %1 : (tensor<1x8x8x8xf32>) -> tensor<1x8x8x8xf32>
  func.return %2 : tensor<1x8x8x8xf32>
}
func.func private @fused_add(%p0: tensor<1x8x8x8xf32>) -> tensor<1x8x8x8xf32> attributes {relay.primitive} {
  %c = relay.constant dense<1.0> : tensor<f32>
  %0 = relay.add %p0, %c : (tensor<1x8x8x8xf32>, tensor<f32>) -> tensor<1x8x8x8xf32>
  func.return %0 : tensor<1x8x8x8xf32>
}
func.func @main(%x: tensor<1x3x8x8xf32>, %w: tensor<8x3x3x3xf32>, %b: tensor<8xf32>) -> tensor<1x8x8x8xf32> {
  %0 = func.call @fused_nn_conv2d_nn_bias_add_nn_relu(%x, %w, %b) : (tensor<1x3x8x8xf32>, tensor<8x3x3x3xf32>, tensor<8xf32>) -> tensor<1x8x8x8xf32>
  %1 = func.call @fused_add(%0) : (tensor<1x8x8x8xf32>) -> tensor<1x8x8x8xf32>
  %2 = func.call @fused_add(%1) : (tensor<1x8x8x8xf32>) -> tensor<1x8x8x8xf32>
  func.return %2 : tensor<1x8x8x8xf32>
}

// -----

// Does not apply: without primitive functions the module is unchanged, even when
// its ops are not in post-DFS order.
// With FuseOps first, the round trip gives the module back.

// CHECK-LABEL: func.func @unfused(%x: tensor<4x8xf32>, %y: tensor<4x8xf32>) -> (tensor<4xf32>, tensor<4x8xf32>) {
// CHECK-NEXT:   %0 = relay.sum %y {axis = array<i64: 1>} : (tensor<4x8xf32>) -> tensor<4xf32>
// CHECK-NEXT:   %1 = relay.exp %x : (tensor<4x8xf32>) -> tensor<4x8xf32>
// CHECK-NEXT:   %2 = relay.sum %1 {axis = array<i64: 1>} : (tensor<4x8xf32>) -> tensor<4xf32>
// CHECK-NEXT:   %3 = relay.add %2, %0 : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT:   %4 = relay.sqrt %3 : (tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT:   func.return %4, %1 : tensor<4xf32>, tensor<4x8xf32>

// The round trip puts the ops in post-DFS order (from the return): the sum of %y
// now comes after the ops the add's first operand needs.
// ROUND-NOT:  func.func private
// ROUND-LABEL: func.func @unfused(%x: tensor<4x8xf32>, %y: tensor<4x8xf32>) -> (tensor<4xf32>, tensor<4x8xf32>) {
// ROUND-NEXT:   %0 = relay.exp %x : (tensor<4x8xf32>) -> tensor<4x8xf32>
// ROUND-NEXT:   %1 = relay.sum %0 {axis = array<i64: 1>} : (tensor<4x8xf32>) -> tensor<4xf32>
// ROUND-NEXT:   %2 = relay.sum %y {axis = array<i64: 1>} : (tensor<4x8xf32>) -> tensor<4xf32>
// ROUND-NEXT:   %3 = relay.add %1, %2 : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
// ROUND-NEXT:   %4 = relay.sqrt %3 : (tensor<4xf32>) -> tensor<4xf32>
// ROUND-NEXT:   func.return %4, %0 : tensor<4xf32>, tensor<4x8xf32>
// ROUND-NOT:  func.func
// ROUND:      {{^// -+$}}
func.func @unfused(%x: tensor<4x8xf32>, %y: tensor<4x8xf32>) -> (tensor<4xf32>, tensor<4x8xf32>) {
  %0 = relay.sum %y {axis = array<i64: 1>} : (tensor<4x8xf32>) -> tensor<4xf32>
  %1 = relay.exp %x : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %2 = relay.sum %1 {axis = array<i64: 1>} : (tensor<4x8xf32>) -> tensor<4xf32>
  %3 = relay.add %2, %0 : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %4 = relay.sqrt %3 : (tensor<4xf32>) -> tensor<4xf32>
  func.return %4, %1 : tensor<4xf32>, tensor<4x8xf32>
}

// -----

// A primitive function still called from a function that is not optimized
// (relay.skip_optimization) is kept; calls inside relay.if branches are inlined.

// CHECK:      func.func private @fused_exp(%p0: tensor<3xf32>) -> tensor<3xf32> attributes {relay.primitive} {
// CHECK-LABEL: func.func @main(%c: tensor<i1>, %x: tensor<3xf32>) -> tensor<3xf32> {
// CHECK-NEXT:   %0 = relay.if %c : tensor<i1> -> (tensor<3xf32>) {
// CHECK-NEXT:     %1 = relay.exp %x : (tensor<3xf32>) -> tensor<3xf32>
// CHECK-NEXT:     relay.yield %1 : tensor<3xf32>
// CHECK-NEXT:   } else {
// CHECK-NEXT:     relay.yield %x : tensor<3xf32>
// CHECK-NEXT:   }
// CHECK-LABEL: func.func @skipped(%x: tensor<3xf32>) -> tensor<3xf32> attributes {relay.skip_optimization} {
// CHECK-NEXT:   %0 = func.call @fused_exp(%x)

// ROUND:      func.func private @fused_exp(
// ROUND:      relay.if
// ROUND-NEXT:   relay.exp
// ROUND:      func.call @fused_exp(%x)
func.func private @fused_exp(%p0: tensor<3xf32>) -> tensor<3xf32> attributes {relay.primitive} {
  %0 = relay.exp %p0 : (tensor<3xf32>) -> tensor<3xf32>
  func.return %0 : tensor<3xf32>
}
func.func @main(%c: tensor<i1>, %x: tensor<3xf32>) -> tensor<3xf32> {
  %0 = relay.if %c : tensor<i1> -> (tensor<3xf32>) {
    %1 = func.call @fused_exp(%x) : (tensor<3xf32>) -> tensor<3xf32>
    relay.yield %1 : tensor<3xf32>
  } else {
    relay.yield %x : tensor<3xf32>
  }
  func.return %0 : tensor<3xf32>
}
func.func @skipped(%x: tensor<3xf32>) -> tensor<3xf32> attributes {relay.skip_optimization} {
  %0 = func.call @fused_exp(%x) : (tensor<3xf32>) -> tensor<3xf32>
  func.return %0 : tensor<3xf32>
}
