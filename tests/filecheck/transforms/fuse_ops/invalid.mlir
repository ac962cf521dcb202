// RUN: not xrelay-opt %s -p fuse-ops 2>&1 | filecheck %s

// Negative input: an ill-typed module is reported once, at the op, with a non-zero
// exit and no traceback; the pass never sees it.
// CHECK-NOT: Traceback
// CHECK: {{.*}}invalid.mlir:[[# @LINE + 3]]:8: error: relay.nn.conv2d: {{.*}}
// CHECK-NOT: Traceback
func.func @main(%x: tensor<1x3x8x8xf32>, %w: tensor<4x5x3x3xf32>) -> tensor<1x4x6x6xf32> {
  %0 = relay.nn.conv2d %x, %w : (tensor<1x3x8x8xf32>, tensor<4x5x3x3xf32>) -> tensor<1x4x6x6xf32>
  func.return %0 : tensor<1x4x6x6xf32>
}
