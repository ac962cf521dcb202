// RUN: not xrelay-opt %s -p relay-lower-to-llvm -t llvm 2>&1 | filecheck %s

// Lowering QNN ops that were not canonicalized: a one-line error naming the pass.
// CHECK-NOT: Traceback
// CHECK: {{.*}}not_lowered.mlir:[[# @LINE + 3]]:8: error: relay.qnn.quantize: no lowering for this op yet; run qnn-canonicalize (relay.qnn.transform.CanonicalizeOps) first
// CHECK-NOT: Traceback
func.func @main(%x: tensor<4xf32>, %s: tensor<f32>, %z: tensor<i32>) -> tensor<4xi8> {
  %q = relay.qnn.quantize %x, %s, %z : (tensor<4xf32>, tensor<f32>, tensor<i32>) -> tensor<4xi8>
  func.return %q : tensor<4xi8>
}
