// RUN: xrelay-opt %s -p 'relay-to-kernels{profile=true}' | filecheck %s
// RUN: xrelay-opt %s -p relay-to-kernels | filecheck %s --check-prefix=PLAIN
// RUN: xrelay-opt %s -p 'relay-to-kernels{profile=true},plan-memory,lower-to-llvm' -t llvm | filecheck %s --check-prefix=LLVM
// RUN: xrelay-opt %s -p relay-lower-to-llvm -t llvm | filecheck %s --check-prefix=LLVM-PLAIN

// A profiled host reads the clock before and after every kernel call, by every
// thread that makes the call (inside thread 0's guard for a kernel it runs alone,
// after the barrier and the reset), into @xrelay_profile[tid][call][0 / 1]; the
// last row (here 2) is the whole host. The calls are listed in xrelay.profile.
func.func @main(%x: tensor<1x4x4xf32>) -> tensor<1x4x4xf32> {
  %0 = relay.exp %x : (tensor<1x4x4xf32>) -> tensor<1x4x4xf32>
  %1 = relay.nn.batch_matmul %0, %x : (tensor<1x4x4xf32>, tensor<1x4x4xf32>) -> tensor<1x4x4xf32>
  func.return %1 : tensor<1x4x4xf32>
}

// CHECK:       func.func private @xrelay_clock() -> i64
// CHECK:       "memref.global"() <{sym_name = "xrelay_profile", type = memref<256x3x2xi64>
// CHECK:       func.func @main(%tid: index, %nthreads: index, %team: !llvm.ptr, %x: memref<1x4x4xf32>, %output0: memref<1x4x4xf32>) attributes {xrelay.profile = "[{\22kernel\22: \22k0_exp\22, \22group\22: \22exp\22, \22ops\22: [\22exp\22], \22shapes\22: [\221x4x4\22], \22macs\22: 0, \22bytes\22: 128}, {\22kernel\22: \22k1_nn_batch_matmul\22, \22group\22: \22nn.batch_matmul\22, \22ops\22: [\22nn.batch_matmul\22], \22shapes\22: [\221x4x4\22], \22macs\22: 64, \22bytes\22: 192}]"
// CHECK-NEXT:    %[[BUF:.*]] = memref.get_global @xrelay_profile : memref<256x3x2xi64>
// CHECK-DAG:     %[[LAST:.*]] = arith.constant 2 : index
// CHECK-DAG:     %[[ONE:.*]] = arith.constant 1 : index
// CHECK-DAG:     %[[ZERO:.*]] = arith.constant 0 : index
// CHECK:         %[[T:.*]] = func.call @xrelay_clock() : () -> i64
// CHECK-NEXT:    memref.store %[[T]], %[[BUF]][%tid, %[[LAST]], %[[ZERO]]]
// CHECK:         %[[T0:.*]] = func.call @xrelay_clock() : () -> i64
// CHECK-NEXT:    memref.store %[[T0]], %[[BUF]][%tid, %[[ZERO]], %[[ZERO]]]
// CHECK-NEXT:    func.call @k0_exp(
// CHECK-NEXT:    %[[T1:.*]] = func.call @xrelay_clock() : () -> i64
// CHECK-NEXT:    memref.store %[[T1]], %[[BUF]][%tid, %[[ZERO]], %[[ONE]]]
// CHECK:         func.call @xrelay_barrier(%team)
// CHECK:         scf.if
// CHECK-NEXT:      func.call @xrelay_reset(%team)
// CHECK-NEXT:      %[[T2:.*]] = func.call @xrelay_clock() : () -> i64
// CHECK-NEXT:      memref.store %[[T2]], %[[BUF]][%tid, %[[ONE]], %[[ZERO]]]
// CHECK-NEXT:      func.call @k1_nn_batch_matmul(
// CHECK-NEXT:      %[[T3:.*]] = func.call @xrelay_clock() : () -> i64
// CHECK-NEXT:      memref.store %[[T3]], %[[BUF]][%tid, %[[ONE]], %[[ONE]]]
// CHECK-NEXT:    }
// CHECK:         %[[T4:.*]] = func.call @xrelay_clock() : () -> i64
// CHECK-NEXT:    memref.store %[[T4]], %[[BUF]][%tid, %[[LAST]], %[[ONE]]]
// CHECK-NEXT:    func.return

// Without profile=true: no clock, no buffer, no call list.
// PLAIN-NOT:   xrelay_clock
// PLAIN-NOT:   xrelay_profile
// PLAIN-NOT:   xrelay.profile
// PLAIN:       func.func @main(
// PLAIN-NOT:   xrelay_clock

// In LLVM IR, the clock is clock_gettime(CLOCK_MONOTONIC) in nanoseconds.
// LLVM:        define internal i64 @"xrelay_clock"()
// LLVM:          call i32 @"clock_gettime"(i32 1, ptr
// LLVM:        call ccc i64 @"xrelay_clock"()
// LLVM-PLAIN-NOT: xrelay_clock
// LLVM-PLAIN-NOT: clock_gettime
