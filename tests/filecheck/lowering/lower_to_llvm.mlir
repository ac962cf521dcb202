// RUN: xrelay-opt %s -p relay-lower-to-llvm | filecheck %s
// RUN: xrelay-opt %s -p relay-lower-to-llvm -t llvm | filecheck %s --check-prefix=IR
// RUN: xdsl-opt %s -p relay-lower-to-llvm -t xrelay-llvm | filecheck %s --check-prefix=IR

// The whole lowering ends in the llvm dialect only: kernels with noalias pointer
// arguments and the thread id and count (an element is read through a typed,
// inbounds getelementptr at its linear index), the host taking its thread arguments, the
// weight table and the arena (barriers between kernels), and one thread's entry,
// xrelay_run. The translation to LLVM IR adds the thread team: the barrier,
// xrelay_entry(args, nthreads) (which starts the persistent workers the first time
// and never joins them), the workers, xrelay_shutdown (which joins them) and the
// destructor that calls it. An f32 erf is an inline polynomial
// (FMAs), not a call of libm's erff.
func.func @main(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %b = relay.constant dense<[1.0, 2.0, 3.0]> : tensor<3xf32>
  %0 = relay.add %x, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %1 = relay.erf %0 : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %2 = relay.maximum %1, %x : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  func.return %2 : tensor<2x3xf32>
}

// CHECK:       llvm.func @xrelay_barrier(!llvm.ptr)
// CHECK:       llvm.func @k0_add(%{{.*}}: !llvm.ptr {llvm.noalias}, %{{.*}}: !llvm.ptr {llvm.noalias}, %{{.*}}: !llvm.ptr {llvm.noalias}, %tid: i64, %nthreads: i64, %team: !llvm.ptr)
// CHECK:         llvm.getelementptr inbounds %{{.*}}[%{{.*}}] : (!llvm.ptr, i64) -> !llvm.ptr, f32
// CHECK:         llvm.fadd
// CHECK:       llvm.func @k1_erf(
// CHECK-NOT:     llvm.call @erff
// CHECK:         llvm.call_intrinsic "llvm.fma.f32"
// CHECK-NOT:     llvm.call @erff
// CHECK:       llvm.func @k2_maximum(
// CHECK:         llvm.call_intrinsic "llvm.maximum.f32"
// CHECK:       llvm.func @main(%[[TID:.*]]: i64, %[[N:.*]]: i64, %[[TEAM:.*]]: !llvm.ptr, %x: !llvm.ptr, %output0: !llvm.ptr, %weights: !llvm.ptr, %arena: !llvm.ptr) {
// CHECK:         %[[SLOT:.*]] = llvm.getelementptr %weights[0] : (!llvm.ptr) -> !llvm.ptr, !llvm.ptr
// CHECK-NEXT:    %[[W:.*]] = llvm.load %[[SLOT]] : !llvm.ptr -> !llvm.ptr
// CHECK:         llvm.call @k0_add(%x, %[[W]], %{{.*}}, %[[TID]], %[[N]], %[[TEAM]])
// CHECK:         llvm.call @xrelay_barrier(%[[TEAM]])
// CHECK:         llvm.call @k1_erf(
// CHECK:         llvm.call @xrelay_barrier(%[[TEAM]])
// CHECK:         llvm.call @k2_maximum(
// CHECK-NOT:     llvm.call @xrelay_barrier
// CHECK:       llvm.func @xrelay_run(%{{.*}}: !llvm.ptr, %{{.*}}: i64, %{{.*}}: i64, %{{.*}}: !llvm.ptr) {
// CHECK-COUNT-4: llvm.load
// CHECK:         llvm.call @main(
// CHECK-NOT:   func.func
// CHECK-NOT:   memref.

// IR:      define internal void @"xrelay_barrier"(ptr
// IR:        atomicrmw add
// IR:      define internal i64 @"xrelay_claim"(ptr
// IR:      define internal void @"k0_add"(ptr noalias %".1", ptr noalias %".2", ptr noalias %".3", i64 %".4", i64 %".5", ptr %".6")
// IR:        call ccc i64 @"xrelay_claim"
// IR:      define internal void @"main"(i64 %".1", i64 %".2", ptr %".3", ptr %".4", ptr %".5", ptr %".6", ptr %".7")
// IR-NOT:  @"erff"
// IR:      define internal void @"xrelay_run"(ptr
// IR:      define void @"xrelay_entry"(ptr %"args", i64 %"nthreads")
// IR:        call i32 @"getpid"()
// IR:        cmpxchg ptr %{{.*}}, i64 0, i64 %{{.*}} acquire monotonic
// IR:        call i32 @"pthread_create"(ptr %{{.*}}, ptr null, ptr (ptr)* @"xrelay_worker", ptr
// IR-NOT:    @"pthread_join"
// IR:        call void @"xrelay_run"(ptr %"args", i64 0,
// IR:      @"xrelay_pool" = internal global {{.*}} zeroinitializer, align 64
// IR:      define internal ptr @"xrelay_worker"(ptr
// IR:        call void @"xrelay_run"(
// IR:      define void @"xrelay_shutdown"()
// IR:        call i32 @"pthread_join"
// IR:      define internal void @"xrelay_pool_dtor"()
// IR-NEXT: {
// IR-NEXT: entry:
// IR-NEXT:   call void @"xrelay_shutdown"()
// IR:      @"llvm.global_dtors" = appending global [1 x {i32, ptr, ptr}] [{i32, ptr, ptr} {i32 65535, void ()* @"xrelay_pool_dtor", ptr null}]
// IR-NOT:  1.000000e+00
