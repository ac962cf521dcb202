// RUN: env -u XRELAY_SHARE_MIN_NS xrelay-opt %s -p relay-to-kernels | filecheck %s
// RUN: env XRELAY_SHARE_MIN_NS=1000000000 xrelay-opt %s -p relay-to-kernels | filecheck %s --check-prefix=NONE
// RUN: not env XRELAY_SHARE_MIN_NS=-1 xrelay-opt %s -p relay-to-kernels 2>&1 | filecheck %s --check-prefix=BAD

// A kernel call is shared between the team's threads only when its estimated
// one-thread time reaches the threshold (4 us by default): the small exp runs on
// thread 0 alone, the large add (800k elements) on every thread, and the small
// negate after it on thread 0 again, after a barrier. Two small kernels in a row
// need no barrier between them.
func.func @main(%x: tensor<1x4x4xf32>, %y: tensor<1x64x112x112xf32>) -> (tensor<1x4x4xf32>, tensor<1x64x112x112xf32>) {
  %0 = relay.exp %x : (tensor<1x4x4xf32>) -> tensor<1x4x4xf32>
  %1 = relay.sqrt %0 : (tensor<1x4x4xf32>) -> tensor<1x4x4xf32>
  %2 = relay.add %y, %y : (tensor<1x64x112x112xf32>, tensor<1x64x112x112xf32>) -> tensor<1x64x112x112xf32>
  %3 = relay.negative %1 : (tensor<1x4x4xf32>) -> tensor<1x4x4xf32>
  %4 = relay.add %3, %1 : (tensor<1x4x4xf32>, tensor<1x4x4xf32>) -> tensor<1x4x4xf32>
  func.return %4, %2 : tensor<1x4x4xf32>, tensor<1x64x112x112xf32>
}

// CHECK:       func.func @main(%tid: index, %nthreads: index, %team: !llvm.ptr,
// CHECK-DAG:     %[[ONE:.*]] = arith.constant 1 : index
// CHECK-DAG:     %[[ZERO:.*]] = arith.constant 0 : index
// CHECK:         scf.if
// CHECK-NEXT:      func.call @xrelay_reset(%team)
// CHECK-NEXT:      func.call @{{.*}}(%x, %{{.*}}, %[[ZERO]], %[[ONE]], %team)
// CHECK-NEXT:    }
// CHECK:         func.call @xrelay_barrier(%team)
// CHECK-NEXT:    func.call @{{.*}}add(%y, %y, %output1, %tid, %nthreads, %team)
// CHECK:         func.call @xrelay_barrier(%team)
// CHECK:         scf.if
// CHECK-NEXT:      func.call @xrelay_reset(%team)
// CHECK-NEXT:      func.call @{{.*}}(%{{.*}}, %[[ZERO]], %[[ONE]], %team)
// CHECK-NEXT:    }
// CHECK-NOT:     xrelay_barrier
// CHECK:         func.return

// NONE-NOT:      %tid, %nthreads, %team)
// NONE:          func.return

// BAD: XRELAY_SHARE_MIN_NS must be an integer from 0 to 1000000000, got '-1'
