// Relay ops take only their own attributes: a misspelled one is a verifier error with
// a suggestion (Relay rejects unknown attributes), not silently ignored while the
// default applies. Attributes with a dialect prefix are discardable and accepted.
// RUN: xrelay-opt %s --split-input-file --verify-diagnostics
// The one-line form, at the op:
// RUN: not xrelay-opt %s --split-input-file 2>&1 | filecheck %s
// CHECK: unknown_attributes_invalid.mlir:[[# @LINE + 4]]:8: error: relay.nn.softmax: unknown attribute 'axs' (did you mean 'axis'?)

func.func @f(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // expected-error @+1 {{relay.nn.softmax: unknown attribute 'axs' (did you mean 'axis'?)}}
  %0 = relay.nn.softmax %x {axs = 1 : i64} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  func.return %0 : tensor<2x3xf32>
}

// -----

func.func @f(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // expected-error @+1 {{relay.nn.relu: unknown attribute 'alpha' (its attributes: none; an attribute of another dialect is written with its prefix, e.g. 'mydialect.x')}}
  %0 = relay.nn.relu %x {alpha = 1.0 : f64} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  func.return %0 : tensor<2x3xf32>
}

// -----

func.func @f(%x: tensor<2x3xf32>) -> tensor<3xf32> {
  // expected-error @+1 {{relay.sum: unknown attribute 'keep_dim' (did you mean 'keepdims'?)}}
  %0 = relay.sum %x {axis = array<i64: 0>, keep_dim = true} : (tensor<2x3xf32>) -> tensor<3xf32>
  func.return %0 : tensor<3xf32>
}

// -----

// The structural ops too (constant, if, yield).
func.func @f(%c: tensor<i1>) -> tensor<2xf32> {
  // expected-error @+1 {{relay.constant: unknown attribute 'vaule'}}
  %a = relay.constant dense<1.0> : tensor<2xf32> {vaule = 1 : i64}
  func.return %a : tensor<2xf32>
}

// -----

// An unknown op name gets a suggestion too.
func.func @f(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // expected-error @+1 {{Operation relay.nn.rleu is not registered (did you mean relay.nn.relu}}
  %0 = relay.nn.rleu %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
  func.return %0 : tensor<2x3xf32>
}

// -----

// Accepted: the op's own attributes, and discardable ones of other dialects.
func.func @f(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = relay.nn.softmax %x {axis = 0 : i64, mydialect.note = "kept", test.flag} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  func.return %0 : tensor<2x3xf32>
}
