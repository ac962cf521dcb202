// RUN: not xrelay-opt %s -p defuse-ops 2>&1 | filecheck %s

// Primitive functions that call each other recursively cannot be inlined.

// CHECK: error: @main: cannot inline @k: primitive functions call each other recursively (k -> k) (in pass DefuseOps)
func.func private @k(%p0: tensor<3xf32>) -> tensor<3xf32> attributes {relay.primitive} {
  %0 = func.call @k(%p0) : (tensor<3xf32>) -> tensor<3xf32>
  func.return %0 : tensor<3xf32>
}
func.func @main(%x: tensor<3xf32>) -> tensor<3xf32> {
  %0 = func.call @k(%x) : (tensor<3xf32>) -> tensor<3xf32>
  func.return %0 : tensor<3xf32>
}
