// RUN: xrelay-opt %s -p 'convert-layout{desired-layouts="nn.conv2d=NHWC:default"}' --split-input-file | filecheck %s
// RUN: xrelay-opt %s -p 'convert-layout{desired-layouts="nn.conv2d=NCHW:default;nn.max_pool2d=NHWC"}' --split-input-file | filecheck %s --check-prefix=POOL

// A residual block NCHW -> NHWC: the input and the weights are transformed at the
// entry, the result once at the exit; bias_add, relu, the residual add and the pool
// follow the convolutions' layout (no transform in between).
// CHECK-LABEL: func.func @residual_block
// CHECK-NEXT:    %[[X:.*]] = relay.layout_transform %x {src_layout = "NCHW", dst_layout = "NHWC"} : (tensor<1x16x8x8xf32>) -> tensor<1x8x8x16xf32>
// CHECK-NEXT:    %[[W1:.*]] = relay.layout_transform %w1 {src_layout = "OIHW", dst_layout = "HWIO"} : (tensor<16x16x3x3xf32>) -> tensor<3x3x16x16xf32>
// CHECK-NEXT:    %[[C1:.*]] = relay.nn.conv2d %[[X]], %[[W1]] {padding = array<i64: 1, 1, 1, 1>, kernel_layout = "HWIO", data_layout = "NHWC"} : (tensor<1x8x8x16xf32>, tensor<3x3x16x16xf32>) -> tensor<1x8x8x16xf32>
// CHECK-NEXT:    %[[B:.*]] = relay.nn.bias_add %[[C1]], %b {axis = 3 : i64} : (tensor<1x8x8x16xf32>, tensor<16xf32>) -> tensor<1x8x8x16xf32>
// CHECK-NEXT:    %[[R:.*]] = relay.nn.relu %[[B]] : (tensor<1x8x8x16xf32>) -> tensor<1x8x8x16xf32>
// CHECK-NEXT:    %[[A:.*]] = relay.add %[[R]], %[[X]] : (tensor<1x8x8x16xf32>, tensor<1x8x8x16xf32>) -> tensor<1x8x8x16xf32>
// CHECK-NEXT:    %[[P:.*]] = relay.nn.max_pool2d %[[A]] {pool_size = array<i64: 2, 2>, strides = array<i64: 2, 2>, layout = "NHWC"} : (tensor<1x8x8x16xf32>) -> tensor<1x4x4x16xf32>
// CHECK-NEXT:    %[[W2:.*]] = relay.layout_transform %w2 {src_layout = "OIHW", dst_layout = "HWIO"} : (tensor<16x16x3x3xf32>) -> tensor<3x3x16x16xf32>
// CHECK-NEXT:    %[[C2:.*]] = relay.nn.conv2d %[[P]], %[[W2]] {padding = array<i64: 1, 1, 1, 1>, kernel_layout = "HWIO", data_layout = "NHWC"} : (tensor<1x4x4x16xf32>, tensor<3x3x16x16xf32>) -> tensor<1x4x4x16xf32>
// CHECK-NEXT:    %[[O:.*]] = relay.layout_transform %[[C2]] {src_layout = "NHWC", dst_layout = "NCHW"} : (tensor<1x4x4x16xf32>) -> tensor<1x16x4x4xf32>
// CHECK-NEXT:    func.return %[[O]] : tensor<1x16x4x4xf32>
func.func @residual_block(%x: tensor<1x16x8x8xf32>, %w1: tensor<16x16x3x3xf32>, %b: tensor<16xf32>, %w2: tensor<16x16x3x3xf32>) -> tensor<1x16x4x4xf32> {
  %0 = relay.nn.conv2d %x, %w1 {padding = array<i64: 1, 1, 1, 1>} : (tensor<1x16x8x8xf32>, tensor<16x16x3x3xf32>) -> tensor<1x16x8x8xf32>
  %1 = relay.nn.bias_add %0, %b : (tensor<1x16x8x8xf32>, tensor<16xf32>) -> tensor<1x16x8x8xf32>
  %2 = relay.nn.relu %1 : (tensor<1x16x8x8xf32>) -> tensor<1x16x8x8xf32>
  %3 = relay.add %2, %x : (tensor<1x16x8x8xf32>, tensor<1x16x8x8xf32>) -> tensor<1x16x8x8xf32>
  %4 = relay.nn.max_pool2d %3 {pool_size = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<1x16x8x8xf32>) -> tensor<1x16x4x4xf32>
  %5 = relay.nn.conv2d %4, %w2 {padding = array<i64: 1, 1, 1, 1>} : (tensor<1x16x4x4xf32>, tensor<16x16x3x3xf32>) -> tensor<1x16x4x4xf32>
  func.return %5 : tensor<1x16x4x4xf32>
}

// -----

// A broadcast operand of lower rank (the [C, 1, 1] bias after CanonicalizeOps) gets
// expand_dims and is transformed like the other operand; a scalar is left alone.
// CHECK-LABEL: func.func @broadcast_operands
// CHECK:         %[[C:.*]] = relay.nn.conv2d {{.*}} -> tensor<1x4x4x8xf32>
// CHECK-NEXT:    %[[M:.*]] = relay.multiply %[[C]], %c : (tensor<1x4x4x8xf32>, tensor<f32>) -> tensor<1x4x4x8xf32>
// CHECK-NEXT:    %[[E:.*]] = relay.expand_dims %v {axis = 0 : i64} : (tensor<8x1x1xf32>) -> tensor<1x8x1x1xf32>
// CHECK-NEXT:    %[[V:.*]] = relay.layout_transform %[[E]] {src_layout = "NCHW", dst_layout = "NHWC"} : (tensor<1x8x1x1xf32>) -> tensor<1x1x1x8xf32>
// CHECK-NEXT:    %[[A:.*]] = relay.add %[[M]], %[[V]] : (tensor<1x4x4x8xf32>, tensor<1x1x1x8xf32>) -> tensor<1x4x4x8xf32>
// CHECK-NEXT:    %[[O:.*]] = relay.layout_transform %[[A]] {src_layout = "NHWC", dst_layout = "NCHW"}
// CHECK-NEXT:    func.return %[[O]]
func.func @broadcast_operands(%x: tensor<1x8x4x4xf32>, %w: tensor<8x8x1x1xf32>) -> tensor<1x8x4x4xf32> {
  %c = relay.constant dense<2.0> : tensor<f32>
  %v = relay.constant dense<1.0> : tensor<8x1x1xf32>
  %0 = relay.nn.conv2d %x, %w : (tensor<1x8x4x4xf32>, tensor<8x8x1x1xf32>) -> tensor<1x8x4x4xf32>
  %1 = relay.multiply %0, %c : (tensor<1x8x4x4xf32>, tensor<f32>) -> tensor<1x8x4x4xf32>
  %2 = relay.add %1, %v : (tensor<1x8x4x4xf32>, tensor<8x1x1xf32>) -> tensor<1x8x4x4xf32>
  func.return %2 : tensor<1x8x4x4xf32>
}

// -----

// A layout-sensitive op that cannot adapt (softmax along C) gets its operand back in
// NCHW; everything before it stays NHWC.
// CHECK-LABEL: func.func @softmax_needs_nchw
// CHECK:         %[[C:.*]] = relay.nn.conv2d {{.*}} {kernel_layout = "HWIO", data_layout = "NHWC"}
// CHECK-NEXT:    %[[R:.*]] = relay.nn.relu %[[C]] : (tensor<1x4x4x8xf32>) -> tensor<1x4x4x8xf32>
// CHECK-NEXT:    %[[T:.*]] = relay.layout_transform %[[R]] {src_layout = "NHWC", dst_layout = "NCHW"} : (tensor<1x4x4x8xf32>) -> tensor<1x8x4x4xf32>
// CHECK-NEXT:    %[[S:.*]] = relay.nn.softmax %[[T]] {axis = 1 : i64} : (tensor<1x8x4x4xf32>) -> tensor<1x8x4x4xf32>
// CHECK-NEXT:    func.return %[[S]]
func.func @softmax_needs_nchw(%x: tensor<1x8x4x4xf32>, %w: tensor<8x8x1x1xf32>) -> tensor<1x8x4x4xf32> {
  %0 = relay.nn.conv2d %x, %w : (tensor<1x8x4x4xf32>, tensor<8x8x1x1xf32>) -> tensor<1x8x4x4xf32>
  %1 = relay.nn.relu %0 : (tensor<1x8x4x4xf32>) -> tensor<1x8x4x4xf32>
  %2 = relay.nn.softmax %1 {axis = 1 : i64} : (tensor<1x8x4x4xf32>) -> tensor<1x8x4x4xf32>
  func.return %2 : tensor<1x8x4x4xf32>
}

// -----

// Axis attributes follow the layout: concatenate along C becomes axis 3; a mean over
// H, W gets axes 1, 2; strided_slice without axes gets full-rank bounds in NHWC order
// (Relay's form); transpose to NHWC becomes
// the identity permutation of the NHWC value (no transform after it).
// CHECK-LABEL: func.func @axis_attributes
// CHECK:         %[[C:.*]] = relay.nn.conv2d {{.*}} -> tensor<1x4x4x8xf32>
// CHECK-NEXT:    %[[K:.*]] = relay.concatenate %[[C]], %[[C]] {axis = 3 : i64} : (tensor<1x4x4x8xf32>, tensor<1x4x4x8xf32>) -> tensor<1x4x4x16xf32>
// CHECK-NEXT:    %[[M:.*]] = relay.mean %[[C]] {axis = array<i64: 1, 2>} : (tensor<1x4x4x8xf32>) -> tensor<1x8xf32>
// CHECK-NEXT:    %[[S:.*]] = relay.strided_slice %[[C]] {begin = array<i64: 0, 1, 0, 2>, end = array<i64: 1, 3, 4, 6>, strides = array<i64: 1, 1, 1, 1>} : (tensor<1x4x4x8xf32>) -> tensor<1x2x4x4xf32>
// CHECK-NEXT:    %[[P:.*]] = relay.transpose %[[C]] {axes = array<i64: 0, 1, 2, 3>} : (tensor<1x4x4x8xf32>) -> tensor<1x4x4x8xf32>
// CHECK-NEXT:    %[[KO:.*]] = relay.layout_transform %[[K]] {src_layout = "NHWC", dst_layout = "NCHW"} : (tensor<1x4x4x16xf32>) -> tensor<1x16x4x4xf32>
// CHECK-NEXT:    %[[SO:.*]] = relay.layout_transform %[[S]] {src_layout = "NHWC", dst_layout = "NCHW"} : (tensor<1x2x4x4xf32>) -> tensor<1x4x2x4xf32>
// CHECK-NEXT:    func.return %[[KO]], %[[M]], %[[SO]], %[[P]]
func.func @axis_attributes(%x: tensor<1x8x4x4xf32>, %w: tensor<8x8x1x1xf32>) -> (tensor<1x16x4x4xf32>, tensor<1x8xf32>, tensor<1x4x2x4xf32>, tensor<1x4x4x8xf32>) {
  %0 = relay.nn.conv2d %x, %w : (tensor<1x8x4x4xf32>, tensor<8x8x1x1xf32>) -> tensor<1x8x4x4xf32>
  %1 = relay.concatenate %0, %0 {axis = 1 : i64} : (tensor<1x8x4x4xf32>, tensor<1x8x4x4xf32>) -> tensor<1x16x4x4xf32>
  %2 = relay.mean %0 {axis = array<i64: 2, 3>} : (tensor<1x8x4x4xf32>) -> tensor<1x8xf32>
  %3 = relay.strided_slice %0 {begin = array<i64: 0, 2, 1>, end = array<i64: 1, 6, 3>} : (tensor<1x8x4x4xf32>) -> tensor<1x4x2x4xf32>
  %4 = relay.transpose %0 {axes = array<i64: 0, 2, 3, 1>} : (tensor<1x8x4x4xf32>) -> tensor<1x4x4x8xf32>
  func.return %1, %2, %3, %4 : tensor<1x16x4x4xf32>, tensor<1x8xf32>, tensor<1x4x2x4xf32>, tensor<1x4x4x8xf32>
}

// -----

// The convolution is already NHWC; the transform the pass would put in front of the
// second convolution cancels with the one in the input (back-to-back inverses).
// CHECK-LABEL: func.func @cancel_inverse_transforms
// CHECK-NEXT:    %[[C1:.*]] = relay.nn.conv2d %x, %w {data_layout = "NHWC", kernel_layout = "HWIO"}
// CHECK-NEXT:    %[[W2:.*]] = relay.layout_transform %w2 {src_layout = "OIHW", dst_layout = "HWIO"}
// CHECK-NEXT:    %[[C2:.*]] = relay.nn.conv2d %[[C1]], %[[W2]] {kernel_layout = "HWIO", data_layout = "NHWC"}
// CHECK-NEXT:    %[[O:.*]] = relay.layout_transform %[[C2]] {src_layout = "NHWC", dst_layout = "NCHW"}
// CHECK-NEXT:    func.return %[[O]]
func.func @cancel_inverse_transforms(%x: tensor<1x4x4x8xf32>, %w: tensor<1x1x8x8xf32>, %w2: tensor<8x8x1x1xf32>) -> tensor<1x8x4x4xf32> {
  %0 = relay.nn.conv2d %x, %w {data_layout = "NHWC", kernel_layout = "HWIO"} : (tensor<1x4x4x8xf32>, tensor<1x1x8x8xf32>) -> tensor<1x4x4x8xf32>
  %1 = relay.layout_transform %0 {src_layout = "NHWC", dst_layout = "NCHW"} : (tensor<1x4x4x8xf32>) -> tensor<1x8x4x4xf32>
  %2 = relay.nn.conv2d %1, %w2 : (tensor<1x8x4x4xf32>, tensor<8x8x1x1xf32>) -> tensor<1x8x4x4xf32>
  func.return %2 : tensor<1x8x4x4xf32>
}

// -----

// Does not fire: the convolution is NHWC already and nothing else converts.
// CHECK-LABEL: func.func @already_nhwc
// CHECK-NEXT:    %0 = relay.nn.conv2d %x, %w {padding = array<i64: 1, 1, 1, 1>, data_layout = "NHWC", kernel_layout = "HWIO"}
// CHECK-NEXT:    %1 = relay.nn.bias_add %0, %b {axis = 3 : i64}
// CHECK-NEXT:    %2 = relay.nn.relu %1
// CHECK-NEXT:    %3 = relay.nn.max_pool2d %2 {pool_size = array<i64: 2, 2>, layout = "NHWC"}
// CHECK-NEXT:    func.return %3
//
// NHWC -> NCHW with the pool kept NHWC (Relay's test_conv_bias_pool_uses_specified_convert_layout):
// POOL-LABEL: func.func @already_nhwc
// POOL-NEXT:    %[[X:.*]] = relay.layout_transform %x {src_layout = "NHWC", dst_layout = "NCHW"}
// POOL-NEXT:    %[[W:.*]] = relay.layout_transform %w {src_layout = "HWIO", dst_layout = "OIHW"}
// POOL-NEXT:    %[[C:.*]] = relay.nn.conv2d %[[X]], %[[W]] {padding = array<i64: 1, 1, 1, 1>} : (tensor<1x16x8x8xf32>, tensor<16x16x3x3xf32>) -> tensor<1x16x8x8xf32>
// POOL-NEXT:    %[[B:.*]] = relay.nn.bias_add %[[C]], %b : (tensor<1x16x8x8xf32>, tensor<16xf32>) -> tensor<1x16x8x8xf32>
// POOL-NEXT:    %[[R:.*]] = relay.nn.relu %[[B]]
// POOL-NEXT:    %[[T:.*]] = relay.layout_transform %[[R]] {src_layout = "NCHW", dst_layout = "NHWC"}
// POOL-NEXT:    %[[P:.*]] = relay.nn.max_pool2d %[[T]] {pool_size = array<i64: 2, 2>, layout = "NHWC", out_layout = "NHWC"}
// POOL-NEXT:    func.return %[[P]]
func.func @already_nhwc(%x: tensor<1x8x8x16xf32>, %w: tensor<3x3x16x16xf32>, %b: tensor<16xf32>) -> tensor<1x7x7x16xf32> {
  %0 = relay.nn.conv2d %x, %w {padding = array<i64: 1, 1, 1, 1>, data_layout = "NHWC", kernel_layout = "HWIO"} : (tensor<1x8x8x16xf32>, tensor<3x3x16x16xf32>) -> tensor<1x8x8x16xf32>
  %1 = relay.nn.bias_add %0, %b {axis = 3 : i64} : (tensor<1x8x8x16xf32>, tensor<16xf32>) -> tensor<1x8x8x16xf32>
  %2 = relay.nn.relu %1 : (tensor<1x8x8x16xf32>) -> tensor<1x8x8x16xf32>
  %3 = relay.nn.max_pool2d %2 {pool_size = array<i64: 2, 2>, layout = "NHWC"} : (tensor<1x8x8x16xf32>) -> tensor<1x7x7x16xf32>
  func.return %3 : tensor<1x7x7x16xf32>
}

// -----

// Does not fire: layout_transform needs static shapes, so a convolution on a dynamic
// batch stays as it is (nothing half-made is left behind).
// CHECK-LABEL: func.func @dynamic_batch
// CHECK-NEXT:    %0 = relay.nn.conv2d %x, %w : (tensor<?x8x4x4xf32>, tensor<8x8x1x1xf32>) -> tensor<?x8x4x4xf32>
// CHECK-NEXT:    %1 = relay.nn.relu %0
// CHECK-NEXT:    func.return %1
func.func @dynamic_batch(%x: tensor<?x8x4x4xf32>, %w: tensor<8x8x1x1xf32>) -> tensor<?x8x4x4xf32> {
  %0 = relay.nn.conv2d %x, %w : (tensor<?x8x4x4xf32>, tensor<8x8x1x1xf32>) -> tensor<?x8x4x4xf32>
  %1 = relay.nn.relu %0 : (tensor<?x8x4x4xf32>) -> tensor<?x8x4x4xf32>
  func.return %1 : tensor<?x8x4x4xf32>
}
