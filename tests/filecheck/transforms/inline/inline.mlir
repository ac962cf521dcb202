// RUN: xrelay-opt %s -p inline --split-input-file | filecheck %s

// Relay's test_call_chain_inline_leaf / multiple_call_chain: callees first, so
// @g (which calls the inline @h) becomes inlinable and everything folds into
// @main; the inlined functions are deleted.
// CHECK-LABEL: builtin.module
// CHECK-NOT:     func.func @g
// CHECK-NOT:     func.func @h
// CHECK-LABEL: func.func @main
// CHECK-SAME:      (%x: tensor<2xf32>, %y: tensor<2xf32>)
// CHECK-NEXT:    %[[H:.*]] = relay.add %x, %y : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
// CHECK-NEXT:    %[[G:.*]] = relay.multiply %[[H]], %x : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
// CHECK-NEXT:    %[[I:.*]] = relay.exp %y : (tensor<2xf32>) -> tensor<2xf32>
// CHECK-NEXT:    %[[OUT:.*]] = relay.add %[[G]], %[[I]]
// CHECK-NEXT:    func.return %[[OUT]] : tensor<2xf32>
// CHECK-NOT:     func.func
func.func @h(%a: tensor<2xf32>, %b: tensor<2xf32>) -> tensor<2xf32> attributes {relay.inline} {
  %0 = relay.add %a, %b : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  func.return %0 : tensor<2xf32>
}
func.func @g(%a: tensor<2xf32>, %b: tensor<2xf32>) -> tensor<2xf32> attributes {relay.inline} {
  %0 = func.call @h(%a, %b) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  %1 = relay.multiply %0, %a : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  func.return %1 : tensor<2xf32>
}
func.func @identity_exp(%a: tensor<2xf32>) -> tensor<2xf32> attributes {relay.inline} {
  %0 = relay.exp %a : (tensor<2xf32>) -> tensor<2xf32>
  func.return %0 : tensor<2xf32>
}
func.func @main(%x: tensor<2xf32>, %y: tensor<2xf32>) -> tensor<2xf32> {
  %0 = func.call @g(%x, %y) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  %1 = func.call @identity_exp(%y) : (tensor<2xf32>) -> tensor<2xf32>
  %2 = relay.add %0, %1 : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  func.return %2 : tensor<2xf32>
}

// -----

// A callee returning its parameter, and a call inside an if region.
// CHECK-LABEL: func.func @main
// CHECK-NEXT:    %0 = relay.if %c : tensor<i1> -> (tensor<2xf32>) {
// CHECK-NEXT:      relay.yield %x : tensor<2xf32>
// CHECK-NEXT:    } else {
// CHECK-NEXT:      relay.yield %x : tensor<2xf32>
// CHECK-NEXT:    }
// CHECK-NOT:     func.func @pass_through
func.func @pass_through(%a: tensor<2xf32>) -> tensor<2xf32> attributes {relay.inline} {
  func.return %a : tensor<2xf32>
}
func.func @main(%c: tensor<i1>, %x: tensor<2xf32>) -> tensor<2xf32> {
  %0 = relay.if %c : tensor<i1> -> (tensor<2xf32>) {
    %1 = func.call @pass_through(%x) : (tensor<2xf32>) -> tensor<2xf32>
    relay.yield %1 : tensor<2xf32>
  } else {
    relay.yield %x : tensor<2xf32>
  }
  func.return %0 : tensor<2xf32>
}

// -----

// Does not fire: a callee without relay.inline; a recursive inline function; an
// inline function calling a non-inline one (not a leaf); an inline function that
// nobody calls (an entry) stays.
// CHECK-LABEL: func.func @plain
// CHECK-LABEL: func.func @rec
// CHECK-NEXT:    func.call @rec
// CHECK-LABEL: func.func @calls_plain
// CHECK-NEXT:    func.call @plain
// CHECK-LABEL: func.func @entry
// CHECK-LABEL: func.func @main
// CHECK-NEXT:    %0 = func.call @plain(%x)
// CHECK-NEXT:    %1 = func.call @rec(%0)
// CHECK-NEXT:    %2 = func.call @calls_plain(%1)
func.func @plain(%a: tensor<2xf32>) -> tensor<2xf32> {
  func.return %a : tensor<2xf32>
}
func.func @rec(%a: tensor<2xf32>) -> tensor<2xf32> attributes {relay.inline} {
  %0 = func.call @rec(%a) : (tensor<2xf32>) -> tensor<2xf32>
  func.return %0 : tensor<2xf32>
}
func.func @calls_plain(%a: tensor<2xf32>) -> tensor<2xf32> attributes {relay.inline} {
  %0 = func.call @plain(%a) : (tensor<2xf32>) -> tensor<2xf32>
  func.return %0 : tensor<2xf32>
}
func.func @entry(%a: tensor<2xf32>) -> tensor<2xf32> attributes {relay.inline} {
  func.return %a : tensor<2xf32>
}
func.func @main(%x: tensor<2xf32>) -> tensor<2xf32> {
  %0 = func.call @plain(%x) : (tensor<2xf32>) -> tensor<2xf32>
  %1 = func.call @rec(%0) : (tensor<2xf32>) -> tensor<2xf32>
  %2 = func.call @calls_plain(%1) : (tensor<2xf32>) -> tensor<2xf32>
  func.return %2 : tensor<2xf32>
}

// -----

// Relay's *_extern_compiler cases: an Inline function for an external compiler is
// not spliced; its caller calls a copy of its own (Relay's call of the function
// literal, written as the relay builder writes one: @<caller>_fn). When that caller
// is itself inlined, the literal follows it into @main; @h and @g are deleted.
// CHECK-LABEL: builtin.module
// CHECK-NOT:     func.func @h(
// CHECK-NOT:     func.func @g(
// CHECK:         func.func @main_fn(%a: tensor<2xf32>) -> tensor<2xf32> attributes {relay.inline, Compiler = "dnnl"} {
// CHECK-NEXT:      %0 = relay.negative %a
// CHECK:         func.func @main(%x: tensor<2xf32>) -> tensor<2xf32> {
// CHECK-NEXT:      %0 = func.call @main_fn(%x)
// CHECK-NEXT:      %1 = relay.add %x, %0
// CHECK-NEXT:      func.return %1
// CHECK-NOT:     func.func
func.func @h(%a: tensor<2xf32>) -> tensor<2xf32> attributes {relay.inline, Compiler = "dnnl"} {
  %0 = relay.negative %a : (tensor<2xf32>) -> tensor<2xf32>
  func.return %0 : tensor<2xf32>
}
func.func @g(%a: tensor<2xf32>) -> tensor<2xf32> attributes {relay.inline} {
  %0 = func.call @h(%a) : (tensor<2xf32>) -> tensor<2xf32>
  %1 = relay.add %a, %0 : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  func.return %1 : tensor<2xf32>
}
func.func @main(%x: tensor<2xf32>) -> tensor<2xf32> {
  %0 = func.call @g(%x) : (tensor<2xf32>) -> tensor<2xf32>
  func.return %0 : tensor<2xf32>
}
