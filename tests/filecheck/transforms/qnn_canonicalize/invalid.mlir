// RUN: not xrelay-opt %s -p qnn-canonicalize 2>&1 | filecheck %s

// Negative input: an ill-typed QNN op is reported once, at the op, with a non-zero
// exit and no traceback; the pass never sees it.
// CHECK-NOT: Traceback
// CHECK: {{.*}}invalid.mlir:[[# @LINE + 3]]:8: error: relay.qnn.requantize: rounding must be 'None', 'UPWARD' or 'TONEAREST', got 'HALF_UP'
// CHECK-NOT: Traceback
func.func @main(%a: tensor<4xi32>, %s: tensor<f32>, %z: tensor<i32>) -> tensor<4xi8> {
  %r = relay.qnn.requantize %a, %s, %z, %s, %z {rounding = "HALF_UP"} : (tensor<4xi32>, tensor<f32>, tensor<i32>, tensor<f32>, tensor<i32>) -> tensor<4xi8>
  func.return %r : tensor<4xi8>
}
