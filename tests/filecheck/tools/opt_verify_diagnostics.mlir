// --verify-diagnostics: verifier and pass errors are printed (on stdout, with the
// IR, as xdsl-opt does) and the exit code is 0, so negative tests can CHECK them.
// RUN: xrelay-opt %s --split-input-file --verify-diagnostics -p infer-type | filecheck %s

func.func @main(%x: tensor<2x3xf32>, %y: tensor<4xf32>) -> tensor<2x3xf32> {
  // CHECK: relay.add: shapes [2, 3] and [4] do not broadcast
  %0 = relay.add %x, %y : (tensor<2x3xf32>, tensor<4xf32>) -> tensor<2x3xf32>
  func.return %0 : tensor<2x3xf32>
}

// -----

// A pass failure (InferType) is a diagnostic too:
func.func @main(%x: tensor<2x3xf32>) -> tensor<*xf32> {
  // CHECK: relay.reshape: cannot reshape [2, 3] (6 elements) to [7] (7 elements)
  %0 = relay.reshape %x {newshape = array<i64: 7>} : (tensor<2x3xf32>) -> tensor<*xf32>
  func.return %0 : tensor<*xf32>
}

// -----

// ... and the chunks after it are still processed:
// CHECK: func.func @last
func.func @last(%x: tensor<2xf32>) -> tensor<2xf32> {
  func.return %x : tensor<2xf32>
}
