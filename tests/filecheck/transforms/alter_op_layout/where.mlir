// RUN: xrelay-opt %s -p alter-op-layout --split-input-file | filecheck %s

// where(x != x, 0, x) after a blocked convolution (a requantize's NaN guard) keeps
// the blocked layout: its 0-d operand stays a scalar, the others follow the
// convolution's NCHW16c, and the one transform back to NCHW is at the end.
// CHECK-LABEL: func.func @where_scalar
// CHECK:         %[[C:.*]] = relay.nn.contrib_conv2d_NCHWc {{.*}} -> tensor<1x1x6x6x16xf32>
// CHECK-NEXT:    %[[N:.*]] = relay.not_equal %[[C]], %[[C]] : (tensor<1x1x6x6x16xf32>, tensor<1x1x6x6x16xf32>) -> tensor<1x1x6x6x16xi1>
// CHECK-NEXT:    %[[W:.*]] = relay.where %[[N]], %z, %[[C]] : (tensor<1x1x6x6x16xi1>, tensor<f32>, tensor<1x1x6x6x16xf32>) -> tensor<1x1x6x6x16xf32>
// CHECK-NEXT:    %[[O:.*]] = relay.layout_transform %[[W]] {src_layout = "NCHW16c", dst_layout = "NCHW"}
// CHECK-NEXT:    func.return %[[O]]
func.func @where_scalar(%x: tensor<1x8x6x6xf32>, %w: tensor<16x8x3x3xf32>, %z: tensor<f32>) -> tensor<1x16x6x6xf32> {
  %0 = relay.nn.conv2d %x, %w {padding = array<i64: 1, 1, 1, 1>} : (tensor<1x8x6x6xf32>, tensor<16x8x3x3xf32>) -> tensor<1x16x6x6xf32>
  %1 = relay.not_equal %0, %0 : (tensor<1x16x6x6xf32>, tensor<1x16x6x6xf32>) -> tensor<1x16x6x6xi1>
  %2 = relay.where %1, %z, %0 : (tensor<1x16x6x6xi1>, tensor<f32>, tensor<1x16x6x6xf32>) -> tensor<1x16x6x6xf32>
  func.return %2 : tensor<1x16x6x6xf32>
}

// -----

// A where broadcasting a tensor that is not a scalar ([16, 1, 1] against the
// convolution's [1, 16, 6, 6]) has no layout rule: the convolution's result goes
// back to NCHW before it.
// CHECK-LABEL: func.func @where_broadcast
// CHECK:         %[[C:.*]] = relay.nn.contrib_conv2d_NCHWc {{.*}} -> tensor<1x1x6x6x16xf32>
// CHECK:         %[[O:.*]] = relay.layout_transform %[[C]] {src_layout = "NCHW16c", dst_layout = "NCHW"}
// CHECK:         relay.where %{{.*}}, %b, %[[O]] : (tensor<1x16x6x6xi1>, tensor<16x1x1xf32>, tensor<1x16x6x6xf32>) -> tensor<1x16x6x6xf32>
func.func @where_broadcast(%x: tensor<1x8x6x6xf32>, %w: tensor<16x8x3x3xf32>, %b: tensor<16x1x1xf32>) -> tensor<1x16x6x6xf32> {
  %0 = relay.nn.conv2d %x, %w {padding = array<i64: 1, 1, 1, 1>} : (tensor<1x8x6x6xf32>, tensor<16x8x3x3xf32>) -> tensor<1x16x6x6xf32>
  %1 = relay.not_equal %0, %0 : (tensor<1x16x6x6xf32>, tensor<1x16x6x6xf32>) -> tensor<1x16x6x6xi1>
  %2 = relay.where %1, %b, %0 : (tensor<1x16x6x6xi1>, tensor<16x1x1xf32>, tensor<1x16x6x6xf32>) -> tensor<1x16x6x6xf32>
  func.return %2 : tensor<1x16x6x6xf32>
}
