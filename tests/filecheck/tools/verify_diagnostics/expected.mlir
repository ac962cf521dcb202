// --verify-diagnostics with expected-* directives checks them as mlir-opt does: each
// error, warning and note produced must be expected on its line (message text as a
// substring, or {{regex}} blocks under -re), and each directive must be matched.
// All match here, so the exit code is 0 and the chunks without errors are printed.
// RUN: xrelay-opt %s --split-input-file --verify-diagnostics -p infer-type | filecheck %s

func.func @main(%x: tensor<2x3xf32>, %y: tensor<4xf32>) -> tensor<2x3xf32> {
  // expected-error @+1 {{relay.add: shapes [2, 3] and [4] do not broadcast}}
  %0 = relay.add %x, %y : (tensor<2x3xf32>, tensor<4xf32>) -> tensor<2x3xf32>
  func.return %0 : tensor<2x3xf32>
}

// -----

// On the same line; a regex block.
func.func @main(%x: tensor<2x3xf32>) -> tensor<*xf32> {
  %0 = relay.reshape %x {newshape = array<i64: 7>} : (tensor<2x3xf32>) -> tensor<*xf32> // expected-error-re {{cannot reshape [{{[0-9, ]+}}] ({{[0-9]+}} elements) to [7]}}
  func.return %0 : tensor<*xf32>
}

// -----

// The reshape's operand type is known only after InferType: a pass error.
func.func @main(%x: tensor<2x3xf32>) -> tensor<*xf32> {
  %0 = relay.nn.relu %x : (tensor<2x3xf32>) -> tensor<*xf32>
  %1 = relay.reshape %0 {newshape = array<i64: 7>} : (tensor<*xf32>) -> tensor<*xf32>
  // expected-error @above {{to [7] (7 elements) (newshape [7]) (in pass InferType)}}
  func.return %1 : tensor<*xf32>
}

// -----

func.func @main(%x: tensor<2x3xf32>) -> tensor<*xf32> {
  // expected-error @below {{cannot reshape}}
  %0 = relay.reshape %x {newshape = array<i64: 7>} : (tensor<2x3xf32>) -> tensor<*xf32>
  func.return %0 : tensor<*xf32>
}

// -----

// A parse error is a diagnostic too.
func.func @main(%x: tensor<2xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{is not registered}}
  %0 = relay.nn.not_an_op %x : (tensor<2xf32>) -> tensor<2xf32>
  func.return %0 : tensor<2xf32>
}

// -----

// CHECK: func.func @last
func.func @last(%x: tensor<2xf32>) -> tensor<2xf32> {
  func.return %x : tensor<2xf32>
}
