// RUN: xrelay-opt %s -p relay-to-kernels | filecheck %s

// One kernel per op (no FuseOps here): loops on memrefs; the host allocates the
// intermediate, frees it after its last use and writes the result into the output.
func.func @main(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %b = relay.constant dense<[1.0, 2.0, 3.0]> : tensor<3xf32>
  %0 = relay.add %x, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %1 = relay.nn.relu %0 : (tensor<2x3xf32>) -> tensor<2x3xf32>
  func.return %1 : tensor<2x3xf32>
}

// CHECK:       "memref.global"() <{sym_name = "xrelay_weight_0", type = memref<3xf32>, initial_value = dense<[1.000000e+00, 2.000000e+00, 3.000000e+00]> : tensor<3xf32>, sym_visibility = "private", constant
// CHECK:       func.func @k0_add(%0: memref<2x3xf32> {llvm.noalias}, %1: memref<3xf32> {llvm.noalias}, %2: memref<2x3xf32> {llvm.noalias}, %tid: index, %nthreads: index, %team: !llvm.ptr) {
// The threads share out the 6 outputs: each claims chunks of them from the team
// (about 4 chunks per thread), until none is left.
// CHECK:         scf.for %{{.*}} = %{{.*}} to %[[ROUNDS:.*]] step %{{.*}} {
// CHECK-NEXT:      %[[CHUNK64:.*]] = arith.index_cast %[[CHUNK:.*]] : index to i64
// CHECK-NEXT:      %[[CLAIMED:.*]] = func.call @xrelay_claim(%team, %[[CHUNK64]]) : (!llvm.ptr, i64) -> i64
// CHECK-NEXT:      %[[START:.*]] = arith.index_cast %[[CLAIMED]] : i64 to index
// CHECK-NEXT:      %[[LEFT:.*]] = arith.cmpi ult, %[[START]], %{{.*}} : index
// CHECK-NEXT:      scf.if %[[LEFT]] {
// CHECK-NEXT:        %[[END:.*]] = arith.addi %[[START]], %[[CHUNK]] : index
// CHECK-NEXT:        %[[STOP:.*]] = arith.minsi %[[END]], %{{.*}} : index
// CHECK-NEXT:        scf.for %[[F:.*]] = %[[START]] to %[[STOP]] step %{{.*}} {
// CHECK-NEXT:          %[[J:.*]] = arith.remui %[[F]], %{{.*}} : index
// CHECK-NEXT:          %[[I:.*]] = arith.divui %[[F]], %{{.*}} : index
// CHECK-NEXT:          %[[A:.*]] = memref.load %0[%[[I]], %[[J]]] : memref<2x3xf32>
// CHECK-NEXT:          %[[B:.*]] = memref.load %1[%[[J]]] : memref<3xf32>
// CHECK-NEXT:          %[[S:.*]] = arith.addf %[[A]], %[[B]] : f32
// CHECK-NEXT:          memref.store %[[S]], %2[%[[I]], %[[J]]] : memref<2x3xf32>
// CHECK:       func.func @k1_nn_relu(
// CHECK:         arith.cmpf olt
// CHECK:         arith.select
// CHECK:       func.func @main(%tid: index, %nthreads: index, %team: !llvm.ptr, %x: memref<2x3xf32>, %output0: memref<2x3xf32>) attributes {{{.*}}xrelay.host, xrelay.work = 12 : i64}
// CHECK-NEXT:    %[[W:.*]] = memref.get_global @xrelay_weight_0 : memref<3xf32>
// CHECK-NEXT:    %[[T:.*]] = memref.alloc() {alignment = 64 : i64} : memref<2x3xf32>
// CHECK-NEXT:    func.call @k0_add(%x, %[[W]], %[[T]], %tid, %nthreads, %team)
// CHECK-NEXT:    func.call @xrelay_barrier(%team)
// CHECK-NEXT:    func.call @k1_nn_relu(%[[T]], %output0, %tid, %nthreads, %team)
// CHECK-NEXT:    memref.dealloc %[[T]] : memref<2x3xf32>
// CHECK-NEXT:    func.return

// -----
