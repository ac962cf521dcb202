// RUN: xrelay-opt %s -p fold-constant --split-input-file | filecheck %s
// RUN: xrelay-opt %s -p simplify-inference,fold-constant --split-input-file | filecheck %s --check-prefix=BN

// Relay's test_fold_const: (c + c) * 2 folds; x + ... and ... + c stay.
// CHECK-LABEL: func.func @fold_const
// CHECK-SAME:      (%x: tensor<1x2x3xf32>)
// CHECK-NEXT:    %c = relay.constant dense<[1.000000e+00, 2.000000e+00, 3.000000e+00]> : tensor<3xf32>
// CHECK-NEXT:    %0 = relay.constant dense<[4.000000e+00, 8.000000e+00, 1.200000e+01]> : tensor<3xf32>
// CHECK-NEXT:    %1 = relay.add %x, %0 : (tensor<1x2x3xf32>, tensor<3xf32>) -> tensor<1x2x3xf32>
// CHECK-NEXT:    %2 = relay.add %1, %c : (tensor<1x2x3xf32>, tensor<3xf32>) -> tensor<1x2x3xf32>
// CHECK-NEXT:    func.return %2 : tensor<1x2x3xf32>
func.func @fold_const(%x: tensor<1x2x3xf32>) -> tensor<1x2x3xf32> {
  %c = relay.constant dense<[1.0, 2.0, 3.0]> : tensor<3xf32>
  %0 = relay.add %c, %c : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  %two = relay.constant dense<2.0> : tensor<f32>
  %1 = relay.multiply %0, %two : (tensor<3xf32>, tensor<f32>) -> tensor<3xf32>
  %2 = relay.add %x, %1 : (tensor<1x2x3xf32>, tensor<3xf32>) -> tensor<1x2x3xf32>
  %3 = relay.add %2, %c : (tensor<1x2x3xf32>, tensor<3xf32>) -> tensor<1x2x3xf32>
  func.return %3 : tensor<1x2x3xf32>
}

// -----

// Relay's test_fold_tuple: (x, c).1 + c folds to a constant; (x, c).0 is x.
// CHECK-LABEL: func.func @fold_tuple
// CHECK-NEXT:    %0 = relay.constant dense<2.000000e+00> : tensor<1xf32>
// CHECK-NEXT:    %1 = relay.add %0, %x : (tensor<1xf32>, tensor<1xf32>) -> tensor<1xf32>
// CHECK-NEXT:    func.return %1 : tensor<1xf32>
func.func @fold_tuple(%x: tensor<1xf32>) -> tensor<1xf32> {
  %c = relay.constant dense<1.0> : tensor<1xf32>
  %t = relay.tuple %x, %c : (tensor<1xf32>, tensor<1xf32>) -> tuple<tensor<1xf32>, tensor<1xf32>>
  %0 = relay.tuple_get_item %t {index = 1 : i64} : (tuple<tensor<1xf32>, tensor<1xf32>>) -> tensor<1xf32>
  %1 = relay.add %0, %c : (tensor<1xf32>, tensor<1xf32>) -> tensor<1xf32>
  %2 = relay.tuple_get_item %t {index = 0 : i64} : (tuple<tensor<1xf32>, tensor<1xf32>>) -> tensor<1xf32>
  %3 = relay.add %1, %2 : (tensor<1xf32>, tensor<1xf32>) -> tensor<1xf32>
  func.return %3 : tensor<1xf32>
}

// -----

// Relay's test_fold_concat / test_concatenate_const.
// CHECK-LABEL: func.func @fold_concat
// CHECK-NEXT:    %0 = relay.constant dense<{{\[}}[1.000000e+00, 2.000000e+00, 3.000000e+00], [1.000000e+00, 2.000000e+00, 3.000000e+00]]> : tensor<2x3xf32>
// CHECK-NEXT:    func.return %0 : tensor<2x3xf32>
func.func @fold_concat() -> tensor<2x3xf32> {
  %a = relay.constant dense<[[1.0, 2.0, 3.0]]> : tensor<1x3xf32>
  %b = relay.constant dense<[[1.0, 2.0, 3.0]]> : tensor<1x3xf32>
  %0 = relay.concatenate %a, %b {axis = 0 : i64} : (tensor<1x3xf32>, tensor<1x3xf32>) -> tensor<2x3xf32>
  func.return %0 : tensor<2x3xf32>
}

// -----

// Relay's test_fold_if: a constant condition picks its branch, which then folds.
// CHECK-LABEL: func.func @fold_if_true
// CHECK-NEXT:    %0 = relay.constant dense<{{\[}}[2.000000e+00, 4.000000e+00, 6.000000e+00]]> : tensor<1x3xf32>
// CHECK-NEXT:    func.return %0 : tensor<1x3xf32>
func.func @fold_if_true() -> tensor<1x3xf32> {
  %cond = relay.constant dense<true> : tensor<i1>
  %x = relay.constant dense<[[1.0, 2.0, 3.0]]> : tensor<1x3xf32>
  %0 = relay.if %cond : tensor<i1> -> (tensor<1x3xf32>) {
    %1 = relay.add %x, %x : (tensor<1x3xf32>, tensor<1x3xf32>) -> tensor<1x3xf32>
    relay.yield %1 : tensor<1x3xf32>
  } else {
    %2 = relay.subtract %x, %x : (tensor<1x3xf32>, tensor<1x3xf32>) -> tensor<1x3xf32>
    relay.yield %2 : tensor<1x3xf32>
  }
  func.return %0 : tensor<1x3xf32>
}

// CHECK-LABEL: func.func @fold_if_false
// CHECK-NEXT:    %0 = relay.constant dense<0.000000e+00> : tensor<1x3xf32>
// CHECK-NEXT:    func.return %0 : tensor<1x3xf32>
func.func @fold_if_false() -> tensor<1x3xf32> {
  %cond = relay.constant dense<false> : tensor<i1>
  %x = relay.constant dense<[[1.0, 2.0, 3.0]]> : tensor<1x3xf32>
  %0 = relay.if %cond : tensor<i1> -> (tensor<1x3xf32>) {
    %1 = relay.add %x, %x : (tensor<1x3xf32>, tensor<1x3xf32>) -> tensor<1x3xf32>
    relay.yield %1 : tensor<1x3xf32>
  } else {
    %2 = relay.subtract %x, %x : (tensor<1x3xf32>, tensor<1x3xf32>) -> tensor<1x3xf32>
    relay.yield %2 : tensor<1x3xf32>
  }
  func.return %0 : tensor<1x3xf32>
}

// A branch that yields a value defined before the if.
// CHECK-LABEL: func.func @fold_if_outer_value
// CHECK-SAME:      (%x: tensor<2xf32>)
// CHECK-NEXT:    func.return %x : tensor<2xf32>
func.func @fold_if_outer_value(%x: tensor<2xf32>) -> tensor<2xf32> {
  %cond = relay.constant dense<false> : tensor<i1>
  %0 = relay.if %cond : tensor<i1> -> (tensor<2xf32>) {
    %1 = relay.negative %x : (tensor<2xf32>) -> tensor<2xf32>
    relay.yield %1 : tensor<2xf32>
  } else {
    relay.yield %x : tensor<2xf32>
  }
  func.return %0 : tensor<2xf32>
}

// -----

// A non-constant condition: the if stays, its branches fold inside.
// CHECK-LABEL: func.func @if_unknown_condition
// CHECK-NEXT:    %0 = relay.if %cond : tensor<i1> -> (tensor<2xf32>) {
// CHECK-NEXT:      %1 = relay.constant dense<2.000000e+00> : tensor<2xf32>
// CHECK-NEXT:      relay.yield %1 : tensor<2xf32>
// CHECK-NEXT:    } else {
// CHECK-NEXT:      relay.yield %x : tensor<2xf32>
// CHECK-NEXT:    }
func.func @if_unknown_condition(%cond: tensor<i1>, %x: tensor<2xf32>) -> tensor<2xf32> {
  %c = relay.constant dense<1.0> : tensor<2xf32>
  %0 = relay.if %cond : tensor<i1> -> (tensor<2xf32>) {
    %1 = relay.add %c, %c : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    relay.yield %1 : tensor<2xf32>
  } else {
    relay.yield %x : tensor<2xf32>
  }
  func.return %0 : tensor<2xf32>
}

// -----

// Relay's test_fold_shape_of, for an integer and a float dtype.
// CHECK-LABEL: func.func @fold_shape_of
// CHECK-NEXT:    %0 = relay.constant dense<[8, 9, 10]> : tensor<3xi32>
// CHECK-NEXT:    %1 = relay.constant dense<[8, 9, 10]> : tensor<3xi64>
// CHECK-NEXT:    func.return %0, %1 : tensor<3xi32>, tensor<3xi64>
func.func @fold_shape_of(%x: tensor<8x9x10xf32>, %y: tensor<8x9x10xf32>) -> (tensor<3xi32>, tensor<3xi64>) {
  %0 = relay.add %x, %y : (tensor<8x9x10xf32>, tensor<8x9x10xf32>) -> tensor<8x9x10xf32>
  %1 = relay.shape_of %0 : (tensor<8x9x10xf32>) -> tensor<3xi32>
  %2 = relay.shape_of %0 {dtype = i64} : (tensor<8x9x10xf32>) -> tensor<3xi64>
  func.return %1, %2 : tensor<3xi32>, tensor<3xi64>
}

// A dynamic dim: shape_of stays.
// CHECK-LABEL: func.func @shape_of_dynamic
// CHECK-NEXT:    %0 = relay.shape_of %x : (tensor<?x3xf32>) -> tensor<2xi32>
func.func @shape_of_dynamic(%x: tensor<?x3xf32>) -> tensor<2xi32> {
  %0 = relay.shape_of %x : (tensor<?x3xf32>) -> tensor<2xi32>
  func.return %0 : tensor<2xi32>
}

// -----

// An op with several results folds to one constant per result.
// CHECK-LABEL: func.func @fold_split
// CHECK-NEXT:    %0 = relay.constant dense<[1, 2]> : tensor<2xi32>
// CHECK-NEXT:    %1 = relay.constant dense<[3, 4]> : tensor<2xi32>
// CHECK-NEXT:    func.return %1, %0 : tensor<2xi32>, tensor<2xi32>
func.func @fold_split() -> (tensor<2xi32>, tensor<2xi32>) {
  %c = relay.constant dense<[1, 2, 3, 4]> : tensor<4xi32>
  %0, %1 = relay.split %c {indices_or_sections = 2 : i64} : (tensor<4xi32>) -> (tensor<2xi32>, tensor<2xi32>)
  func.return %1, %0 : tensor<2xi32>, tensor<2xi32>
}

// -----

// Does not fire: creators (zeros, ones, full: Relay's heuristic), non-constant
// operands, calls.
// CHECK-LABEL: func.func @not_folded
// CHECK-NEXT:    %z = relay.zeros {shape = array<i64: 4, 5>, dtype = f32} : tensor<4x5xf32>
// CHECK-NEXT:    %o = relay.ones {shape = array<i64: 4, 5>, dtype = f32} : tensor<4x5xf32>
// CHECK-NEXT:    %v = relay.constant dense<2.000000e+00> : tensor<f32>
// CHECK-NEXT:    %f = relay.full %v {shape = array<i64: 4, 5>} : (tensor<f32>) -> tensor<4x5xf32>
// CHECK-NEXT:    %0 = relay.add %z, %o : (tensor<4x5xf32>, tensor<4x5xf32>) -> tensor<4x5xf32>
// CHECK-NEXT:    %1 = relay.multiply %0, %f : (tensor<4x5xf32>, tensor<4x5xf32>) -> tensor<4x5xf32>
// CHECK-NEXT:    %2 = relay.add %1, %x : (tensor<4x5xf32>, tensor<4x5xf32>) -> tensor<4x5xf32>
// CHECK-NEXT:    %3 = func.call @id(%v) : (tensor<f32>) -> tensor<f32>
func.func @not_folded(%x: tensor<4x5xf32>) -> (tensor<4x5xf32>, tensor<f32>) {
  %z = relay.zeros {shape = array<i64: 4, 5>, dtype = f32} : tensor<4x5xf32>
  %o = relay.ones {shape = array<i64: 4, 5>, dtype = f32} : tensor<4x5xf32>
  %v = relay.constant dense<2.0> : tensor<f32>
  %f = relay.full %v {shape = array<i64: 4, 5>} : (tensor<f32>) -> tensor<4x5xf32>
  %0 = relay.add %z, %o : (tensor<4x5xf32>, tensor<4x5xf32>) -> tensor<4x5xf32>
  %1 = relay.multiply %0, %f : (tensor<4x5xf32>, tensor<4x5xf32>) -> tensor<4x5xf32>
  %2 = relay.add %1, %x : (tensor<4x5xf32>, tensor<4x5xf32>) -> tensor<4x5xf32>
  %3 = func.call @id(%v) : (tensor<f32>) -> tensor<f32>
  func.return %2, %3 : tensor<4x5xf32>, tensor<f32>
}
func.func @id(%a: tensor<f32>) -> tensor<f32> {
  func.return %a : tensor<f32>
}

// -----

// Nothing is folded inside a fused kernel (relay.primitive).
// CHECK-LABEL: func.func @kernel
// CHECK-NEXT:    %c = relay.constant dense<1.000000e+00> : tensor<2xf32>
// CHECK-NEXT:    %0 = relay.add %c, %c : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
func.func @kernel(%x: tensor<2xf32>) -> tensor<2xf32> attributes {relay.primitive} {
  %c = relay.constant dense<1.0> : tensor<2xf32>
  %0 = relay.add %c, %c : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  %1 = relay.add %x, %0 : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  func.return %1 : tensor<2xf32>
}

// -----

// Relay's test_fold_batch_norm: after SimplifyInference the batch_norm statistics
// are constants and fold into one scale and one shift.
// BN-LABEL: func.func @fold_batch_norm
// BN-NEXT:    %[[CONV:.*]] = relay.nn.conv2d %data, %w
// BN-NEXT:    %[[S:.*]] = relay.constant dense<{{\[\[\[5.000000e-01\]\], \[\[2.500000e-01\]\]\]}}> : tensor<2x1x1xf32>
// BN-NEXT:    %[[Y:.*]] = relay.multiply %[[CONV]], %[[S]]
// BN-NEXT:    %[[T:.*]] = relay.constant dense<{{\[\[\[5.000000e-01\]\], \[\[-1.000000e\+00\]\]\]}}> : tensor<2x1x1xf32>
// BN-NEXT:    %[[OUT:.*]] = relay.add %[[Y]], %[[T]]
// BN-NEXT:    func.return %[[OUT]]
func.func @fold_batch_norm(%data: tensor<1x1x4x4xf32>, %w: tensor<2x1x3x3xf32>) -> tensor<1x2x2x2xf32> {
  %gamma = relay.constant dense<[1.0, 1.0]> : tensor<2xf32>
  %beta = relay.constant dense<[0.5, 0.0]> : tensor<2xf32>
  %mean = relay.constant dense<[0.0, 4.0]> : tensor<2xf32>
  %var = relay.constant dense<[4.0, 16.0]> : tensor<2xf32>
  %0 = relay.nn.conv2d %data, %w : (tensor<1x1x4x4xf32>, tensor<2x1x3x3xf32>) -> tensor<1x2x2x2xf32>
  %1, %2, %3 = relay.nn.batch_norm %0, %gamma, %beta, %mean, %var {epsilon = 0.0 : f64} : (tensor<1x2x2x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> (tensor<1x2x2x2xf32>, tensor<2xf32>, tensor<2xf32>)
  func.return %1 : tensor<1x2x2x2xf32>
}

// -----

// Relay's test_fold_dropout: nn.dropout is stateful, so FoldConstant leaves it alone
// even on a constant; SimplifyInference removes it and the rest folds.
// CHECK-LABEL: func.func @fold_dropout
// CHECK:         relay.nn.dropout %c
// BN-LABEL: func.func @fold_dropout
// BN-NEXT:    %{{.*}} = relay.constant dense<[2.000000e+00, 4.000000e+00]> : tensor<2xf32>
// BN-NEXT:    func.return
func.func @fold_dropout() -> tensor<2xf32> {
  %c = relay.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %0, %mask = relay.nn.dropout %c : (tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>)
  %1 = relay.add %0, %0 : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  func.return %1 : tensor<2xf32>
}
