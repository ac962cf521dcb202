// RUN: xrelay-opt %s --split-input-file -p fuse-ops | filecheck %s
// RUN: xrelay-opt %s --split-input-file -p 'fuse-ops{fuse-opt-level=0}' | filecheck %s --check-prefix=L0

// conv2d + bias_add + relu: one kernel (the anchor takes the elementwise chain).

// CHECK:      func.func private @fused_nn_conv2d_nn_bias_add_nn_relu(%p0: tensor<1x3x8x8xf32>, %p1: tensor<8x3x3x3xf32>, %p2: tensor<8xf32>) -> tensor<1x8x8x8xf32> attributes {relay.primitive} {
// CHECK-NEXT:   %0 = relay.nn.conv2d %p0, %p1
// CHECK-NEXT:   %1 = relay.nn.bias_add %0, %p2
// CHECK-NEXT:   %2 = relay.nn.relu %1
// CHECK-NEXT:   func.return %2 : tensor<1x8x8x8xf32>
// CHECK-NEXT: }
// CHECK-LABEL: func.func @conv_bias_relu(
// CHECK-NEXT:   %0 = func.call @fused_nn_conv2d_nn_bias_add_nn_relu(%x, %w, %b) : (tensor<1x3x8x8xf32>, tensor<8x3x3x3xf32>, tensor<8xf32>) -> tensor<1x8x8x8xf32>
// CHECK-NEXT:   func.return %0 : tensor<1x8x8x8xf32>

// L0:      func.func private @fused_nn_conv2d(%p0: tensor<1x3x8x8xf32>, %p1: tensor<8x3x3x3xf32>) -> tensor<1x8x8x8xf32> attributes {relay.primitive}
// L0:      func.func private @fused_nn_bias_add(%p0: tensor<1x8x8x8xf32>, %p1: tensor<8xf32>) -> tensor<1x8x8x8xf32> attributes {relay.primitive}
// L0:      func.func private @fused_nn_relu(%p0: tensor<1x8x8x8xf32>) -> tensor<1x8x8x8xf32> attributes {relay.primitive}
// L0-LABEL: func.func @conv_bias_relu(
// L0-NEXT:   %0 = func.call @fused_nn_conv2d(%x, %w)
// L0-NEXT:   %1 = func.call @fused_nn_bias_add(%0, %b)
// L0-NEXT:   %2 = func.call @fused_nn_relu(%1)
// L0-NEXT:   func.return %2
func.func @conv_bias_relu(%x: tensor<1x3x8x8xf32>, %w: tensor<8x3x3x3xf32>, %b: tensor<8xf32>) -> tensor<1x8x8x8xf32> {
  %0 = relay.nn.conv2d %x, %w {padding = array<i64: 1, 1, 1, 1>} : (tensor<1x3x8x8xf32>, tensor<8x3x3x3xf32>) -> tensor<1x8x8x8xf32>
  %1 = relay.nn.bias_add %0, %b : (tensor<1x8x8x8xf32>, tensor<8xf32>) -> tensor<1x8x8x8xf32>
  %2 = relay.nn.relu %1 : (tensor<1x8x8x8xf32>) -> tensor<1x8x8x8xf32>
  func.return %2 : tensor<1x8x8x8xf32>
}

// -----

// A diamond: conv2d's post-dominator is the add where its two elementwise
// branches meet, so everything is one kernel; the scalar constant is fused too.

// CHECK:      func.func private @fused_nn_conv2d_nn_relu_exp_add_multiply(%p0: tensor<1x4x6x6xf32>, %p1: tensor<4x4x3x3xf32>) -> tensor<1x4x6x6xf32> attributes {relay.primitive} {
// CHECK-NEXT:   %0 = relay.nn.conv2d %p0, %p1
// CHECK-NEXT:   %1 = relay.nn.relu %0
// CHECK-NEXT:   %2 = relay.exp %0
// CHECK-NEXT:   %3 = relay.add %1, %2
// CHECK-NEXT:   %c = relay.constant dense<2.000000e+00> : tensor<f32>
// CHECK-NEXT:   %4 = relay.multiply %3, %c
// CHECK-NEXT:   func.return %4
// CHECK-LABEL: func.func @diamond(
// CHECK-NEXT:   %0 = func.call @fused_nn_conv2d_nn_relu_exp_add_multiply(%x, %w)
// CHECK-NEXT:   func.return %0

// at level 0 the scalar constant stays in the caller and is passed in
// L0-LABEL: func.func @diamond(
// L0:         %[[C:.*]] = relay.constant dense<2.000000e+00> : tensor<f32>
// L0:         func.call @fused_multiply(%{{.*}}, %[[C]])
func.func @diamond(%x: tensor<1x4x6x6xf32>, %w: tensor<4x4x3x3xf32>) -> tensor<1x4x6x6xf32> {
  %0 = relay.nn.conv2d %x, %w {padding = array<i64: 1, 1, 1, 1>} : (tensor<1x4x6x6xf32>, tensor<4x4x3x3xf32>) -> tensor<1x4x6x6xf32>
  %1 = relay.nn.relu %0 : (tensor<1x4x6x6xf32>) -> tensor<1x4x6x6xf32>
  %2 = relay.exp %0 : (tensor<1x4x6x6xf32>) -> tensor<1x4x6x6xf32>
  %3 = relay.add %1, %2 : (tensor<1x4x6x6xf32>, tensor<1x4x6x6xf32>) -> tensor<1x4x6x6xf32>
  %c = relay.constant dense<2.0> : tensor<f32>
  %4 = relay.multiply %3, %c : (tensor<1x4x6x6xf32>, tensor<f32>) -> tensor<1x4x6x6xf32>
  func.return %4 : tensor<1x4x6x6xf32>
}

// -----

// concatenate with injective and elementwise inputs: they all join its kernel; the
// pooling anchor does not (its consumer is not elementwise).

// CHECK:      func.func private @fused_nn_max_pool2d(%p0: tensor<1x2x8x8xf32>) -> tensor<1x2x4x4xf32>
// CHECK:      func.func private @fused_transpose_exp_concatenate(%p0: tensor<1x2x4x4xf32>, %p1: tensor<1x2x4x4xf32>) -> tensor<1x4x4x4xf32> attributes {relay.primitive} {
// CHECK-NEXT:   %0 = relay.transpose %p0
// CHECK-NEXT:   %1 = relay.exp %p1
// CHECK-NEXT:   %2 = relay.concatenate %0, %1
// CHECK-NEXT:   func.return %2
// CHECK-LABEL: func.func @concat(
// CHECK-NEXT:   %0 = func.call @fused_nn_max_pool2d(%x)
// CHECK-NEXT:   %1 = func.call @fused_transpose_exp_concatenate(%0, %y)
func.func @concat(%x: tensor<1x2x8x8xf32>, %y: tensor<1x2x4x4xf32>) -> tensor<1x4x4x4xf32> {
  %0 = relay.nn.max_pool2d %x {pool_size = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<1x2x8x8xf32>) -> tensor<1x2x4x4xf32>
  %1 = relay.transpose %0 {axes = array<i64: 0, 1, 3, 2>} : (tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  %2 = relay.exp %y : (tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  %3 = relay.concatenate %1, %2 {axis = 1 : i64} : (tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) -> tensor<1x4x4x4xf32>
  func.return %3 : tensor<1x4x4x4xf32>
}

// -----

// An intermediate tuple projected by tuple_get_item joins the projections'
// consumer; phase 2 then pulls the injective producers of its fields in.

// CHECK:      func.func private @fused_exp_transpose_add(%p0: tensor<4x5xf32>, %p1: tensor<5x4xf32>) -> tensor<4x5xf32> attributes {relay.primitive} {
// CHECK-NEXT:   %0 = relay.exp %p0
// CHECK-NEXT:   %1 = relay.transpose %p1
// CHECK-NEXT:   %t = relay.tuple %0, %1
// CHECK-NEXT:   %2 = relay.tuple_get_item %t {index = 0 : i64}
// CHECK-NEXT:   %3 = relay.tuple_get_item %t {index = 1 : i64}
// CHECK-NEXT:   %4 = relay.add %2, %3
// CHECK-NEXT:   func.return %4
// CHECK-LABEL: func.func @intermediate_tuple(
// CHECK-NEXT:   %0 = func.call @fused_exp_transpose_add(%x, %y)
// CHECK-NEXT:   func.return %0

// L0-LABEL: func.func @intermediate_tuple(
// L0-NEXT:    %0 = func.call @fused_exp(%x)
// L0-NEXT:    %1 = func.call @fused_transpose(%y)
// L0-NEXT:    %t = relay.tuple %0, %1
// L0-NEXT:    %2 = relay.tuple_get_item %t {index = 0 : i64}
// L0-NEXT:    %3 = relay.tuple_get_item %t {index = 1 : i64}
// L0-NEXT:    %4 = func.call @fused_add(%2, %3)
func.func @intermediate_tuple(%x: tensor<4x5xf32>, %y: tensor<5x4xf32>) -> tensor<4x5xf32> {
  %0 = relay.exp %x : (tensor<4x5xf32>) -> tensor<4x5xf32>
  %1 = relay.transpose %y : (tensor<5x4xf32>) -> tensor<4x5xf32>
  %t = relay.tuple %0, %1 : (tensor<4x5xf32>, tensor<4x5xf32>) -> tuple<tensor<4x5xf32>, tensor<4x5xf32>>
  %2 = relay.tuple_get_item %t {index = 0 : i64} : (tuple<tensor<4x5xf32>, tensor<4x5xf32>>) -> tensor<4x5xf32>
  %3 = relay.tuple_get_item %t {index = 1 : i64} : (tuple<tensor<4x5xf32>, tensor<4x5xf32>>) -> tensor<4x5xf32>
  %4 = relay.add %2, %3 : (tensor<4x5xf32>, tensor<4x5xf32>) -> tensor<4x5xf32>
  func.return %4 : tensor<4x5xf32>
}

// -----

// An elementwise op joins a following reduction, but a reduction never starts a
// fusion: reduce → elementwise stays separate.

// CHECK:      func.func private @fused_exp_sum(%p0: tensor<4x8xf32>) -> tensor<4xf32> attributes {relay.primitive} {
// CHECK-NEXT:   %0 = relay.exp %p0
// CHECK-NEXT:   %1 = relay.sum %0
// CHECK-NEXT:   func.return %1
// CHECK:      func.func private @fused_sqrt(%p0: tensor<4xf32>) -> tensor<4xf32> attributes {relay.primitive} {
// CHECK-LABEL: func.func @reduce_then_elemwise(
// CHECK-NEXT:   %0 = func.call @fused_exp_sum(%x)
// CHECK-NEXT:   %1 = func.call @fused_sqrt(%0)
func.func @reduce_then_elemwise(%x: tensor<4x8xf32>) -> tensor<4xf32> {
  %0 = relay.exp %x : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %1 = relay.sum %0 {axis = array<i64: 1>} : (tensor<4x8xf32>) -> tensor<4xf32>
  %2 = relay.sqrt %1 : (tensor<4xf32>) -> tensor<4xf32>
  func.return %2 : tensor<4xf32>
}

// -----

// Two convolutions in sequence: two out-elementwise-fusable ops never share a
// kernel; the second name gets a numeric suffix.

// CHECK:      func.func private @fused_nn_conv2d_nn_relu(%p0: tensor<1x4x6x6xf32>, %p1: tensor<4x4x3x3xf32>) -> tensor<1x4x6x6xf32> attributes {relay.primitive} {
// CHECK-NEXT:   relay.nn.conv2d
// CHECK-NEXT:   relay.nn.relu
// CHECK-NEXT:   func.return
// CHECK:      func.func private @fused_nn_conv2d_nn_relu_1(%p0: tensor<1x4x6x6xf32>, %p1: tensor<4x4x3x3xf32>) -> tensor<1x4x6x6xf32> attributes {relay.primitive} {
// CHECK-NEXT:   relay.nn.conv2d
// CHECK-NEXT:   relay.nn.relu
// CHECK-NEXT:   func.return
// CHECK-LABEL: func.func @two_convs(
// CHECK-NEXT:   %0 = func.call @fused_nn_conv2d_nn_relu(%x, %w1)
// CHECK-NEXT:   %1 = func.call @fused_nn_conv2d_nn_relu_1(%0, %w2)
// CHECK-NEXT:   func.return %1
func.func @two_convs(%x: tensor<1x4x6x6xf32>, %w1: tensor<4x4x3x3xf32>, %w2: tensor<4x4x3x3xf32>) -> tensor<1x4x6x6xf32> {
  %0 = relay.nn.conv2d %x, %w1 {padding = array<i64: 1, 1, 1, 1>} : (tensor<1x4x6x6xf32>, tensor<4x4x3x3xf32>) -> tensor<1x4x6x6xf32>
  %1 = relay.nn.relu %0 : (tensor<1x4x6x6xf32>) -> tensor<1x4x6x6xf32>
  %2 = relay.nn.conv2d %1, %w2 {padding = array<i64: 1, 1, 1, 1>} : (tensor<1x4x6x6xf32>, tensor<4x4x3x3xf32>) -> tensor<1x4x6x6xf32>
  %3 = relay.nn.relu %2 : (tensor<1x4x6x6xf32>) -> tensor<1x4x6x6xf32>
  func.return %3 : tensor<1x4x6x6xf32>
}

// -----

// split with a consumer outside the group's post-dominator path: its kernel returns
// both fields; a non-scalar constant is a parameter (relay.FuseOps.link_params off).

// CHECK:      func.func private @fused_split(%p0: tensor<4x6xf32>) -> (tensor<4x3xf32>, tensor<4x3xf32>) attributes {relay.primitive} {
// CHECK-NEXT:   %0, %1 = relay.split %p0
// CHECK-NEXT:   func.return %0, %1 : tensor<4x3xf32>, tensor<4x3xf32>
// CHECK:      func.func private @fused_add(%p0: tensor<4x3xf32>, %p1: tensor<3xf32>) -> tensor<4x3xf32> attributes {relay.primitive} {
// CHECK-LABEL: func.func @split(
// CHECK-NEXT:   %0, %1 = func.call @fused_split(%x)
// CHECK-NEXT:   %c = relay.constant
// CHECK-NEXT:   %2 = func.call @fused_add(%0, %c)
// CHECK-NEXT:   func.return %2, %1
func.func @split(%x: tensor<4x6xf32>) -> (tensor<4x3xf32>, tensor<4x3xf32>) {
  %0, %1 = relay.split %x {indices_or_sections = 2 : i64, axis = 1 : i64} : (tensor<4x6xf32>) -> (tensor<4x3xf32>, tensor<4x3xf32>)
  %c = relay.constant dense<[1.0, 2.0, 3.0]> : tensor<3xf32>
  %2 = relay.add %0, %c : (tensor<4x3xf32>, tensor<3xf32>) -> tensor<4x3xf32>
  func.return %2, %1 : tensor<4x3xf32>, tensor<4x3xf32>
}

// -----

// Branches of relay.if are fused on their own; the if is a boundary.

// CHECK:      func.func private @fused_greater(
// CHECK:      func.func private @fused_nn_relu_exp(%p0: tensor<4xf32>) -> tensor<4xf32> attributes {relay.primitive} {
// CHECK:      func.func private @fused_negative(%p0: tensor<4xf32>) -> tensor<4xf32> attributes {relay.primitive} {
// CHECK-LABEL: func.func @branches(
// CHECK-NEXT:   %0 = func.call @fused_greater(%y)
// CHECK-NEXT:   %1 = relay.if %0 : tensor<i1> -> (tensor<4xf32>) {
// CHECK-NEXT:     %2 = func.call @fused_nn_relu_exp(%x)
// CHECK-NEXT:     relay.yield %2
// CHECK-NEXT:   } else {
// CHECK-NEXT:     %3 = func.call @fused_negative(%x)
// CHECK-NEXT:     relay.yield %3
// CHECK-NEXT:   }
func.func @branches(%x: tensor<4xf32>, %y: tensor<f32>) -> tensor<4xf32> {
  %0 = relay.greater %y, %y : (tensor<f32>, tensor<f32>) -> tensor<i1>
  %1 = relay.if %0 : tensor<i1> -> (tensor<4xf32>) {
    %2 = relay.nn.relu %x : (tensor<4xf32>) -> tensor<4xf32>
    %3 = relay.exp %2 : (tensor<4xf32>) -> tensor<4xf32>
    relay.yield %3 : tensor<4xf32>
  } else {
    %4 = relay.negative %x : (tensor<4xf32>) -> tensor<4xf32>
    relay.yield %4 : tensor<4xf32>
  }
  func.return %1 : tensor<4xf32>
}

// -----

// Negative case: an opaque op (batch_norm) never fuses; its kernel is alone and
// returns all three results.

// CHECK:      func.func private @fused_exp(
// CHECK:      func.func private @fused_nn_batch_norm(%p0: tensor<1x2x3x3xf32>, %p1: tensor<2xf32>, %p2: tensor<2xf32>, %p3: tensor<2xf32>, %p4: tensor<2xf32>) -> (tensor<1x2x3x3xf32>, tensor<2xf32>, tensor<2xf32>) attributes {relay.primitive} {
// CHECK-NEXT:   %0, %1, %2 = relay.nn.batch_norm %p0, %p1, %p2, %p3, %p4
// CHECK-NEXT:   func.return %0, %1, %2
// CHECK:      func.func private @fused_nn_relu(
// CHECK-LABEL: func.func @opaque(
// CHECK-NEXT:   %0 = func.call @fused_exp(%x)
// CHECK-NEXT:   %1, %2, %3 = func.call @fused_nn_batch_norm(%0, %g, %b, %m, %v)
// CHECK-NEXT:   %4 = func.call @fused_nn_relu(%1)
func.func @opaque(%x: tensor<1x2x3x3xf32>, %g: tensor<2xf32>, %b: tensor<2xf32>, %m: tensor<2xf32>, %v: tensor<2xf32>) -> tensor<1x2x3x3xf32> {
  %0 = relay.exp %x : (tensor<1x2x3x3xf32>) -> tensor<1x2x3x3xf32>
  %1, %2, %3 = relay.nn.batch_norm %0, %g, %b, %m, %v : (tensor<1x2x3x3xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> (tensor<1x2x3x3xf32>, tensor<2xf32>, tensor<2xf32>)
  %4 = relay.nn.relu %1 : (tensor<1x2x3x3xf32>) -> tensor<1x2x3x3xf32>
  func.return %4 : tensor<1x2x3x3xf32>
}

// -----

// Does not apply: functions marked relay.skip_optimization or relay.primitive are
// left as they are.

// CHECK:      func.func private @kernel(%p0: tensor<3xf32>) -> tensor<3xf32> attributes {relay.primitive} {
// CHECK-NEXT:   %0 = relay.exp %p0
// CHECK-NEXT:   %1 = relay.exp %0
// CHECK-NEXT:   func.return %1
// CHECK-NEXT: }
// CHECK-NEXT: func.func @skipped(%x: tensor<3xf32>) -> tensor<3xf32> attributes {relay.skip_optimization} {
// CHECK-NEXT:   %0 = relay.exp %x
// CHECK-NEXT:   %1 = relay.exp %0
// CHECK-NEXT:   func.return %1
// CHECK-NEXT: }
// CHECK-NOT:  func.func
// L0-LABEL:   func.func private @kernel(
// L0-NOT:     fused
// L0:         func.func @skipped(
// L0-NOT:     fused
func.func private @kernel(%p0: tensor<3xf32>) -> tensor<3xf32> attributes {relay.primitive} {
  %0 = relay.exp %p0 : (tensor<3xf32>) -> tensor<3xf32>
  %1 = relay.exp %0 : (tensor<3xf32>) -> tensor<3xf32>
  func.return %1 : tensor<3xf32>
}
func.func @skipped(%x: tensor<3xf32>) -> tensor<3xf32> attributes {relay.skip_optimization} {
  %0 = relay.exp %x : (tensor<3xf32>) -> tensor<3xf32>
  %1 = relay.exp %0 : (tensor<3xf32>) -> tensor<3xf32>
  func.return %1 : tensor<3xf32>
}

// -----

// annotation.stop_fusion: add and exp stay in two kernels, and the annotation is
// gone (the second kernel takes the first one's result).
// CHECK-LABEL: func.func private @fused_add(%p0: tensor<4xf32>) -> tensor<4xf32> attributes {relay.primitive} {
// CHECK:      func.func private @fused_exp(%p0: tensor<4xf32>) -> tensor<4xf32> attributes {relay.primitive} {
// CHECK-LABEL: func.func @stop_fusion(
// CHECK-NEXT:   %0 = func.call @fused_add(%x)
// CHECK-NEXT:   %1 = func.call @fused_exp(%0)
// CHECK-NEXT:   func.return %1
// CHECK-NOT:    stop_fusion
// L0-LABEL:     func.func private @fused_add(
// L0-LABEL:     func.func @stop_fusion(
// L0-NEXT:        %c = relay.constant
// L0-NEXT:        %0 = func.call @fused_add(%x, %c)
// L0-NEXT:        %1 = func.call @fused_exp(%0)
func.func @stop_fusion(%x: tensor<4xf32>) -> tensor<4xf32> {
  %c = relay.constant dense<1.0> : tensor<f32>
  %0 = relay.add %x, %c : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %1 = relay.annotation.stop_fusion %0 : (tensor<4xf32>) -> tensor<4xf32>
  %2 = relay.exp %1 : (tensor<4xf32>) -> tensor<4xf32>
  func.return %2 : tensor<4xf32>
}
