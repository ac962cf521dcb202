// RUN: xrelay-opt %s -p relay-to-kernels | filecheck %s

// A function fused by FuseOps is one kernel; its elementwise ops are computed inline
// (no intermediate buffer) and its scalar constant is an arith.constant. A reshape in
// the host is a view of its operand.
func.func private @fused_add_multiply(%p0: tensor<4xf32>, %p1: tensor<4xf32>) -> tensor<4xf32> attributes {relay.primitive} {
  %0 = relay.add %p0, %p1 : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %c = relay.constant dense<3.0> : tensor<f32>
  %1 = relay.multiply %0, %c : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  func.return %1 : tensor<4xf32>
}
func.func @main(%x: tensor<4xf32>, %y: tensor<4xf32>) -> tensor<2x2xf32> {
  %0 = func.call @fused_add_multiply(%x, %y) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %1 = relay.reshape %0 {newshape = array<i64: 2, 2>} : (tensor<4xf32>) -> tensor<2x2xf32>
  %2 = relay.exp %1 : (tensor<2x2xf32>) -> tensor<2x2xf32>
  func.return %2 : tensor<2x2xf32>
}

// CHECK:       func.func @k0_fused_add_multiply(%0: memref<4xf32> {llvm.noalias}, %1: memref<4xf32> {llvm.noalias}, %2: memref<4xf32> {llvm.noalias}, %tid: index, %nthreads: index, %team: !llvm.ptr) {
// CHECK-DAG:     %[[C:.*]] = arith.constant 3.000000e+00 : f32
// CHECK:         func.call @xrelay_claim
// CHECK:           scf.for %[[I:.*]] = {{.*}} {
// CHECK-NEXT:        %[[A:.*]] = memref.load %0[%[[I]]] : memref<4xf32>
// CHECK-NEXT:        %[[B:.*]] = memref.load %1[%[[I]]] : memref<4xf32>
// CHECK-NEXT:        %[[S:.*]] = arith.addf %[[A]], %[[B]] : f32
// CHECK-NEXT:        %[[M:.*]] = arith.mulf %[[S]], %[[C]] : f32
// CHECK-NEXT:        memref.store %[[M]], %2[%[[I]]] : memref<4xf32>
// CHECK:       func.func @main(
// CHECK:         %[[T:.*]] = memref.alloc() {alignment = 64 : i64} : memref<4xf32>
// CHECK-NEXT:    func.call @k0_fused_add_multiply(%x, %y, %[[T]], %tid, %nthreads, %team)
// CHECK-NEXT:    %[[V:.*]] = memref.reinterpret_cast %[[T]] to offset: [0], sizes: [2, 2], strides: [2, 1] : memref<4xf32> to memref<2x2xf32>
// CHECK-NEXT:    func.call @xrelay_barrier(%team)
// CHECK-NEXT:    func.call @k1_exp(%[[V]], %output0, %tid, %nthreads, %team)
// CHECK-NEXT:    memref.dealloc %[[T]] : memref<4xf32>
