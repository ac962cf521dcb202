// A directive whose text is not in the message, one on the wrong line, an error no
// directive expects and a directive nothing produces: each is one line naming
// file:line, and the exit code is 1.
// RUN: not xrelay-opt %s --split-input-file --verify-diagnostics -p infer-type 2>&1 | filecheck %s

func.func @main(%x: tensor<2x3xf32>, %y: tensor<4xf32>) -> tensor<2x3xf32> {
  // CHECK: mismatch.mlir:[[# @LINE + 2]]:8: error: unexpected error: relay.add: shapes [2, 3] and [4] do not broadcast
  // CHECK: mismatch.mlir:[[# @LINE + 1]]: error: expected error "relay.add: shapes do not broadcast" was not produced
  %0 = relay.add %x, %y : (tensor<2x3xf32>, tensor<4xf32>) -> tensor<2x3xf32> // expected-error {{relay.add: shapes do not broadcast}}
  func.return %0 : tensor<2x3xf32>
}

// -----

func.func @main(%x: tensor<2x3xf32>) -> tensor<*xf32> {
  // CHECK: mismatch.mlir:[[# @LINE + 2]]: error: expected error "cannot reshape" was not produced
  // CHECK: mismatch.mlir:[[# @LINE + 2]]:8: error: unexpected error: relay.reshape: cannot reshape
  // expected-error @+2 {{cannot reshape}}
  %0 = relay.reshape %x {newshape = array<i64: 7>} : (tensor<2x3xf32>) -> tensor<*xf32>
  func.return %0 : tensor<*xf32>
}

// -----

func.func @main(%x: tensor<2xf32>) -> tensor<2xf32> {
  // CHECK: mismatch.mlir:[[# @LINE + 1]]: error: expected warning "nothing warns here" was not produced
  // expected-warning @+1 {{nothing warns here}}
  func.return %x : tensor<2xf32>
}
// CHECK-NOT: error
