// RUN: xrelay-opt %s -p relay-to-kernels | filecheck %s
// RUN: xrelay-opt %s -p relay-to-kernels,plan-memory | filecheck %s --check-prefix=PLAN

// A dense block in miniature: exp(x) and sin(y) are the block's first features,
// the first concatenation is shifted and relu'd (fused, as in DenseNet), a sum of
// it is the next feature, and the last concatenation of all three feeds a tanh.
// The producers write straight into one byte buffer holding the last
// concatenation (48 bytes: exp at 0, sin at 24, sum at 36); the first
// concatenation is a view of its prefix, read by the shift+relu kernel; no kernel
// copies a concatenation. A concatenation along the last axis has no contiguous
// slices: it keeps its kernel, which reads exp(x) from its slice.
func.func private @fused_exp(%p: tensor<1x2x3xf32>) -> tensor<1x2x3xf32> attributes {relay.primitive} {
  %0 = relay.exp %p : (tensor<1x2x3xf32>) -> tensor<1x2x3xf32>
  func.return %0 : tensor<1x2x3xf32>
}
func.func private @fused_sin(%p: tensor<1x1x3xf32>) -> tensor<1x1x3xf32> attributes {relay.primitive} {
  %0 = relay.sin %p : (tensor<1x1x3xf32>) -> tensor<1x1x3xf32>
  func.return %0 : tensor<1x1x3xf32>
}
func.func private @fused_concatenate_add_nn_relu(%a: tensor<1x2x3xf32>, %b: tensor<1x1x3xf32>, %s: tensor<1x3x1xf32>) -> tensor<1x3x3xf32> attributes {relay.primitive} {
  %0 = relay.concatenate %a, %b {axis = 1 : i64} : (tensor<1x2x3xf32>, tensor<1x1x3xf32>) -> tensor<1x3x3xf32>
  %1 = relay.add %0, %s : (tensor<1x3x3xf32>, tensor<1x3x1xf32>) -> tensor<1x3x3xf32>
  %2 = relay.nn.relu %1 : (tensor<1x3x3xf32>) -> tensor<1x3x3xf32>
  func.return %2 : tensor<1x3x3xf32>
}
func.func private @fused_sum(%p: tensor<1x3x3xf32>) -> tensor<1x1x3xf32> attributes {relay.primitive} {
  %0 = relay.sum %p {axis = array<i64: 1>, keepdims = true} : (tensor<1x3x3xf32>) -> tensor<1x1x3xf32>
  func.return %0 : tensor<1x1x3xf32>
}
func.func private @fused_concatenate_tanh(%a: tensor<1x2x3xf32>, %b: tensor<1x1x3xf32>, %c: tensor<1x1x3xf32>) -> tensor<1x4x3xf32> attributes {relay.primitive} {
  %0 = relay.concatenate %a, %b, %c {axis = 1 : i64} : (tensor<1x2x3xf32>, tensor<1x1x3xf32>, tensor<1x1x3xf32>) -> tensor<1x4x3xf32>
  %1 = relay.tanh %0 : (tensor<1x4x3xf32>) -> tensor<1x4x3xf32>
  func.return %1 : tensor<1x4x3xf32>
}
func.func private @fused_concatenate_exp(%a: tensor<1x2x3xf32>, %b: tensor<1x2x3xf32>) -> tensor<1x2x6xf32> attributes {relay.primitive} {
  %0 = relay.concatenate %a, %b {axis = 2 : i64} : (tensor<1x2x3xf32>, tensor<1x2x3xf32>) -> tensor<1x2x6xf32>
  %1 = relay.exp %0 : (tensor<1x2x6xf32>) -> tensor<1x2x6xf32>
  func.return %1 : tensor<1x2x6xf32>
}
func.func @main(%x: tensor<1x2x3xf32>, %y: tensor<1x1x3xf32>) -> (tensor<1x4x3xf32>, tensor<1x2x6xf32>) {
  %s = relay.constant dense<[[[1.0], [-2.0], [0.5]]]> : tensor<1x3x1xf32>
  %0 = func.call @fused_exp(%x) : (tensor<1x2x3xf32>) -> tensor<1x2x3xf32>
  %1 = func.call @fused_sin(%y) : (tensor<1x1x3xf32>) -> tensor<1x1x3xf32>
  %2 = func.call @fused_concatenate_add_nn_relu(%0, %1, %s) : (tensor<1x2x3xf32>, tensor<1x1x3xf32>, tensor<1x3x1xf32>) -> tensor<1x3x3xf32>
  %3 = func.call @fused_sum(%2) : (tensor<1x3x3xf32>) -> tensor<1x1x3xf32>
  %4 = func.call @fused_concatenate_tanh(%0, %1, %3) : (tensor<1x2x3xf32>, tensor<1x1x3xf32>, tensor<1x1x3xf32>) -> tensor<1x4x3xf32>
  %5 = func.call @fused_concatenate_exp(%0, %0) : (tensor<1x2x3xf32>, tensor<1x2x3xf32>) -> tensor<1x2x6xf32>
  func.return %4, %5 : tensor<1x4x3xf32>, tensor<1x2x6xf32>
}

// CHECK-NOT:   func.func @k{{[0-9]+}}_fused_concatenate_add_nn_relu(
// CHECK:       func.func @k2_fused_add_nn_relu(
// CHECK-NOT:   relay.concatenate
// CHECK:       func.func @main(
// CHECK-DAG:     %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG:     %[[C24:.*]] = arith.constant 24 : index
// CHECK-DAG:     %[[C36:.*]] = arith.constant 36 : index
// CHECK:         %[[BUF:.*]] = memref.alloc() {alignment = 64 : i64} : memref<48xi8>
// CHECK-NEXT:    %[[EXP:.*]] = memref.view %[[BUF]][%[[C0]]][] : memref<48xi8> to memref<1x2x3xf32>
// CHECK-NEXT:    func.call @k0_fused_exp(%x, %[[EXP]],
// CHECK-NEXT:    %[[SIN:.*]] = memref.view %[[BUF]][%[[C24]]][] : memref<48xi8> to memref<1x1x3xf32>
// CHECK-NEXT:    func.call @xrelay_barrier(%team)
// CHECK-NEXT:    func.call @k1_fused_sin(%y, %[[SIN]],
// CHECK-NEXT:    %[[FIRST:.*]] = memref.view %[[BUF]][%[[C0]]][] : memref<48xi8> to memref<1x3x3xf32>
// CHECK-NEXT:    %[[Z:.*]] = memref.alloc() {alignment = 64 : i64} : memref<1x3x3xf32>
// CHECK-NEXT:    func.call @xrelay_barrier(%team)
// CHECK-NEXT:    func.call @k2_fused_add_nn_relu(%[[FIRST]], %{{.*}}, %[[Z]],
// CHECK-NEXT:    %[[SUM:.*]] = memref.view %[[BUF]][%[[C36]]][] : memref<48xi8> to memref<1x1x3xf32>
// CHECK-NEXT:    func.call @xrelay_barrier(%team)
// CHECK-NEXT:    func.call @k3_fused_sum(%[[Z]], %[[SUM]],
// CHECK-NEXT:    memref.dealloc %[[Z]]
// CHECK-NEXT:    %[[ALL:.*]] = memref.view %[[BUF]][%[[C0]]][] : memref<48xi8> to memref<1x4x3xf32>
// CHECK-NEXT:    func.call @xrelay_barrier(%team)
// CHECK-NEXT:    func.call @k4_fused_tanh(%[[ALL]], %output0,
// CHECK-NEXT:    func.call @xrelay_barrier(%team)
// CHECK-NEXT:    func.call @k5_fused_concatenate_exp(%[[EXP]], %[[EXP]], %output1,
// CHECK-NEXT:    memref.dealloc %[[BUF]] : memref<48xi8>
// CHECK-NEXT:    func.return

// The planner places the byte buffer in the arena and its parts become views of
// the arena at the buffer's offset plus theirs; no buffer and no view of a view
// remain.
// PLAN:        func.func @main(
// PLAN-DAG:      %[[C0:.*]] = arith.constant 0 : index
// PLAN-DAG:      %[[C24:.*]] = arith.constant 24 : index
// PLAN-DAG:      %[[C36:.*]] = arith.constant 36 : index
// PLAN:          %[[ARENA:.*]] = memref.get_global @xrelay_arena : memref<128xi8>
// PLAN:          %[[EXP:.*]] = memref.view %[[ARENA]][%[[C0]]][] : memref<128xi8> to memref<1x2x3xf32>
// PLAN-NEXT:     func.call @k0_fused_exp(%x, %[[EXP]],
// PLAN-NEXT:     %[[SIN:.*]] = memref.view %[[ARENA]][%[[C24]]][] : memref<128xi8> to memref<1x1x3xf32>
// PLAN:          func.call @k1_fused_sin(%y, %[[SIN]],
// PLAN-NEXT:     %[[FIRST:.*]] = memref.view %[[ARENA]][%[[C0]]][] : memref<128xi8> to memref<1x3x3xf32>
// PLAN:          %[[SUM:.*]] = memref.view %[[ARENA]][%[[C36]]][] : memref<128xi8> to memref<1x1x3xf32>
// PLAN:          func.call @k3_fused_sum(%{{.*}}, %[[SUM]],
// PLAN-NEXT:     %[[ALL:.*]] = memref.view %[[ARENA]][%[[C0]]][] : memref<128xi8> to memref<1x4x3xf32>
// PLAN:          func.call @k4_fused_tanh(%[[ALL]], %output0,
// PLAN-NOT:      memref.alloc
// PLAN-NOT:      memref.dealloc
// PLAN:          func.return
