// RUN: xrelay-opt %s -p eliminate-common-subexpr --split-input-file | filecheck %s

// Relay's test_simple: relu(x) twice, then + 1.0 twice (equal scalar constants):
// everything merges bottom-up, leaving y + y.
// CHECK-LABEL: func.func @simple
// CHECK-NEXT:    %[[R:.*]] = relay.nn.relu %x : (tensor<1x16xf32>) -> tensor<1x16xf32>
// CHECK-NEXT:    %[[C:.*]] = relay.constant dense<1.000000e+00> : tensor<f32>
// CHECK-NEXT:    %[[A:.*]] = relay.add %[[R]], %[[C]] : (tensor<1x16xf32>, tensor<f32>) -> tensor<1x16xf32>
// CHECK-NEXT:    %[[S:.*]] = relay.add %[[A]], %[[A]] : (tensor<1x16xf32>, tensor<1x16xf32>) -> tensor<1x16xf32>
// CHECK-NEXT:    func.return %[[S]] : tensor<1x16xf32>
func.func @simple(%x: tensor<1x16xf32>) -> tensor<1x16xf32> {
  %0 = relay.nn.relu %x : (tensor<1x16xf32>) -> tensor<1x16xf32>
  %1 = relay.nn.relu %x : (tensor<1x16xf32>) -> tensor<1x16xf32>
  %c0 = relay.constant dense<1.0> : tensor<f32>
  %2 = relay.add %0, %c0 : (tensor<1x16xf32>, tensor<f32>) -> tensor<1x16xf32>
  %c1 = relay.constant dense<1.0> : tensor<f32>
  %3 = relay.add %1, %c1 : (tensor<1x16xf32>, tensor<f32>) -> tensor<1x16xf32>
  %4 = relay.add %2, %3 : (tensor<1x16xf32>, tensor<1x16xf32>) -> tensor<1x16xf32>
  func.return %4 : tensor<1x16xf32>
}

// -----

// Relay's test_tuple_arg: equal tuples (here: equal variadic operands) merge too.
// CHECK-LABEL: func.func @tuple_arg
// CHECK-NEXT:    %[[R:.*]] = relay.nn.relu %x
// CHECK-NEXT:    %[[C:.*]] = relay.constant dense<1.000000e+00> : tensor<1x16xf32>
// CHECK-NEXT:    %[[J:.*]] = relay.concatenate %[[R]], %[[C]] :
// CHECK-NEXT:    %[[T:.*]] = relay.tuple %[[J]], %[[C]]
// CHECK-NEXT:    %[[G:.*]] = relay.tuple_get_item %[[T]] {index = 0 : i64}
// CHECK-NEXT:    %[[S:.*]] = relay.add %[[G]], %[[G]]
// CHECK-NEXT:    func.return %[[S]]
func.func @tuple_arg(%x: tensor<1x16xf32>) -> tensor<2x16xf32> {
  %0 = relay.nn.relu %x : (tensor<1x16xf32>) -> tensor<1x16xf32>
  %1 = relay.nn.relu %x : (tensor<1x16xf32>) -> tensor<1x16xf32>
  %c = relay.constant dense<1.0> : tensor<1x16xf32>
  %2 = relay.concatenate %0, %c {axis = 0 : i64} : (tensor<1x16xf32>, tensor<1x16xf32>) -> tensor<2x16xf32>
  %3 = relay.concatenate %1, %c {axis = 0 : i64} : (tensor<1x16xf32>, tensor<1x16xf32>) -> tensor<2x16xf32>
  %t0 = relay.tuple %2, %c : (tensor<2x16xf32>, tensor<1x16xf32>) -> tuple<tensor<2x16xf32>, tensor<1x16xf32>>
  %t1 = relay.tuple %3, %c : (tensor<2x16xf32>, tensor<1x16xf32>) -> tuple<tensor<2x16xf32>, tensor<1x16xf32>>
  %4 = relay.tuple_get_item %t0 {index = 0 : i64} : (tuple<tensor<2x16xf32>, tensor<1x16xf32>>) -> tensor<2x16xf32>
  %5 = relay.tuple_get_item %t1 {index = 0 : i64} : (tuple<tensor<2x16xf32>, tensor<1x16xf32>>) -> tensor<2x16xf32>
  %6 = relay.add %4, %5 : (tensor<2x16xf32>, tensor<2x16xf32>) -> tensor<2x16xf32>
  func.return %6 : tensor<2x16xf32>
}

// -----

// Relay's test_tuple_get_item: the same projection twice merges (on a tuple; a
// multi-result op's results are SSA values already).
// CHECK-LABEL: func.func @tuple_get_item
// CHECK-NEXT:    %t = relay.tuple %x, %x
// CHECK-NEXT:    %[[G:.*]] = relay.tuple_get_item %t {index = 1 : i64}
// CHECK-NEXT:    %{{.*}} = relay.add %[[G]], %[[G]]
func.func @tuple_get_item(%x: tensor<2xf32>) -> tensor<2xf32> {
  %t = relay.tuple %x, %x : (tensor<2xf32>, tensor<2xf32>) -> tuple<tensor<2xf32>, tensor<2xf32>>
  %0 = relay.tuple_get_item %t {index = 1 : i64} : (tuple<tensor<2xf32>, tensor<2xf32>>) -> tensor<2xf32>
  %1 = relay.tuple_get_item %t {index = 1 : i64} : (tuple<tensor<2xf32>, tensor<2xf32>>) -> tensor<2xf32>
  %2 = relay.add %0, %1 : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  func.return %2 : tensor<2xf32>
}

// -----

// Does not fire: different attributes, different operands, different constants,
// different projections, ops without operands, calls.
// CHECK-LABEL: func.func @different
// CHECK-NEXT:    %0 = relay.sum %x {axis = array<i64: 0>}
// CHECK-NEXT:    %1 = relay.sum %x {axis = array<i64: 1>}
// CHECK-NEXT:    %2 = relay.sum %x {axis = array<i64: 0>, keepdims = true}
// CHECK-NEXT:    %3 = relay.nn.relu %x
// CHECK-NEXT:    %4 = relay.nn.relu %y
// CHECK-NEXT:    %5 = relay.constant dense<1.000000e+00> : tensor<f32>
// CHECK-NEXT:    %6 = relay.constant dense<2.000000e+00> : tensor<f32>
// CHECK-NEXT:    %7 = relay.constant dense<1.000000e+00> : tensor<f64>
// CHECK-NEXT:    %t = relay.tuple %x, %x
// CHECK-NEXT:    %8 = relay.tuple_get_item %t {index = 0 : i64}
// CHECK-NEXT:    %9 = relay.tuple_get_item %t {index = 1 : i64}
// CHECK-NEXT:    %10 = relay.zeros
// CHECK-NEXT:    %11 = relay.zeros
// CHECK-NEXT:    %12 = func.call @f(%x)
// CHECK-NEXT:    %13 = func.call @f(%x)
func.func @different(%x: tensor<2x3xf32>, %y: tensor<2x3xf32>) -> (tensor<3xf32>, tensor<2xf32>, tensor<1x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<f32>, tensor<f32>, tensor<f64>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2x3xf32>, tensor<2x3xf32>) {
  %0 = relay.sum %x {axis = array<i64: 0>} : (tensor<2x3xf32>) -> tensor<3xf32>
  %1 = relay.sum %x {axis = array<i64: 1>} : (tensor<2x3xf32>) -> tensor<2xf32>
  %2 = relay.sum %x {axis = array<i64: 0>, keepdims = true} : (tensor<2x3xf32>) -> tensor<1x3xf32>
  %3 = relay.nn.relu %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %4 = relay.nn.relu %y : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %5 = relay.constant dense<1.0> : tensor<f32>
  %6 = relay.constant dense<2.0> : tensor<f32>
  %7 = relay.constant dense<1.0> : tensor<f64>
  %t = relay.tuple %x, %x : (tensor<2x3xf32>, tensor<2x3xf32>) -> tuple<tensor<2x3xf32>, tensor<2x3xf32>>
  %8 = relay.tuple_get_item %t {index = 0 : i64} : (tuple<tensor<2x3xf32>, tensor<2x3xf32>>) -> tensor<2x3xf32>
  %9 = relay.tuple_get_item %t {index = 1 : i64} : (tuple<tensor<2x3xf32>, tensor<2x3xf32>>) -> tensor<2x3xf32>
  %10 = relay.zeros {shape = array<i64: 2>, dtype = f32} : tensor<2xf32>
  %11 = relay.zeros {shape = array<i64: 2>, dtype = f32} : tensor<2xf32>
  %12 = func.call @f(%x) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %13 = func.call @f(%x) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  func.return %0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13 : tensor<3xf32>, tensor<2xf32>, tensor<1x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<f32>, tensor<f32>, tensor<f64>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2x3xf32>, tensor<2x3xf32>
}
func.func @f(%a: tensor<2x3xf32>) -> tensor<2x3xf32> {
  func.return %a : tensor<2x3xf32>
}

// -----

// An explicit default equals an absent attribute.
// CHECK-LABEL: func.func @defaults
// CHECK-NEXT:    %[[S:.*]] = relay.nn.softmax %x
// CHECK-NEXT:    %{{.*}} = relay.add %[[S]], %[[S]]
func.func @defaults(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = relay.nn.softmax %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %1 = relay.nn.softmax %x {axis = -1 : i64} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %2 = relay.add %0, %1 : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  func.return %2 : tensor<2x3xf32>
}

// -----

// Scopes: an op in a branch reuses an equal op before the if; equal ops in the two
// branches stay apart; an op after the if does not reuse one from a branch.
// CHECK-LABEL: func.func @scopes
// CHECK-NEXT:    %[[E:.*]] = relay.exp %x
// CHECK-NEXT:    %[[IF:.*]] = relay.if %cond : tensor<i1> -> (tensor<2xf32>) {
// CHECK-NEXT:      %[[A:.*]] = relay.abs %x
// CHECK-NEXT:      %[[S:.*]] = relay.add %[[E]], %[[A]]
// CHECK-NEXT:      relay.yield %[[S]] : tensor<2xf32>
// CHECK-NEXT:    } else {
// CHECK-NEXT:      %[[B:.*]] = relay.abs %x
// CHECK-NEXT:      relay.yield %[[B]] : tensor<2xf32>
// CHECK-NEXT:    }
// CHECK-NEXT:    %[[A2:.*]] = relay.abs %x
// CHECK-NEXT:    %{{.*}} = relay.add %[[IF]], %[[A2]]
func.func @scopes(%cond: tensor<i1>, %x: tensor<2xf32>) -> tensor<2xf32> {
  %0 = relay.exp %x : (tensor<2xf32>) -> tensor<2xf32>
  %1 = relay.if %cond : tensor<i1> -> (tensor<2xf32>) {
    %e = relay.exp %x : (tensor<2xf32>) -> tensor<2xf32>
    %a = relay.abs %x : (tensor<2xf32>) -> tensor<2xf32>
    %s = relay.add %e, %a : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    relay.yield %s : tensor<2xf32>
  } else {
    %b = relay.abs %x : (tensor<2xf32>) -> tensor<2xf32>
    relay.yield %b : tensor<2xf32>
  }
  %2 = relay.abs %x : (tensor<2xf32>) -> tensor<2xf32>
  %3 = relay.add %1, %2 : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  func.return %3 : tensor<2xf32>
}
