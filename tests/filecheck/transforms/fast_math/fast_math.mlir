// RUN: xrelay-opt %s -p fast-math --split-input-file | filecheck %s

// Relay's test_exp / test_tanh / test_erf / test_softmax.
// CHECK-LABEL: func.func @fast
// CHECK-NEXT:    %0 = relay.fast_exp %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT:    %1 = relay.fast_tanh %0 : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT:    %2 = relay.fast_erf %1 : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT:    %3 = relay.nn.fast_softmax %2 {axis = 0 : i64} : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT:    func.return %3
func.func @fast(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = relay.exp %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %1 = relay.tanh %0 : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %2 = relay.erf %1 : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %3 = relay.nn.softmax %2 {axis = 0 : i64} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  func.return %3 : tensor<2x3xf32>
}

// -----

// Does not fire: ops without a fast form (log, sigmoid, log_softmax), and the fast
// forms themselves.
// CHECK-LABEL: func.func @untouched
// CHECK-NEXT:    %0 = relay.log %x
// CHECK-NEXT:    %1 = relay.sigmoid %0
// CHECK-NEXT:    %2 = relay.nn.log_softmax %1
// CHECK-NEXT:    %3 = relay.fast_exp %2
func.func @untouched(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = relay.log %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %1 = relay.sigmoid %0 : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %2 = relay.nn.log_softmax %1 : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %3 = relay.fast_exp %2 : (tensor<2x3xf32>) -> tensor<2x3xf32>
  func.return %3 : tensor<2x3xf32>
}
