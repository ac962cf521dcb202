// RUN: xrelay-opt %s -p dead-code-elimination --split-input-file | filecheck %s
// RUN: xrelay-opt %s -p "dead-code-elimination{inline-once=true}" --split-input-file | filecheck %s --check-prefix=ONCE
// RUN: xrelay-opt %s -p "dead-code-elimination{ignore-impurity=true}" --split-input-file | filecheck %s --check-prefix=IGNORE

// Relay's test_dead_let / test_chain_unused_let: unused pure ops go, whole chains
// at once; used ones stay.
// CHECK-LABEL: func.func @dead_chain
// CHECK-NEXT:    %0 = relay.nn.relu %x : (tensor<2xf32>) -> tensor<2xf32>
// CHECK-NEXT:    func.return %0 : tensor<2xf32>
func.func @dead_chain(%x: tensor<2xf32>) -> tensor<2xf32> {
  %c = relay.constant dense<1.0> : tensor<2xf32>
  %a = relay.add %x, %c : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  %b = relay.exp %a : (tensor<2xf32>) -> tensor<2xf32>
  %s0, %s1 = relay.split %b {indices_or_sections = 2 : i64} : (tensor<2xf32>) -> (tensor<1xf32>, tensor<1xf32>)
  %0 = relay.nn.relu %x : (tensor<2xf32>) -> tensor<2xf32>
  func.return %0 : tensor<2xf32>
}

// -----

// Dead code inside an if goes; an unused if whose regions are pure goes too.
// CHECK-LABEL: func.func @in_regions
// CHECK-NEXT:    %0 = relay.if %cond : tensor<i1> -> (tensor<2xf32>) {
// CHECK-NEXT:      relay.yield %x : tensor<2xf32>
// CHECK-NEXT:    } else {
// CHECK-NEXT:      %1 = relay.negative %x : (tensor<2xf32>) -> tensor<2xf32>
// CHECK-NEXT:      relay.yield %1 : tensor<2xf32>
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %0 : tensor<2xf32>
func.func @in_regions(%cond: tensor<i1>, %x: tensor<2xf32>) -> tensor<2xf32> {
  %unused = relay.if %cond : tensor<i1> -> (tensor<2xf32>) {
    %u = relay.exp %x : (tensor<2xf32>) -> tensor<2xf32>
    relay.yield %u : tensor<2xf32>
  } else {
    relay.yield %x : tensor<2xf32>
  }
  %0 = relay.if %cond : tensor<i1> -> (tensor<2xf32>) {
    %dead = relay.exp %x : (tensor<2xf32>) -> tensor<2xf32>
    relay.yield %x : tensor<2xf32>
  } else {
    %1 = relay.negative %x : (tensor<2xf32>) -> tensor<2xf32>
    relay.yield %1 : tensor<2xf32>
  }
  func.return %0 : tensor<2xf32>
}

// -----

// Calls: an unused call of a pure function goes (also a recursive one, assumed
// pure as in Relay); a call of a declaration is impure and stays (unless
// ignore_impurity).
// CHECK-LABEL: func.func @calls
// CHECK-NEXT:    %0 = func.call @external(%x) : (tensor<2xf32>) -> tensor<2xf32>
// CHECK-NEXT:    func.return %x : tensor<2xf32>
// IGNORE-LABEL: func.func @calls
// IGNORE-NEXT:    func.return %x : tensor<2xf32>
func.func @calls(%x: tensor<2xf32>) -> tensor<2xf32> {
  %0 = func.call @pure(%x) : (tensor<2xf32>) -> tensor<2xf32>
  %1 = func.call @external(%x) : (tensor<2xf32>) -> tensor<2xf32>
  %2 = func.call @recursive(%x) : (tensor<2xf32>) -> tensor<2xf32>
  func.return %x : tensor<2xf32>
}
func.func @pure(%x: tensor<2xf32>) -> tensor<2xf32> {
  %0 = relay.exp %x : (tensor<2xf32>) -> tensor<2xf32>
  func.return %0 : tensor<2xf32>
}
func.func @recursive(%x: tensor<2xf32>) -> tensor<2xf32> {
  %0 = func.call @recursive(%x) : (tensor<2xf32>) -> tensor<2xf32>
  func.return %0 : tensor<2xf32>
}
func.func private @external(tensor<2xf32>) -> tensor<2xf32>

// -----

// Nothing to remove: the module is unchanged.
// CHECK-LABEL: func.func @all_live
// CHECK-NEXT:    %0 = relay.exp %x : (tensor<2xf32>) -> tensor<2xf32>
// CHECK-NEXT:    %1 = relay.add %0, %x : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
// CHECK-NEXT:    func.return %1 : tensor<2xf32>
func.func @all_live(%x: tensor<2xf32>) -> tensor<2xf32> {
  %0 = relay.exp %x : (tensor<2xf32>) -> tensor<2xf32>
  %1 = relay.add %0, %x : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  func.return %1 : tensor<2xf32>
}

// -----

// inline_once: a pure op used once, inside one branch, moves into that branch
// (Relay substitutes a single-use let into its use); without it, it stays put.
// CHECK-LABEL: func.func @sink
// CHECK-NEXT:    %0 = relay.exp %x
// CHECK-NEXT:    %1 = relay.if %cond
// ONCE-LABEL: func.func @sink
// ONCE-NEXT:    %0 = relay.if %cond : tensor<i1> -> (tensor<2xf32>) {
// ONCE-NEXT:      %1 = relay.exp %x : (tensor<2xf32>) -> tensor<2xf32>
// ONCE-NEXT:      %2 = relay.negative %1 : (tensor<2xf32>) -> tensor<2xf32>
// ONCE-NEXT:      relay.yield %2 : tensor<2xf32>
// ONCE-NEXT:    } else {
// ONCE-NEXT:      relay.yield %x : tensor<2xf32>
// ONCE-NEXT:    }
func.func @sink(%cond: tensor<i1>, %x: tensor<2xf32>) -> tensor<2xf32> {
  %0 = relay.exp %x : (tensor<2xf32>) -> tensor<2xf32>
  %1 = relay.if %cond : tensor<i1> -> (tensor<2xf32>) {
    %2 = relay.negative %0 : (tensor<2xf32>) -> tensor<2xf32>
    relay.yield %2 : tensor<2xf32>
  } else {
    relay.yield %x : tensor<2xf32>
  }
  func.return %1 : tensor<2xf32>
}
