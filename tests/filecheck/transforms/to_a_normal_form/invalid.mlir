// RUN: not xrelay-opt %s -p to-a-normal-form 2>&1 | filecheck %s

// Negative input: an ill-typed module is reported once, at the op, with a non-zero
// exit and no traceback; the pass never sees it.
// CHECK-NOT: Traceback
// CHECK: {{.*}}invalid.mlir:[[# @LINE + 3]]:8: error: relay.add: {{.*}}
// CHECK-NOT: Traceback
func.func @main(%x: tensor<2xf32>, %y: tensor<3xf32>) -> tensor<2xf32> {
  %0 = relay.add %x, %y : (tensor<2xf32>, tensor<3xf32>) -> tensor<2xf32>
  func.return %0 : tensor<2xf32>
}
