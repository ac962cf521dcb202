// RUN: xrelay-opt %s --split-input-file --verify-diagnostics | filecheck %s

func.func @f() -> tensor<3xf32> {
  // CHECK: relay.constant: result type tensor<3xf32> differs from the value's type tensor<2xf32>
  %0 = "relay.constant"() <{value = dense<[1.0, 2.0]> : tensor<2xf32>}> : () -> tensor<3xf32>
  func.return %0 : tensor<3xf32>
}

// -----

func.func @f(%a: tensor<2xf32>) -> tuple<tensor<3xf32>> {
  // CHECK: relay.tuple: result #0 has type tuple<tensor<3xf32>> but the type relation gives tuple<tensor<2xf32>>
  %t = relay.tuple %a : (tensor<2xf32>) -> tuple<tensor<3xf32>>
  func.return %t : tuple<tensor<3xf32>>
}

// -----

func.func @f(%t: tuple<tensor<2xf32>>) -> tensor<2xf32> {
  // CHECK: relay.tuple_get_item: index 1 is out of range for a tuple of 1 fields
  %0 = relay.tuple_get_item %t {index = 1 : i64} : (tuple<tensor<2xf32>>) -> tensor<2xf32>
  func.return %0 : tensor<2xf32>
}

// -----

func.func @f(%c: tensor<2xi1>, %a: tensor<2xf32>) -> tensor<2xf32> {
  // CHECK: relay.if: condition must be a 0-d i1 tensor, got tensor<2xi1>
  %0 = relay.if %c : tensor<2xi1> -> (tensor<2xf32>) {
    relay.yield %a : tensor<2xf32>
  } else {
    relay.yield %a : tensor<2xf32>
  }
  func.return %0 : tensor<2xf32>
}

// -----

func.func @f(%c: tensor<i1>, %a: tensor<2xf32>, %b: tensor<3xf32>) -> tensor<2xf32> {
  // CHECK: relay.if: result #0 has type tensor<2xf32> but the else region yields tensor<3xf32>
  %0 = relay.if %c : tensor<i1> -> (tensor<2xf32>) {
    relay.yield %a : tensor<2xf32>
  } else {
    relay.yield %b : tensor<3xf32>
  }
  func.return %0 : tensor<2xf32>
}

// -----

func.func @f(%c: tensor<i1>, %a: tensor<2xf32>) -> tensor<2xf32> {
  // CHECK: relay.if: the then region yields 0 values but the op has 1 results
  %0 = relay.if %c : tensor<i1> -> (tensor<2xf32>) {
    relay.yield
  } else {
    relay.yield %a : tensor<2xf32>
  }
  func.return %0 : tensor<2xf32>
}
