// RUN: XRELAY_ROUNDTRIP
// RUN: XRELAY_GENERIC_ROUNDTRIP

// quantize / dequantize / requantize, per-tensor and per-channel; attributes at their
// default (axis = -1, out_dtype = i8 / f32, rounding = "None") are not printed.
// CHECK-LABEL: func.func @quantize
// CHECK-GENERIC-LABEL: "func.func"() <{sym_name = "quantize"
func.func @quantize(%x: tensor<2x3xf32>, %s: tensor<f32>, %z: tensor<i32>, %sc: tensor<2xf32>, %zc: tensor<2xi32>) -> (tensor<2x3xi8>, tensor<2x3xui8>) {
  // CHECK-NEXT: %q = relay.qnn.quantize %x, %s, %z : (tensor<2x3xf32>, tensor<f32>, tensor<i32>) -> tensor<2x3xi8>
  // CHECK-GENERIC: "relay.qnn.quantize"(%x, %s, %z)
  %q = relay.qnn.quantize %x, %s, %z : (tensor<2x3xf32>, tensor<f32>, tensor<i32>) -> tensor<2x3xi8>
  // CHECK-NEXT: %p = relay.qnn.quantize %x, %sc, %zc {axis = 0 : i64, out_dtype = ui8} : (tensor<2x3xf32>, tensor<2xf32>, tensor<2xi32>) -> tensor<2x3xui8>
  // CHECK-GENERIC: "relay.qnn.quantize"(%x, %sc, %zc) <{axis = 0 : i64, out_dtype = ui8
  %p = relay.qnn.quantize %x, %sc, %zc {axis = 0 : i64, out_dtype = ui8} : (tensor<2x3xf32>, tensor<2xf32>, tensor<2xi32>) -> tensor<2x3xui8>
  func.return %q, %p : tensor<2x3xi8>, tensor<2x3xui8>
}

// CHECK-LABEL: func.func @dequantize
func.func @dequantize(%q: tensor<2x3xui8>, %s: tensor<1xf32>, %z: tensor<1xi32>, %sc: tensor<3xf32>, %zc: tensor<3xi32>) -> (tensor<2x3xf32>, tensor<2x3xf32>) {
  // CHECK-NEXT: %d = relay.qnn.dequantize %q, %s, %z : (tensor<2x3xui8>, tensor<1xf32>, tensor<1xi32>) -> tensor<2x3xf32>
  %d = relay.qnn.dequantize %q, %s, %z : (tensor<2x3xui8>, tensor<1xf32>, tensor<1xi32>) -> tensor<2x3xf32>
  // CHECK-NEXT: %e = relay.qnn.dequantize %q, %sc, %zc : (tensor<2x3xui8>, tensor<3xf32>, tensor<3xi32>) -> tensor<2x3xf32>
  %e = relay.qnn.dequantize %q, %sc, %zc : (tensor<2x3xui8>, tensor<3xf32>, tensor<3xi32>) -> tensor<2x3xf32>
  func.return %d, %e : tensor<2x3xf32>, tensor<2x3xf32>
}

// CHECK-LABEL: func.func @requantize
func.func @requantize(%acc: tensor<1x4x2x2xi32>, %si: tensor<4xf32>, %zi: tensor<i32>, %so: tensor<f32>, %zo: tensor<i32>) -> (tensor<1x4x2x2xui8>, tensor<1x4x2x2xi8>) {
  // CHECK-NEXT: %r = relay.qnn.requantize %acc, %si, %zi, %so, %zo {axis = 1 : i64, out_dtype = ui8} : (tensor<1x4x2x2xi32>, tensor<4xf32>, tensor<i32>, tensor<f32>, tensor<i32>) -> tensor<1x4x2x2xui8>
  // CHECK-GENERIC: "relay.qnn.requantize"(%acc, %si, %zi, %so, %zo) <{axis = 1 : i64, out_dtype = ui8
  %r = relay.qnn.requantize %acc, %si, %zi, %so, %zo {axis = 1 : i64, out_dtype = ui8} : (tensor<1x4x2x2xi32>, tensor<4xf32>, tensor<i32>, tensor<f32>, tensor<i32>) -> tensor<1x4x2x2xui8>
  // CHECK-NEXT: %t = relay.qnn.requantize %acc, %si, %zi, %so, %zo {axis = 1 : i64, rounding = "UPWARD"} : (tensor<1x4x2x2xi32>, tensor<4xf32>, tensor<i32>, tensor<f32>, tensor<i32>) -> tensor<1x4x2x2xi8>
  %t = relay.qnn.requantize %acc, %si, %zi, %so, %zo {axis = 1 : i64, rounding = "UPWARD", out_dtype = i8} : (tensor<1x4x2x2xi32>, tensor<4xf32>, tensor<i32>, tensor<f32>, tensor<i32>) -> tensor<1x4x2x2xi8>
  func.return %r, %t : tensor<1x4x2x2xui8>, tensor<1x4x2x2xi8>
}

// -----

// The integer convolution / products: u8 x s8 operands, int32 result.
// CHECK-LABEL: func.func @conv2d
func.func @conv2d(%x: tensor<1x3x8x8xui8>, %w: tensor<4x3x3x3xi8>, %zx: tensor<i32>, %zw: tensor<i32>, %sx: tensor<f32>, %sw: tensor<4xf32>) -> tensor<1x4x8x8xi32> {
  // CHECK-NEXT: %c = relay.qnn.conv2d %x, %w, %zx, %zw, %sx, %sw {padding = array<i64: 1, 1, 1, 1>, channels = 4 : i64, kernel_size = array<i64: 3, 3>} : (tensor<1x3x8x8xui8>, tensor<4x3x3x3xi8>, tensor<i32>, tensor<i32>, tensor<f32>, tensor<4xf32>) -> tensor<1x4x8x8xi32>
  // CHECK-GENERIC: "relay.qnn.conv2d"(%x, %w, %zx, %zw, %sx, %sw)
  %c = relay.qnn.conv2d %x, %w, %zx, %zw, %sx, %sw {padding = array<i64: 1, 1, 1, 1>, channels = 4 : i64, kernel_size = array<i64: 3, 3>} : (tensor<1x3x8x8xui8>, tensor<4x3x3x3xi8>, tensor<i32>, tensor<i32>, tensor<f32>, tensor<4xf32>) -> tensor<1x4x8x8xi32>
  func.return %c : tensor<1x4x8x8xi32>
}

// CHECK-LABEL: func.func @conv2d_nhwc_depthwise
func.func @conv2d_nhwc_depthwise(%x: tensor<1x6x6x4xi8>, %w: tensor<3x3x4x1xi8>, %z: tensor<i32>, %s: tensor<f32>, %sw: tensor<4xf32>) -> tensor<1x4x4x4xi32> {
  // CHECK-NEXT: %c = relay.qnn.conv2d %x, %w, %z, %z, %s, %sw {groups = 4 : i64, data_layout = "NHWC", kernel_layout = "HWOI"} : (tensor<1x6x6x4xi8>, tensor<3x3x4x1xi8>, tensor<i32>, tensor<i32>, tensor<f32>, tensor<4xf32>) -> tensor<1x4x4x4xi32>
  %c = relay.qnn.conv2d %x, %w, %z, %z, %s, %sw {groups = 4 : i64, data_layout = "NHWC", kernel_layout = "HWOI"} : (tensor<1x6x6x4xi8>, tensor<3x3x4x1xi8>, tensor<i32>, tensor<i32>, tensor<f32>, tensor<4xf32>) -> tensor<1x4x4x4xi32>
  func.return %c : tensor<1x4x4x4xi32>
}

// CHECK-LABEL: func.func @dense
func.func @dense(%x: tensor<2x5xui8>, %w: tensor<3x5xi8>, %z: tensor<i32>, %s: tensor<f32>, %sw: tensor<3xf32>) -> tensor<2x3xi32> {
  // CHECK-NEXT: %d = relay.qnn.dense %x, %w, %z, %z, %s, %sw {units = 3 : i64} : (tensor<2x5xui8>, tensor<3x5xi8>, tensor<i32>, tensor<i32>, tensor<f32>, tensor<3xf32>) -> tensor<2x3xi32>
  // CHECK-GENERIC: "relay.qnn.dense"(%x, %w, %z, %z, %s, %sw) <{units = 3 : i64
  %d = relay.qnn.dense %x, %w, %z, %z, %s, %sw {units = 3 : i64} : (tensor<2x5xui8>, tensor<3x5xi8>, tensor<i32>, tensor<i32>, tensor<f32>, tensor<3xf32>) -> tensor<2x3xi32>
  func.return %d : tensor<2x3xi32>
}

// CHECK-LABEL: func.func @batch_matmul
func.func @batch_matmul(%x: tensor<2x3x4xi8>, %y: tensor<2x4x5xi8>, %z: tensor<i32>, %s: tensor<f32>) -> tensor<2x3x5xi32> {
  // CHECK-NEXT: %b = relay.qnn.batch_matmul %x, %y, %z, %z, %s, %s {transpose_b = false} : (tensor<2x3x4xi8>, tensor<2x4x5xi8>, tensor<i32>, tensor<i32>, tensor<f32>, tensor<f32>) -> tensor<2x3x5xi32>
  // CHECK-GENERIC: "relay.qnn.batch_matmul"(%x, %y, %z, %z, %s, %s) <{transpose_b = false
  %b = relay.qnn.batch_matmul %x, %y, %z, %z, %s, %s {transpose_b = false} : (tensor<2x3x4xi8>, tensor<2x4x5xi8>, tensor<i32>, tensor<i32>, tensor<f32>, tensor<f32>) -> tensor<2x3x5xi32>
  func.return %b : tensor<2x3x5xi32>
}

// -----

// Quantized elementwise arithmetic, broadcasting; per-channel lhs parameters.
// CHECK-LABEL: func.func @binary
func.func @binary(%a: tensor<1x3x4xui8>, %b: tensor<4xui8>, %s: tensor<f32>, %z: tensor<i32>, %sc: tensor<3xf32>, %zc: tensor<3xi32>) -> (tensor<1x3x4xui8>, tensor<1x3x4xui8>, tensor<1x3x4xui8>) {
  // CHECK-NEXT: %0 = relay.qnn.add %a, %b, %sc, %zc, %s, %z, %s, %z {lhs_axis = 1 : i64} : (tensor<1x3x4xui8>, tensor<4xui8>, tensor<3xf32>, tensor<3xi32>, tensor<f32>, tensor<i32>, tensor<f32>, tensor<i32>) -> tensor<1x3x4xui8>
  // CHECK-GENERIC: "relay.qnn.add"(%a, %b, %sc, %zc, %s, %z, %s, %z) <{lhs_axis = 1 : i64
  %0 = relay.qnn.add %a, %b, %sc, %zc, %s, %z, %s, %z {lhs_axis = 1 : i64} : (tensor<1x3x4xui8>, tensor<4xui8>, tensor<3xf32>, tensor<3xi32>, tensor<f32>, tensor<i32>, tensor<f32>, tensor<i32>) -> tensor<1x3x4xui8>
  // CHECK-NEXT: %1 = relay.qnn.subtract %a, %b, %s, %z, %s, %z, %s, %z : (tensor<1x3x4xui8>, tensor<4xui8>, tensor<f32>, tensor<i32>, tensor<f32>, tensor<i32>, tensor<f32>, tensor<i32>) -> tensor<1x3x4xui8>
  %1 = relay.qnn.subtract %a, %b, %s, %z, %s, %z, %s, %z : (tensor<1x3x4xui8>, tensor<4xui8>, tensor<f32>, tensor<i32>, tensor<f32>, tensor<i32>, tensor<f32>, tensor<i32>) -> tensor<1x3x4xui8>
  // CHECK-NEXT: %2 = relay.qnn.mul %a, %b, %s, %z, %s, %z, %s, %z : (tensor<1x3x4xui8>, tensor<4xui8>, tensor<f32>, tensor<i32>, tensor<f32>, tensor<i32>, tensor<f32>, tensor<i32>) -> tensor<1x3x4xui8>
  %2 = relay.qnn.mul %a, %b, %s, %z, %s, %z, %s, %z : (tensor<1x3x4xui8>, tensor<4xui8>, tensor<f32>, tensor<i32>, tensor<f32>, tensor<i32>, tensor<f32>, tensor<i32>) -> tensor<1x3x4xui8>
  func.return %0, %1, %2 : tensor<1x3x4xui8>, tensor<1x3x4xui8>, tensor<1x3x4xui8>
}

// concatenate: 2 inputs, their scales, their zero points, the output's (3n + 2).
// CHECK-LABEL: func.func @concatenate
func.func @concatenate(%a: tensor<1x2x4xi8>, %b: tensor<1x3x4xi8>, %sa: tensor<f32>, %sb: tensor<f32>, %za: tensor<i32>, %zb: tensor<i32>) -> tensor<1x5x4xi8> {
  // CHECK-NEXT: %c = relay.qnn.concatenate %a, %b, %sa, %sb, %za, %zb, %sa, %za {axis = 1 : i64} : (tensor<1x2x4xi8>, tensor<1x3x4xi8>, tensor<f32>, tensor<f32>, tensor<i32>, tensor<i32>, tensor<f32>, tensor<i32>) -> tensor<1x5x4xi8>
  // CHECK-GENERIC: "relay.qnn.concatenate"(%a, %b, %sa, %sb, %za, %zb, %sa, %za) <{axis = 1 : i64
  %c = relay.qnn.concatenate %a, %b, %sa, %sb, %za, %zb, %sa, %za {axis = 1 : i64} : (tensor<1x2x4xi8>, tensor<1x3x4xi8>, tensor<f32>, tensor<f32>, tensor<i32>, tensor<i32>, tensor<f32>, tensor<i32>) -> tensor<1x5x4xi8>
  func.return %c : tensor<1x5x4xi8>
}

// CHECK-LABEL: func.func @avg_pool2d
func.func @avg_pool2d(%x: tensor<1x2x5x5xui8>, %s: tensor<f32>, %z: tensor<i32>) -> tensor<1x2x3x3xui8> {
  // CHECK-NEXT: %p = relay.qnn.avg_pool2d %x, %s, %z, %s, %z {pool_size = array<i64: 3, 3>, strides = array<i64: 2, 2>, padding = array<i64: 1, 1, 1, 1>, count_include_pad = true} : (tensor<1x2x5x5xui8>, tensor<f32>, tensor<i32>, tensor<f32>, tensor<i32>) -> tensor<1x2x3x3xui8>
  // CHECK-GENERIC: "relay.qnn.avg_pool2d"(%x, %s, %z, %s, %z)
  %p = relay.qnn.avg_pool2d %x, %s, %z, %s, %z {pool_size = array<i64: 3, 3>, strides = array<i64: 2, 2>, padding = array<i64: 1, 1, 1, 1>, count_include_pad = true} : (tensor<1x2x5x5xui8>, tensor<f32>, tensor<i32>, tensor<f32>, tensor<i32>) -> tensor<1x2x3x3xui8>
  func.return %p : tensor<1x2x3x3xui8>
}

// -----

// Single-result functions (the Relay text format reads these back as they are).
// CHECK-LABEL: func.func @chain
func.func @chain(%x: tensor<2x3xf32>, %s: tensor<f32>, %z: tensor<i32>, %sc: tensor<3xf32>, %zc: tensor<3xi32>) -> tensor<2x3xf32> {
  // CHECK-NEXT: %q = relay.qnn.quantize %x, %sc, %zc {out_dtype = ui8} : (tensor<2x3xf32>, tensor<3xf32>, tensor<3xi32>) -> tensor<2x3xui8>
  %q = relay.qnn.quantize %x, %sc, %zc {out_dtype = ui8} : (tensor<2x3xf32>, tensor<3xf32>, tensor<3xi32>) -> tensor<2x3xui8>
  // CHECK-NEXT: %a = relay.qnn.add %q, %q, %sc, %zc, %s, %z, %s, %z : (tensor<2x3xui8>, tensor<2x3xui8>, tensor<3xf32>, tensor<3xi32>, tensor<f32>, tensor<i32>, tensor<f32>, tensor<i32>) -> tensor<2x3xui8>
  %a = relay.qnn.add %q, %q, %sc, %zc, %s, %z, %s, %z : (tensor<2x3xui8>, tensor<2x3xui8>, tensor<3xf32>, tensor<3xi32>, tensor<f32>, tensor<i32>, tensor<f32>, tensor<i32>) -> tensor<2x3xui8>
  // CHECK-NEXT: %b = relay.qnn.subtract %a, %q, %s, %z, %s, %z, %s, %z : (tensor<2x3xui8>, tensor<2x3xui8>, tensor<f32>, tensor<i32>, tensor<f32>, tensor<i32>, tensor<f32>, tensor<i32>) -> tensor<2x3xui8>
  %b = relay.qnn.subtract %a, %q, %s, %z, %s, %z, %s, %z : (tensor<2x3xui8>, tensor<2x3xui8>, tensor<f32>, tensor<i32>, tensor<f32>, tensor<i32>, tensor<f32>, tensor<i32>) -> tensor<2x3xui8>
  // CHECK-NEXT: %m = relay.qnn.mul %b, %a, %s, %z, %s, %z, %s, %z : (tensor<2x3xui8>, tensor<2x3xui8>, tensor<f32>, tensor<i32>, tensor<f32>, tensor<i32>, tensor<f32>, tensor<i32>) -> tensor<2x3xui8>
  %m = relay.qnn.mul %b, %a, %s, %z, %s, %z, %s, %z : (tensor<2x3xui8>, tensor<2x3xui8>, tensor<f32>, tensor<i32>, tensor<f32>, tensor<i32>, tensor<f32>, tensor<i32>) -> tensor<2x3xui8>
  // CHECK-NEXT: %r = relay.qnn.requantize %m, %s, %z, %s, %z {rounding = "TONEAREST"} : (tensor<2x3xui8>, tensor<f32>, tensor<i32>, tensor<f32>, tensor<i32>) -> tensor<2x3xi8>
  %r = relay.qnn.requantize %m, %s, %z, %s, %z {rounding = "TONEAREST"} : (tensor<2x3xui8>, tensor<f32>, tensor<i32>, tensor<f32>, tensor<i32>) -> tensor<2x3xi8>
  // CHECK-NEXT: %d = relay.qnn.dequantize %r, %s, %z : (tensor<2x3xi8>, tensor<f32>, tensor<i32>) -> tensor<2x3xf32>
  %d = relay.qnn.dequantize %r, %s, %z : (tensor<2x3xi8>, tensor<f32>, tensor<i32>) -> tensor<2x3xf32>
  func.return %d : tensor<2x3xf32>
}

// The integer transposed convolution: IOHW kernel by default, output_padding.
// CHECK-LABEL: func.func @conv2d_transpose
func.func @conv2d_transpose(%x: tensor<1x3x4x4xui8>, %w: tensor<3x2x3x3xi8>, %z: tensor<i32>, %s: tensor<f32>, %sw: tensor<2xf32>) -> tensor<1x2x8x8xi32> {
  // CHECK-NEXT: %c = relay.qnn.conv2d_transpose %x, %w, %z, %z, %s, %sw {strides = array<i64: 2, 2>, padding = array<i64: 1, 1, 1, 1>, output_padding = array<i64: 1, 1>} : (tensor<1x3x4x4xui8>, tensor<3x2x3x3xi8>, tensor<i32>, tensor<i32>, tensor<f32>, tensor<2xf32>) -> tensor<1x2x8x8xi32>
  // CHECK-GENERIC: "relay.qnn.conv2d_transpose"(%x, %w, %z, %z, %s, %sw)
  %c = relay.qnn.conv2d_transpose %x, %w, %z, %z, %s, %sw {strides = array<i64: 2, 2>, padding = array<i64: 1, 1, 1, 1>, output_padding = array<i64: 1, 1>} : (tensor<1x3x4x4xui8>, tensor<3x2x3x3xi8>, tensor<i32>, tensor<i32>, tensor<f32>, tensor<2xf32>) -> tensor<1x2x8x8xi32>
  func.return %c : tensor<1x2x8x8xi32>
}
