// RUN: xrelay-opt %s -p infer-type --split-input-file | filecheck %s

// Incomplete (unranked) result types are filled in from the type relations, and the
// function signature takes its result type from func.return.
// CHECK-LABEL: func.func @fill(%x: tensor<2x3xf32>, %b: tensor<3xf32>) -> tensor<2x3xi1> {
// CHECK-NEXT:    %0 = relay.add %x, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT:    %1 = relay.nn.relu %0 : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT:    %2 = relay.less %1, %0 : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xi1>
// CHECK-NEXT:    func.return %2 : tensor<2x3xi1>
func.func @fill(%x: tensor<2x3xf32>, %b: tensor<3xf32>) -> tensor<*xi1> {
  %0 = relay.add %x, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<*xf32>
  %1 = relay.nn.relu %0 : (tensor<*xf32>) -> tensor<*xf32>
  %2 = relay.less %1, %0 : (tensor<*xf32>, tensor<*xf32>) -> tensor<*xi1>
  func.return %2 : tensor<*xi1>
}

// -----

// Multi-result ops and regions: the branches are inferred before the relay.if.
// CHECK-LABEL: func.func @regions
// CHECK:         relay.split %x {indices_or_sections = 2 : i64} : (tensor<4xf32>) -> (tensor<2xf32>, tensor<2xf32>)
// CHECK:         relay.if %c : tensor<i1> -> (tensor<2xf32>)
// CHECK:           relay.negative %a : (tensor<2xf32>) -> tensor<2xf32>
func.func @regions(%x: tensor<4xf32>, %c: tensor<i1>) -> tensor<*xf32> {
  %a, %b = relay.split %x {indices_or_sections = 2 : i64} : (tensor<4xf32>) -> (tensor<*xf32>, tensor<*xf32>)
  %r = relay.if %c : tensor<i1> -> (tensor<*xf32>) {
    %n = relay.negative %a : (tensor<*xf32>) -> tensor<*xf32>
    relay.yield %n : tensor<*xf32>
  } else {
    relay.yield %b : tensor<*xf32>
  }
  func.return %r : tensor<*xf32>
}

// -----

// Complete types are checked and left alone (the pass does not fire).
// CHECK-LABEL: func.func @complete
// CHECK-NEXT:    relay.nn.relu %x : (tensor<2xf32>) -> tensor<2xf32>
func.func @complete(%x: tensor<2xf32>) -> tensor<2xf32> {
  %0 = relay.nn.relu %x : (tensor<2xf32>) -> tensor<2xf32>
  func.return %0 : tensor<2xf32>
}
