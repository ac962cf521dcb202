// RUN: xrelay-opt %s -p fake-quantization-to-integer --split-input-file | filecheck %s

// dequantize -> conv2d -> bias_add -> relu -> quantize with per-channel weights: the
// int32 convolution (scale x_scale * w_scale, per output channel), the int32 bias
// requantized to that scale, relu as max with the zero point (0), one requantize to
// the quantize's type. The float ops and the dequantizes are gone.
// CHECK-LABEL: func.func @conv
// CHECK-NEXT:    %zw = relay.constant dense<0> : tensor<4xi32>
// CHECK-NEXT:    %[[ZW:.*]] = relay.constant dense<0> : tensor<i32>
// CHECK-NEXT:    %[[C:.*]] = relay.qnn.conv2d %x, %w, %zx, %[[ZW]], %sx, %sw {padding = array<i64: 1, 1, 1, 1>} : (tensor<1x3x8x8xi8>, tensor<4x3x3x3xi8>, tensor<i32>, tensor<i32>, tensor<f32>, tensor<4xf32>) -> tensor<1x4x8x8xi32>
// CHECK-NEXT:    %[[S:.*]] = relay.multiply %sx, %sw : (tensor<f32>, tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT:    %[[Z:.*]] = relay.constant dense<0> : tensor<i32>
// CHECK-NEXT:    %[[B:.*]] = relay.qnn.requantize %b, %sb, %zb, %[[S]], %[[Z]] {axis = 0 : i64, out_dtype = i32}
// CHECK-NEXT:    %[[A:.*]] = relay.nn.bias_add %[[C]], %[[B]] : (tensor<1x4x8x8xi32>, tensor<4xi32>) -> tensor<1x4x8x8xi32>
// CHECK-NEXT:    %[[R:.*]] = relay.maximum %[[A]], %[[Z]] : (tensor<1x4x8x8xi32>, tensor<i32>) -> tensor<1x4x8x8xi32>
// CHECK-NEXT:    %q = relay.qnn.requantize %[[R]], %[[S]], %[[Z]], %so, %zo {axis = 1 : i64} : (tensor<1x4x8x8xi32>, tensor<4xf32>, tensor<i32>, tensor<f32>, tensor<i32>) -> tensor<1x4x8x8xi8>
// CHECK-NEXT:    func.return %q
// CHECK-NOT:     relay.qnn.dequantize
// CHECK-NOT:     relay.nn.conv2d
func.func @conv(%x: tensor<1x3x8x8xi8>, %w: tensor<4x3x3x3xi8>, %b: tensor<4xi32>, %sx: tensor<f32>, %zx: tensor<i32>, %sw: tensor<4xf32>, %sb: tensor<4xf32>, %zb: tensor<4xi32>, %so: tensor<f32>, %zo: tensor<i32>) -> tensor<1x4x8x8xi8> {
  %zw = relay.constant dense<0> : tensor<4xi32>
  %0 = relay.qnn.dequantize %x, %sx, %zx : (tensor<1x3x8x8xi8>, tensor<f32>, tensor<i32>) -> tensor<1x3x8x8xf32>
  %1 = relay.qnn.dequantize %w, %sw, %zw {axis = 0 : i64} : (tensor<4x3x3x3xi8>, tensor<4xf32>, tensor<4xi32>) -> tensor<4x3x3x3xf32>
  %2 = relay.qnn.dequantize %b, %sb, %zb {axis = 0 : i64} : (tensor<4xi32>, tensor<4xf32>, tensor<4xi32>) -> tensor<4xf32>
  %3 = relay.nn.conv2d %0, %1 {padding = array<i64: 1, 1, 1, 1>} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x8x8xf32>
  %4 = relay.nn.bias_add %3, %2 : (tensor<1x4x8x8xf32>, tensor<4xf32>) -> tensor<1x4x8x8xf32>
  %5 = relay.nn.relu %4 : (tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  %q = relay.qnn.quantize %5, %so, %zo : (tensor<1x4x8x8xf32>, tensor<f32>, tensor<i32>) -> tensor<1x4x8x8xi8>
  func.return %q : tensor<1x4x8x8xi8>
}

// -----

// A per-channel weight zero point that is not a constant cannot be one per-tensor
// zero point for qnn.conv2d: the region stays as it was.
// CHECK-LABEL: func.func @varying_weight_zero_point
// CHECK-NEXT:    relay.qnn.dequantize
// CHECK-NEXT:    relay.qnn.dequantize
// CHECK-NEXT:    relay.nn.conv2d
// CHECK-NEXT:    %q = relay.qnn.quantize
// CHECK-NOT:     relay.qnn.conv2d
func.func @varying_weight_zero_point(%x: tensor<1x3x8x8xi8>, %w: tensor<4x3x3x3xi8>, %sx: tensor<f32>, %zx: tensor<i32>, %sw: tensor<4xf32>, %zw: tensor<4xi32>, %so: tensor<f32>, %zo: tensor<i32>) -> tensor<1x4x6x6xi8> {
  %0 = relay.qnn.dequantize %x, %sx, %zx : (tensor<1x3x8x8xi8>, tensor<f32>, tensor<i32>) -> tensor<1x3x8x8xf32>
  %1 = relay.qnn.dequantize %w, %sw, %zw {axis = 0 : i64} : (tensor<4x3x3x3xi8>, tensor<4xf32>, tensor<4xi32>) -> tensor<4x3x3x3xf32>
  %2 = relay.nn.conv2d %0, %1 : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
  %q = relay.qnn.quantize %2, %so, %zo : (tensor<1x4x6x6xf32>, tensor<f32>, tensor<i32>) -> tensor<1x4x6x6xi8>
  func.return %q : tensor<1x4x6x6xi8>
}
