// RUN: xrelay-opt %s -p fold-constant | filecheck %s --check-prefix=KEEP
// RUN: xrelay-opt %s -p "fold-constant{fold-qnn=true}" | filecheck %s --check-prefix=FOLD

// QNN ops on constants are folded only with fold_qnn (Relay's default keeps them for
// QnnCanonicalize); 1.25 / 0.5 = 2.5 rounds to 2, -3 / 0.5 = -6.
// KEEP-LABEL: func.func @quantize_constant
// KEEP:         %q = relay.qnn.quantize %x, %s, %z
// FOLD-LABEL: func.func @quantize_constant
// FOLD-NEXT:    %q = relay.constant dense<[2, -6]> : tensor<2xi8>
// FOLD-NEXT:    func.return %q
func.func @quantize_constant() -> tensor<2xi8> {
  %x = relay.constant dense<[1.25, -3.0]> : tensor<2xf32>
  %s = relay.constant dense<0.5> : tensor<f32>
  %z = relay.constant dense<0> : tensor<i32>
  %q = relay.qnn.quantize %x, %s, %z : (tensor<2xf32>, tensor<f32>, tensor<i32>) -> tensor<2xi8>
  func.return %q : tensor<2xi8>
}
