// RUN: xrelay-opt %s -p infer-type --split-input-file --verify-diagnostics | filecheck %s
// RUN: not xrelay-opt %s -p infer-type --split-input-file 2>&1 | filecheck %s --check-prefix=LOC

// add does not determine an untyped operand (Relay's broadcast relation cannot
// either): a one-line error at the op, naming the variable.
// LOC: untyped_params_invalid.mlir:[[# @LINE + 4]]:8: error: cannot infer the type of %w (a variable without a type): relay.add does not determine it; give it a type
// LOC-NOT: Traceback
func.func @add(%x: tensor<2xf32>, %w: tensor<*xnone>) -> tensor<*xnone> {
  // CHECK: cannot infer the type of %w (a variable without a type): relay.add does not determine it
  %0 = relay.add %x, %w : (tensor<2xf32>, tensor<*xnone>) -> tensor<*xnone>
  func.return %0 : tensor<*xnone>
}

// -----

// No use determines it: the first op left incomplete is named.
func.func @chain(%x: tensor<2xf32>, %w: tensor<*xnone>) -> tensor<*xnone> {
  // CHECK: cannot infer the type of %w (a variable without a type): relay.nn.relu does not determine it
  %0 = relay.nn.relu %w : (tensor<*xnone>) -> tensor<*xnone>
  %1 = relay.multiply %x, %0 : (tensor<2xf32>, tensor<*xnone>) -> tensor<*xnone>
  func.return %1 : tensor<*xnone>
}

// -----

// conv2d without channels/kernel_size does not determine its weight (as in Relay).
func.func @conv(%x: tensor<1x3x8x8xf32>, %w: tensor<*xnone>) -> tensor<*xnone> {
  // CHECK: cannot infer the type of %w (a variable without a type): relay.nn.conv2d does not determine it
  %0 = relay.nn.conv2d %x, %w : (tensor<1x3x8x8xf32>, tensor<*xnone>) -> tensor<*xnone>
  func.return %0 : tensor<*xnone>
}

// -----

// An unused untyped parameter has no use to take a type from.
// CHECK: cannot infer the type of %u (a variable without a type): no use in @unused determines it
func.func @unused(%x: tensor<2xf32>, %u: tensor<*xnone>) -> tensor<2xf32> {
  func.return %x : tensor<2xf32>
}
