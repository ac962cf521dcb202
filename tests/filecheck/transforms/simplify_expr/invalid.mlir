// RUN: not xrelay-opt %s -p simplify-expr 2>&1 | filecheck %s
// RUN: not xrelay-opt %s -p fold-scale-axis --opt-level 3 2>&1 | filecheck %s

// Ill-typed input is reported with its location, not rewritten.
// CHECK: {{.*}}simplify_expr{{/|\\}}invalid.mlir:7:8: error: relay.add: rhs has element type i32 but lhs has f32
func.func @main(%x: tensor<2x3xf32>, %y: tensor<3xi32>) -> tensor<2x3xf32> {
  %0 = relay.add %x, %y : (tensor<2x3xf32>, tensor<3xi32>) -> tensor<2x3xf32>
  func.return %0 : tensor<2x3xf32>
}
