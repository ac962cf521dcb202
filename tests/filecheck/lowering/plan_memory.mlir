// RUN: xrelay-opt %s -p relay-to-kernels,plan-memory | filecheck %s
// RUN: xrelay-opt %s -p plan-memory --verify-diagnostics | filecheck %s --check-prefix=NOHOST

// Four intermediates of 64 bytes, at most two alive at a time: a 128-byte arena,
// offsets 0 and 64 reused in turn; no alloc/dealloc remains.
func.func @main(%x: tensor<16xf32>) -> tensor<16xf32> {
  %0 = relay.exp %x : (tensor<16xf32>) -> tensor<16xf32>
  %1 = relay.sin %0 : (tensor<16xf32>) -> tensor<16xf32>
  %2 = relay.cos %1 : (tensor<16xf32>) -> tensor<16xf32>
  %3 = relay.tanh %2 : (tensor<16xf32>) -> tensor<16xf32>
  %4 = relay.sqrt %3 : (tensor<16xf32>) -> tensor<16xf32>
  func.return %4 : tensor<16xf32>
}

// CHECK:       "memref.global"() <{sym_name = "xrelay_arena", type = memref<128xi8>, initial_value, sym_visibility = "private", alignment = 64 : i64}>
// CHECK:       func.func @main(
// CHECK-DAG:     %[[C64:.*]] = arith.constant 64 : index
// CHECK-DAG:     %[[C0:.*]] = arith.constant 0 : index
// CHECK:         %[[A:.*]] = memref.get_global @xrelay_arena : memref<128xi8>
// CHECK-NEXT:    %[[V0:.*]] = memref.view %[[A]][%[[OFF0:.*]]][] : memref<128xi8> to memref<16xf32>
// CHECK-NEXT:    func.call @k0_exp(%x, %[[V0]], %tid, %nthreads, %team)
// CHECK-NEXT:    %[[V1:.*]] = memref.view %[[A]][%[[OFF1:.*]]][] : memref<128xi8> to memref<16xf32>
// CHECK-NEXT:    func.call @xrelay_barrier(%team)
// CHECK-NEXT:    func.call @k1_sin(%[[V0]], %[[V1]], %tid, %nthreads, %team)
// CHECK-NEXT:    %[[V2:.*]] = memref.view %[[A]][%[[OFF0]]][] : memref<128xi8> to memref<16xf32>
// CHECK-NEXT:    func.call @xrelay_barrier(%team)
// CHECK-NEXT:    func.call @k2_cos(%[[V1]], %[[V2]], %tid, %nthreads, %team)
// CHECK-NEXT:    %[[V3:.*]] = memref.view %[[A]][%[[OFF1]]][] : memref<128xi8> to memref<16xf32>
// CHECK-NEXT:    func.call @xrelay_barrier(%team)
// CHECK-NEXT:    func.call @k3_tanh(%[[V2]], %[[V3]], %tid, %nthreads, %team)
// CHECK-NEXT:    func.call @xrelay_barrier(%team)
// CHECK-NEXT:    func.call @k4_sqrt(%[[V3]], %output0, %tid, %nthreads, %team)
// CHECK-NEXT:    func.return
// CHECK-NOT:     memref.alloc

// NOHOST: plan-memory: no host function (run relay-to-kernels first)
