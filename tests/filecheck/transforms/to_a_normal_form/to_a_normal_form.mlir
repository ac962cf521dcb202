// RUN: xrelay-opt %s -p to-a-normal-form --split-input-file | filecheck %s

// A chain used only by the else branch moves into it, producers before consumers;
// a value used by both branches stays outside.
// CHECK-LABEL: func.func @scoped
// CHECK-NEXT:    %e = relay.exp %x
// CHECK-NEXT:    %0 = relay.if %cond : tensor<i1> -> (tensor<2xf32>) {
// CHECK-NEXT:      relay.yield %e : tensor<2xf32>
// CHECK-NEXT:    } else {
// CHECK-NEXT:      %n = relay.negative %x
// CHECK-NEXT:      %a = relay.add %n, %e
// CHECK-NEXT:      %m = relay.multiply %a, %a
// CHECK-NEXT:      relay.yield %m : tensor<2xf32>
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %0 : tensor<2xf32>
func.func @scoped(%cond: tensor<i1>, %x: tensor<2xf32>) -> tensor<2xf32> {
  %e = relay.exp %x : (tensor<2xf32>) -> tensor<2xf32>
  %n = relay.negative %x : (tensor<2xf32>) -> tensor<2xf32>
  %a = relay.add %n, %e : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  %0 = relay.if %cond : tensor<i1> -> (tensor<2xf32>) {
    relay.yield %e : tensor<2xf32>
  } else {
    %m = relay.multiply %a, %a : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    relay.yield %m : tensor<2xf32>
  }
  func.return %0 : tensor<2xf32>
}

// -----

// Nested ifs: the value goes down to the innermost region holding its uses. A
// value also used after the if stays, and so does a call of a declaration (it may
// have effects).
// CHECK-LABEL: func.func @nested
// CHECK-NEXT:    %e = relay.exp %x
// CHECK-NEXT:    %c = func.call @external(%x)
// CHECK-NEXT:    %0 = relay.if %cond
// CHECK-NEXT:      %1 = relay.if %cond
// CHECK-NEXT:        %n = relay.negative %x
// CHECK-NEXT:        %a = relay.add %n, %c
// CHECK-NEXT:        relay.yield %a
// CHECK-NEXT:      } else {
// CHECK-NEXT:        relay.yield %e
// CHECK-NEXT:      }
// CHECK-NEXT:      relay.yield %1
// CHECK-NEXT:    } else {
// CHECK-NEXT:      relay.yield %x
// CHECK-NEXT:    }
// CHECK-NEXT:    %r = relay.add %0, %e
func.func @nested(%cond: tensor<i1>, %x: tensor<2xf32>) -> tensor<2xf32> {
  %e = relay.exp %x : (tensor<2xf32>) -> tensor<2xf32>
  %n = relay.negative %x : (tensor<2xf32>) -> tensor<2xf32>
  %c = func.call @external(%x) : (tensor<2xf32>) -> tensor<2xf32>
  %0 = relay.if %cond : tensor<i1> -> (tensor<2xf32>) {
    %1 = relay.if %cond : tensor<i1> -> (tensor<2xf32>) {
      %a = relay.add %n, %c : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
      relay.yield %a : tensor<2xf32>
    } else {
      relay.yield %e : tensor<2xf32>
    }
    relay.yield %1 : tensor<2xf32>
  } else {
    relay.yield %x : tensor<2xf32>
  }
  %r = relay.add %0, %e : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  func.return %r : tensor<2xf32>
}
func.func private @external(tensor<2xf32>) -> tensor<2xf32>
