// RUN: env -u XRELAY_SHARE_MIN_NS XRELAY_OVERLAP_MAX_NS=200000 XRELAY_NUM_THREADS=2 xrelay-opt %s -p relay-to-kernels | filecheck %s
// RUN: env -u XRELAY_SHARE_MIN_NS -u XRELAY_OVERLAP_MAX_NS XRELAY_NUM_THREADS=2 xrelay-opt %s -p relay-to-kernels | filecheck %s --check-prefix=OFF
// RUN: env -u XRELAY_SHARE_MIN_NS XRELAY_NUM_THREADS=2 XRELAY_OVERLAP_MAX_NS=0 xrelay-opt %s -p relay-to-kernels | filecheck %s --check-prefix=OFF
// RUN: env -u XRELAY_SHARE_MIN_NS XRELAY_OVERLAP_MAX_NS=200000 XRELAY_NUM_THREADS=1 xrelay-opt %s -p relay-to-kernels | filecheck %s --check-prefix=OFF
// RUN: not env XRELAY_OVERLAP_MAX_NS=x xrelay-opt %s -p relay-to-kernels 2>&1 | filecheck %s --check-prefix=BAD

// With a bound on the calls that may overlap (off by default: the second RUN),
// two independent branches (exp -> negative, sqrt -> tanh), each about 50 us by
// the estimate, joined by an add. Shared, each call would cost half its time plus
// a barrier; side by side the branches cost one branch and one barrier. So thread
// 0 runs the first branch and thread 1 (slot 1: `1 mod nthreads`) the second, with
// its own chunk counter (xrelay_solo_team), and the add waits at one barrier. The
// buffer of exp, last read by the first branch, is freed only after the segment:
// the second branch runs meanwhile and must not be given its memory.
func.func @main(%x: tensor<1x64x56x56xf32>) -> tensor<1x64x56x56xf32> {
  %0 = relay.exp %x : (tensor<1x64x56x56xf32>) -> tensor<1x64x56x56xf32>
  %1 = relay.negative %0 : (tensor<1x64x56x56xf32>) -> tensor<1x64x56x56xf32>
  %2 = relay.sqrt %x : (tensor<1x64x56x56xf32>) -> tensor<1x64x56x56xf32>
  %3 = relay.tanh %2 : (tensor<1x64x56x56xf32>) -> tensor<1x64x56x56xf32>
  %4 = relay.add %1, %3 : (tensor<1x64x56x56xf32>, tensor<1x64x56x56xf32>) -> tensor<1x64x56x56xf32>
  func.return %4 : tensor<1x64x56x56xf32>
}

// CHECK:       func.func private @xrelay_solo_team(!llvm.ptr, index) -> !llvm.ptr
// CHECK:       func.func @main(%tid: index, %nthreads: index, %team: !llvm.ptr,
// CHECK-DAG:     %[[ONE:.*]] = arith.constant 1 : index
// CHECK-DAG:     %[[ZERO:.*]] = arith.constant 0 : index
// CHECK:         %[[EXP:.*]] = memref.alloc()
// CHECK:         %[[FIRST:.*]] = arith.cmpi eq, %tid, %[[ZERO]]
// CHECK-NEXT:    scf.if %[[FIRST]] {
// CHECK-NEXT:      func.call @xrelay_reset(%team)
// CHECK-NEXT:      func.call @k0_exp(%x, %[[EXP]], %[[ZERO]], %[[ONE]], %team)
// CHECK-NOT:     xrelay_barrier
// CHECK:           func.call @k1_negative(%[[EXP]], %{{.*}}, %[[ZERO]], %[[ONE]], %team)
// CHECK-NOT:     memref.dealloc %[[EXP]]
// CHECK-NOT:     xrelay_barrier
// CHECK:         %[[SLOT:.*]] = arith.remui %[[ONE]], %nthreads
// CHECK-NEXT:    %[[MINE:.*]] = arith.cmpi eq, %tid, %[[SLOT]]
// CHECK-NEXT:    scf.if %[[MINE]] {
// CHECK-NEXT:      %[[SOLO:.*]] = func.call @xrelay_solo_team(%team, %[[ONE]])
// CHECK-NEXT:      func.call @xrelay_reset(%[[SOLO]])
// CHECK-NEXT:      func.call @k2_sqrt(%x, %{{.*}}, %[[ZERO]], %[[ONE]], %[[SOLO]])
// CHECK-NOT:     memref.dealloc %[[EXP]]
// CHECK-NOT:     xrelay_barrier
// CHECK:           func.call @k3_tanh({{.*}}, %[[ZERO]], %[[ONE]], %{{.*}})
// CHECK:         memref.dealloc %[[EXP]]
// CHECK:         func.call @xrelay_barrier(%team)
// CHECK-NEXT:    func.call @k4_add({{.*}}, %tid, %nthreads, %team)
// CHECK:         func.return

// OFF-NOT:     xrelay_solo_team
// OFF:         func.call @k4_add
// OFF-NOT:     xrelay_solo_team

// BAD: XRELAY_OVERLAP_MAX_NS must be an integer from 0 to 1000000000, got 'x'
