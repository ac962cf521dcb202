// RUN: xrelay-opt %s -p relay-to-kernels | filecheck %s

// Kernels that several threads can run (one shared-out loop nest, every store in
// it) are called by every thread with its id and the team size: here the
// elementwise ops and the softmax (its rows are shared out). A batch_matmul with
// transpose_b first transposes its operand into scratch (two loop nests), so it
// runs on thread 0 alone, called with (0, 1) after a reset of the team's chunk
// counter. Barriers separate kernels, except two in a row on thread 0 alone.
func.func @main(%x: tensor<1x4x4xf32>) -> tensor<1x4x4xf32> {
  %0 = relay.exp %x : (tensor<1x4x4xf32>) -> tensor<1x4x4xf32>
  %1 = relay.nn.batch_matmul %0, %x : (tensor<1x4x4xf32>, tensor<1x4x4xf32>) -> tensor<1x4x4xf32>
  %2 = relay.nn.batch_matmul %1, %0 : (tensor<1x4x4xf32>, tensor<1x4x4xf32>) -> tensor<1x4x4xf32>
  %3 = relay.nn.softmax %2 : (tensor<1x4x4xf32>) -> tensor<1x4x4xf32>
  func.return %3 : tensor<1x4x4xf32>
}

// CHECK:       func.func private @xrelay_barrier(!llvm.ptr)
// CHECK:       func.func @main(%tid: index, %nthreads: index, %team: !llvm.ptr,
// CHECK-DAG:     %[[ONE:.*]] = arith.constant 1 : index
// CHECK-DAG:     %[[ZERO:.*]] = arith.constant 0 : index
// CHECK:         func.call @k0_exp(%x, %{{.*}}, %tid, %nthreads, %team)
// CHECK:         func.call @xrelay_barrier(%team)
// CHECK-NEXT:    %[[FIRST:.*]] = arith.cmpi eq, %tid, %[[ZERO]] : index
// CHECK-NEXT:    scf.if %[[FIRST]] {
// CHECK-NEXT:      func.call @xrelay_reset(%team)
// CHECK-NEXT:      func.call @k1_nn_batch_matmul(%{{.*}}, %[[ZERO]], %[[ONE]], %team)
// CHECK-NEXT:    }
// CHECK-NOT:     xrelay_barrier
// CHECK:         scf.if %{{.*}} {
// CHECK-NEXT:      func.call @xrelay_reset(%team)
// CHECK-NEXT:      func.call @k1_nn_batch_matmul(%{{.*}}, %[[ZERO]], %[[ONE]], %team)
// CHECK-NEXT:    }
// CHECK:         func.call @xrelay_barrier(%team)
// CHECK-NEXT:    func.call @k2_nn_softmax(%{{.*}}, %output0, %tid, %nthreads, %team)
// CHECK-NOT:     xrelay_barrier
// CHECK:         func.return
