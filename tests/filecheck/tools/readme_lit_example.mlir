// The test of the README's lit walk-through ("Writing a lit test"); keep the two
// in sync.
// RUN: xrelay-opt %s --split-input-file -p fold-constant | filecheck %s

// CHECK-LABEL: func.func @fold
func.func @fold(%x: tensor<2xf32>) -> tensor<2xf32> {
  // CHECK-NEXT: %[[C:.*]] = relay.constant dense<[2.000000e+00, 4.000000e+00]> : tensor<2xf32>
  // CHECK-NEXT: relay.multiply %x, %[[C]]
  %a = relay.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %b = relay.add %a, %a : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  %c = relay.multiply %x, %b : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  func.return %c : tensor<2xf32>
}

// -----

// Negative: an op with a non-constant operand is left alone.
// CHECK-LABEL: func.func @keep
func.func @keep(%x: tensor<2xf32>) -> tensor<2xf32> {
  // CHECK-NEXT: relay.constant
  // CHECK-NEXT: relay.add %x, %a
  %a = relay.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %b = relay.add %x, %a : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  func.return %b : tensor<2xf32>
}
