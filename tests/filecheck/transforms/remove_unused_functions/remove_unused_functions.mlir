// RUN: xrelay-opt %s -p remove-unused-functions --split-input-file | filecheck %s
// RUN: xrelay-opt %s -p "remove-unused-functions{entry-functions=main,extra}" --split-input-file | filecheck %s --check-prefix=EXTRA
// RUN: xrelay-opt %s -p "remove-unused-functions{entry-functions=nothere}" --split-input-file --verify-diagnostics | filecheck %s --check-prefix=MISSING

// Relay's test_remove_all_prelude_functions / test_remove_unused: only what main
// reaches (directly, through another function, or from an if region) stays.
// CHECK-LABEL: builtin.module
// CHECK-NEXT:    func.func @leaf
// CHECK-NEXT:      func.return
// CHECK-NEXT:    }
// CHECK-NEXT:    func.func @middle
// CHECK:         func.func @in_branch
// CHECK:         func.func @main
// CHECK-NOT:     func.func @unused
// CHECK-NOT:     func.func @extra
// EXTRA:         func.func @leaf
// EXTRA:         func.func @unused
// EXTRA:         func.func @extra
// EXTRA:         func.func @main
// MISSING: RemoveUnusedFunctions: the entry function @nothere is not in the module (functions: @leaf, @middle, @unused, @in_branch, @extra, @main)
func.func @leaf(%a: tensor<2xf32>) -> tensor<2xf32> {
  func.return %a : tensor<2xf32>
}
func.func @middle(%a: tensor<2xf32>) -> tensor<2xf32> {
  %0 = func.call @leaf(%a) : (tensor<2xf32>) -> tensor<2xf32>
  func.return %0 : tensor<2xf32>
}
func.func @unused(%a: tensor<2xf32>) -> tensor<2xf32> {
  %0 = func.call @leaf(%a) : (tensor<2xf32>) -> tensor<2xf32>
  func.return %0 : tensor<2xf32>
}
func.func @in_branch(%a: tensor<2xf32>) -> tensor<2xf32> {
  func.return %a : tensor<2xf32>
}
func.func @extra(%a: tensor<2xf32>) -> tensor<2xf32> {
  %0 = func.call @unused(%a) : (tensor<2xf32>) -> tensor<2xf32>
  func.return %0 : tensor<2xf32>
}
func.func @main(%c: tensor<i1>, %x: tensor<2xf32>) -> tensor<2xf32> {
  %0 = func.call @middle(%x) : (tensor<2xf32>) -> tensor<2xf32>
  %1 = relay.if %c : tensor<i1> -> (tensor<2xf32>) {
    %2 = func.call @in_branch(%0) : (tensor<2xf32>) -> tensor<2xf32>
    relay.yield %2 : tensor<2xf32>
  } else {
    relay.yield %0 : tensor<2xf32>
  }
  func.return %1 : tensor<2xf32>
}

// -----

// Does not fire: every function is reachable.
// CHECK-LABEL: builtin.module
// CHECK-NEXT:    func.func @extra
// CHECK:         func.func @helper
// CHECK:         func.func @main
func.func @extra(%a: tensor<2xf32>) -> tensor<2xf32> {
  func.return %a : tensor<2xf32>
}
func.func @helper(%a: tensor<2xf32>) -> tensor<2xf32> {
  %0 = func.call @extra(%a) : (tensor<2xf32>) -> tensor<2xf32>
  func.return %0 : tensor<2xf32>
}
func.func @main(%x: tensor<2xf32>) -> tensor<2xf32> {
  %0 = func.call @helper(%x) : (tensor<2xf32>) -> tensor<2xf32>
  func.return %0 : tensor<2xf32>
}
