// The --verify-diagnostics test of the README's lit walk-through; keep the two in sync.
// RUN: xrelay-opt %s --verify-diagnostics
func.func @f(%x: tensor<2x3xf32>, %y: tensor<4xf32>) -> tensor<2x3xf32> {
  // expected-error @+1 {{relay.add: shapes [2, 3] and [4] do not broadcast}}
  %0 = relay.add %x, %y : (tensor<2x3xf32>, tensor<4xf32>) -> tensor<2x3xf32>
  func.return %0 : tensor<2x3xf32>
}
