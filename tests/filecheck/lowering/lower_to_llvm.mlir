// RUN: xrelay-opt %s -p relay-lower-to-llvm | filecheck %s
// RUN: xrelay-opt %s -p relay-lower-to-llvm -t llvm | filecheck %s --check-prefix=IR

// The whole lowering ends in the llvm dialect only: kernels with noalias pointer
// arguments, the host taking the weight table and the arena, and the entry point.
func.func @main(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %b = relay.constant dense<[1.0, 2.0, 3.0]> : tensor<3xf32>
  %0 = relay.add %x, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %1 = relay.erf %0 : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %2 = relay.maximum %1, %x : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  func.return %2 : tensor<2x3xf32>
}

// CHECK:       llvm.func @k0_add(%{{.*}}: !llvm.ptr {llvm.noalias}, %{{.*}}: !llvm.ptr {llvm.noalias}, %{{.*}}: !llvm.ptr {llvm.noalias})
// CHECK:         llvm.getelementptr %{{.*}}[%{{.*}}] : (!llvm.ptr, i64) -> !llvm.ptr, i8
// CHECK:         llvm.fadd
// CHECK:       llvm.func @k1_erf(
// CHECK:         llvm.call @erff(%{{.*}}) : (f32) -> f32
// CHECK:       llvm.func @k2_maximum(
// CHECK:         llvm.call_intrinsic "llvm.maximum.f32"
// CHECK:       llvm.func @main(%x: !llvm.ptr, %output0: !llvm.ptr, %weights: !llvm.ptr, %arena: !llvm.ptr) {
// CHECK:         %[[SLOT:.*]] = llvm.getelementptr %weights[0] : (!llvm.ptr) -> !llvm.ptr, !llvm.ptr
// CHECK-NEXT:    %[[W:.*]] = llvm.load %[[SLOT]] : !llvm.ptr -> !llvm.ptr
// CHECK:         llvm.call @k0_add(%x, %[[W]], %{{.*}})
// CHECK:       llvm.func @xrelay_entry(%{{.*}}: !llvm.ptr) {
// CHECK-COUNT-4: llvm.load
// CHECK:         llvm.call @main(
// CHECK-NOT:   func.func
// CHECK-NOT:   memref.

// IR:      define void @"k0_add"(ptr noalias %".1", ptr noalias %".2", ptr noalias %".3")
// IR:      define void @"main"(ptr %".1", ptr %".2", ptr %".3", ptr %".4")
// IR:      declare float @"erff"(float
// IR:      define void @"xrelay_entry"(ptr
// IR-NOT:  1.000000e+00
