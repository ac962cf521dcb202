// RUN: not xrelay-opt %s -p infer-type --split-input-file 2>&1 | filecheck %s

// A type relation that fails on inferred operand types is reported at the op.
// CHECK: {{.*}}invalid.mlir:[[# @LINE + 4]]:8: error: relay.reshape: cannot reshape [2, 3] (6 elements) to [7] (7 elements) (newshape [7]) (in pass InferType)
// CHECK-NOT: Traceback
func.func @f(%x: tensor<2x3xf32>) -> tensor<*xf32> {
  %0 = relay.nn.relu %x : (tensor<2x3xf32>) -> tensor<*xf32>
  %1 = relay.reshape %0 {newshape = array<i64: 7>} : (tensor<*xf32>) -> tensor<*xf32>
  func.return %1 : tensor<*xf32>
}
