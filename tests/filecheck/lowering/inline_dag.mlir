// RUN: xrelay-opt %s -p relay-to-kernels | filecheck %s

// An inlined value read by several consumers of one expression (the sum read by
// not_equal twice and by where: a requantize's NaN guard) is computed once per
// element, not once per read: the expression stays a DAG (one load of each input,
// one addf), and the chain after it reads it by name.
func.func private @fused_nan_guard(%p0: tensor<4xf32>, %p1: tensor<4xf32>) -> tensor<4xf32> attributes {relay.primitive} {
  %0 = relay.add %p0, %p1 : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %1 = relay.not_equal %0, %0 : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
  %z = relay.constant dense<0.0> : tensor<f32>
  %2 = relay.where %1, %z, %0 : (tensor<4xi1>, tensor<f32>, tensor<4xf32>) -> tensor<4xf32>
  %3 = relay.multiply %2, %2 : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  func.return %3 : tensor<4xf32>
}
func.func @main(%x: tensor<4xf32>, %y: tensor<4xf32>) -> tensor<4xf32> {
  %0 = func.call @fused_nan_guard(%x, %y) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  func.return %0 : tensor<4xf32>
}

// CHECK:       func.func @k0_fused_nan_guard(
// CHECK:           scf.if
// CHECK:             scf.for %[[I:[0-9]+]] = {{.*}} {
// CHECK-NEXT:        %[[A:.*]] = memref.load %0[%[[I]]] : memref<4xf32>
// CHECK-NEXT:        %[[B:.*]] = memref.load %1[%[[I]]] : memref<4xf32>
// CHECK-NEXT:        %[[S:.*]] = arith.addf %[[A]], %[[B]] : f32
// CHECK-NEXT:        %[[N:.*]] = arith.cmpf une, %[[S]], %[[S]] : f32
// CHECK-NEXT:        %[[W:.*]] = arith.select %[[N]], %{{.*}}, %[[S]] : f32
// CHECK-NEXT:        %[[M:.*]] = arith.mulf %[[W]], %[[W]] : f32
// CHECK-NEXT:        memref.store %[[M]], %2[%[[I]]] : memref<4xf32>
// CHECK-NOT:     arith.addf
// CHECK:       func.func @main(
