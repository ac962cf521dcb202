// RUN: xrelay-opt %s -p relay-lower-to-llvm --split-input-file --verify-diagnostics | filecheck %s

// A dynamic shape cannot be lowered: a diagnostic naming the op.
func.func @main(%x: tensor<?x3xf32>) -> tensor<?x3xf32> {
  %0 = relay.exp %x : (tensor<?x3xf32>) -> tensor<?x3xf32>
  func.return %0 : tensor<?x3xf32>
}

// CHECK: relay.exp: operand #0: cannot lower the dynamic shape tensor<?x3xf32>

// -----

// No @main to lower.
func.func @other(%x: tensor<3xf32>) -> tensor<3xf32> {
  func.return %x : tensor<3xf32>
}

// CHECK: no function @main with a body to lower (functions: other)
