// RUN: xrelay-opt %s -p relay-to-kernels | filecheck %s

// bfloat16 is a storage type: buffers hold its 16 bits (i16), a load widens them to
// f32 (bits << 16), the arithmetic is f32, and a store rounds to nearest even with
// integer ops (NaN quieted: bit 6 set). Weights are stored as their bits.
func.func @main(%x: tensor<3xbf16>) -> tensor<3xbf16> {
  %b = relay.constant dense<[1.0, 2.5, -3.0]> : tensor<3xbf16>
  %0 = relay.add %x, %b : (tensor<3xbf16>, tensor<3xbf16>) -> tensor<3xbf16>
  func.return %0 : tensor<3xbf16>
}

// CHECK:       "memref.global"() <{sym_name = "xrelay_weight_0", type = memref<3xi16>, initial_value = dense<[16256, 16416, -16320]> : tensor<3xi16>
// CHECK:       func.func @k0_add(%0: memref<3xi16> {llvm.noalias}, %1: memref<3xi16> {llvm.noalias}, %2: memref<3xi16> {llvm.noalias}
// CHECK-DAG:     %[[QUIET:.*]] = arith.constant 64 : i32
// CHECK-DAG:     %[[HALF:.*]] = arith.constant 32767 : i32
// CHECK-DAG:     %[[ONE:.*]] = arith.constant 1 : i32
// CHECK-DAG:     %[[SIXTEEN:.*]] = arith.constant 16 : i32
// CHECK:           %[[A16:.*]] = memref.load %0[%{{.*}}] : memref<3xi16>
// CHECK-NEXT:      %[[A32:.*]] = arith.extui %[[A16]] : i16 to i32
// CHECK-NEXT:      %[[AHI:.*]] = arith.shli %[[A32]], %[[SIXTEEN]] : i32
// CHECK-NEXT:      %[[A:.*]] = arith.bitcast %[[AHI]] : i32 to f32
// CHECK:           %[[B:.*]] = arith.bitcast %{{.*}} : i32 to f32
// CHECK-NEXT:      %[[SUM:.*]] = arith.addf %[[A]], %[[B]] : f32
// CHECK-NEXT:      %[[BITS:.*]] = arith.bitcast %[[SUM]] : f32 to i32
// CHECK-NEXT:      %[[HIGH:.*]] = arith.shrui %[[BITS]], %[[SIXTEEN]] : i32
// CHECK-NEXT:      %[[ODD:.*]] = arith.andi %[[HIGH]], %[[ONE]] : i32
// CHECK-NEXT:      %[[BIAS:.*]] = arith.addi %[[ODD]], %[[HALF]] : i32
// CHECK-NEXT:      %[[UP:.*]] = arith.addi %[[BITS]], %[[BIAS]] : i32
// CHECK-NEXT:      %[[ROUNDED:.*]] = arith.shrui %[[UP]], %[[SIXTEEN]] : i32
// CHECK-NEXT:      %[[QNAN:.*]] = arith.ori %[[HIGH]], %[[QUIET]] : i32
// CHECK-NEXT:      %[[ISNAN:.*]] = arith.cmpf uno, %[[SUM]], %[[SUM]] : f32
// CHECK-NEXT:      %[[PICK:.*]] = arith.select %[[ISNAN]], %[[QNAN]], %[[ROUNDED]] : i32
// CHECK-NEXT:      %[[OUT:.*]] = arith.trunci %[[PICK]] : i32 to i16
// CHECK-NEXT:      memref.store %[[OUT]], %2[%{{.*}}] : memref<3xi16>
// CHECK:       func.func @main(%tid: index, %nthreads: index, %team: !llvm.ptr, %x: memref<3xi16>, %output0: memref<3xi16>)
