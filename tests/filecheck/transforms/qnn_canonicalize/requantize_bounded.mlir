// RUN: xrelay-opt %s -p qnn-canonicalize --split-input-file | filecheck %s

// requantize with constant scales and zero points: |float32(acc) * ratio| is at most
// 2**31 * 2**-12 < 2**22, so no NaN test, no clamp, and ties to even read off the
// bits of v + 1.5*2**23 (0x4B400000 + round(v)) with the zero point in the same int32
// constant (7 - 0x4B400000): no float-to-int conversion.
// CHECK-LABEL: func.func @small
// CHECK:         %[[R:.*]] = relay.constant dense<0.000244140625> : tensor<f32>
// CHECK:         %[[F:.*]] = relay.cast %{{.*}} {dtype = f32} : (tensor<4xi32>) -> tensor<4xf32>
// CHECK-NEXT:    %[[V:.*]] = relay.multiply %[[F]], %[[R]]
// CHECK-NEXT:    %[[M:.*]] = relay.constant dense<0x4B400000> : tensor<f32>
// CHECK-NEXT:    %[[U:.*]] = relay.add %[[V]], %[[M]]
// CHECK-NEXT:    %[[B:.*]] = relay.reinterpret %[[U]] {dtype = i32} : (tensor<4xf32>) -> tensor<4xi32>
// CHECK-NEXT:    %[[Z:.*]] = relay.constant dense<-1262485497> : tensor<i32>
// CHECK-NEXT:    %[[T:.*]] = relay.add %[[B]], %[[Z]] : (tensor<4xi32>, tensor<i32>) -> tensor<4xi32>
// CHECK-NEXT:    relay.clip %[[T]] {a_min = 0.000000e+00 : f64, a_max = 2.550000e+02 : f64} : (tensor<4xi32>) -> tensor<4xi32>
// CHECK-NOT:     relay.not_equal
// CHECK-NOT:     relay.where
// CHECK-NOT:     {dtype = i32} : (tensor<4xf32>)
func.func @small(%a: tensor<4xi32>) -> tensor<4xui8> {
  %si = relay.constant dense<0.0009765625> : tensor<f32>
  %so = relay.constant dense<4.0> : tensor<f32>
  %z = relay.constant dense<0> : tensor<i32>
  %zo = relay.constant dense<7> : tensor<i32>
  %r = relay.qnn.requantize %a, %si, %z, %so, %zo {out_dtype = ui8} : (tensor<4xi32>, tensor<f32>, tensor<i32>, tensor<f32>, tensor<i32>) -> tensor<4xui8>
  func.return %r : tensor<4xui8>
}

// -----

// ratio 1: |v| reaches 2**31, past 2**23: the general rounding (sign shift and the
// where), int64; still no NaN test and no clamp (below 2**40).
// CHECK-LABEL: func.func @large
// CHECK-NOT:     relay.not_equal
// CHECK-NOT:     relay.clip {{.*}} : (tensor<4xf32>)
// CHECK:         relay.sign
// CHECK:         relay.where
// CHECK:         relay.cast %{{.*}} {dtype = i64}
func.func @large(%a: tensor<4xi32>) -> tensor<4xi8> {
  %s = relay.constant dense<0.5> : tensor<f32>
  %z = relay.constant dense<0> : tensor<i32>
  %r = relay.qnn.requantize %a, %s, %z, %s, %z : (tensor<4xi32>, tensor<f32>, tensor<i32>, tensor<f32>, tensor<i32>) -> tensor<4xi8>
  func.return %r : tensor<4xi8>
}

// -----

// Negative: scales that are not constants keep every step (NaN test, clamp, where).
// CHECK-LABEL: func.func @unknown
// CHECK:         relay.not_equal
// CHECK:         relay.clip {{.*}} : (tensor<4xf32>) -> tensor<4xf32>
// CHECK:         relay.where
// CHECK:         relay.cast %{{.*}} {dtype = i64}
func.func @unknown(%a: tensor<4xi32>, %s: tensor<f32>) -> tensor<4xi8> {
  %z = relay.constant dense<0> : tensor<i32>
  %r = relay.qnn.requantize %a, %s, %z, %s, %z : (tensor<4xi32>, tensor<f32>, tensor<i32>, tensor<f32>, tensor<i32>) -> tensor<4xi8>
  func.return %r : tensor<4xi8>
}

// -----

// The input scale an importer computes (input_scale * weight_scale, per channel),
// not folded yet: a constant expression, so the multiplier is still known (the
// ratio 0.0009765625 * 0.25 / 4.0 = 2**-14) and the requantize bounded.
// CHECK-LABEL: func.func @scale_expression
// CHECK:         relay.constant dense<6.10351562e-05> : tensor<2x1xf32>
// CHECK-NOT:     relay.not_equal
// CHECK-NOT:     relay.where
// CHECK:         relay.reinterpret %{{.*}} {dtype = i32} : (tensor<2x4xf32>) -> tensor<2x4xi32>
func.func @scale_expression(%a: tensor<2x4xi32>) -> tensor<2x4xui8> {
  %x = relay.constant dense<0.0009765625> : tensor<f32>
  %w = relay.constant dense<0.25> : tensor<2xf32>
  %si = relay.multiply %x, %w : (tensor<f32>, tensor<2xf32>) -> tensor<2xf32>
  %so = relay.constant dense<4.0> : tensor<f32>
  %z = relay.constant dense<0> : tensor<i32>
  %zo = relay.constant dense<7> : tensor<i32>
  %r = relay.qnn.requantize %a, %si, %z, %so, %zo {axis = 0 : i64, out_dtype = ui8} : (tensor<2x4xi32>, tensor<2xf32>, tensor<i32>, tensor<f32>, tensor<i32>) -> tensor<2x4xui8>
  func.return %r : tensor<2x4xui8>
}

// -----

// Negative: an expression with a value known only at run time stays unknown.
// CHECK-LABEL: func.func @scale_of_a_parameter
// CHECK:         relay.not_equal
// CHECK:         relay.where
func.func @scale_of_a_parameter(%a: tensor<2x4xi32>, %x: tensor<f32>) -> tensor<2x4xui8> {
  %w = relay.constant dense<0.25> : tensor<2xf32>
  %si = relay.multiply %x, %w : (tensor<f32>, tensor<2xf32>) -> tensor<2xf32>
  %so = relay.constant dense<4.0> : tensor<f32>
  %z = relay.constant dense<0> : tensor<i32>
  %r = relay.qnn.requantize %a, %si, %z, %so, %z {axis = 0 : i64, out_dtype = ui8} : (tensor<2x4xi32>, tensor<2xf32>, tensor<i32>, tensor<f32>, tensor<i32>) -> tensor<2x4xui8>
  func.return %r : tensor<2x4xui8>
}

// -----

// qnn.add of two u8 tensors with constant parameters: |v| <= 255 * (0.5 + 0.25) /
// 1.0, so the sum is rounded like a bounded requantize (no NaN test, no clamp, the
// two-op rounding, int32).
// CHECK-LABEL: func.func @add_bounded
// CHECK:         %[[V:.*]] = relay.add %{{.*}}, %{{.*}} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT:    %[[M:.*]] = relay.constant dense<0x4B400000> : tensor<f32>
// CHECK-NEXT:    %[[U:.*]] = relay.add %[[V]], %[[M]]
// CHECK-NEXT:    relay.reinterpret %[[U]] {dtype = i32} : (tensor<4xf32>) -> tensor<4xi32>
// CHECK-NOT:     relay.not_equal
// CHECK-NOT:     i64
func.func @add_bounded(%a: tensor<4xui8>, %b: tensor<4xui8>) -> tensor<4xui8> {
  %sa = relay.constant dense<0.5> : tensor<f32>
  %sb = relay.constant dense<0.25> : tensor<f32>
  %so = relay.constant dense<1.0> : tensor<f32>
  %za = relay.constant dense<130> : tensor<i32>
  %zb = relay.constant dense<3> : tensor<i32>
  %r = relay.qnn.add %a, %b, %sa, %za, %sb, %zb, %so, %za : (tensor<4xui8>, tensor<4xui8>, tensor<f32>, tensor<i32>, tensor<f32>, tensor<i32>, tensor<f32>, tensor<i32>) -> tensor<4xui8>
  func.return %r : tensor<4xui8>
}

// -----

// Negative: int32 operands reach 2**31 times the ratio: the general rounding (NaN
// test, sign shift, int64).
// CHECK-LABEL: func.func @add_of_int32
// CHECK:         relay.not_equal
// CHECK:         relay.sign
// CHECK:         relay.cast %{{.*}} {dtype = i64}
func.func @add_of_int32(%a: tensor<4xi32>, %b: tensor<4xi32>) -> tensor<4xi32> {
  %s = relay.constant dense<0.5> : tensor<f32>
  %z = relay.constant dense<0> : tensor<i32>
  %r = relay.qnn.add %a, %b, %s, %z, %s, %z, %s, %z : (tensor<4xi32>, tensor<4xi32>, tensor<f32>, tensor<i32>, tensor<f32>, tensor<i32>, tensor<f32>, tensor<i32>) -> tensor<4xi32>
  func.return %r : tensor<4xi32>
}

// -----

// Negative: a zero point known only at run time keeps every step.
// CHECK-LABEL: func.func @mul_of_a_parameter
// CHECK:         relay.not_equal
// CHECK:         relay.clip {{.*}} : (tensor<4xf32>) -> tensor<4xf32>
func.func @mul_of_a_parameter(%a: tensor<4xui8>, %b: tensor<4xui8>, %z: tensor<i32>) -> tensor<4xui8> {
  %s = relay.constant dense<0.5> : tensor<f32>
  %r = relay.qnn.mul %a, %b, %s, %z, %s, %z, %s, %z : (tensor<4xui8>, tensor<4xui8>, tensor<f32>, tensor<i32>, tensor<f32>, tensor<i32>, tensor<f32>, tensor<i32>) -> tensor<4xui8>
  func.return %r : tensor<4xui8>
}

// -----

// A requantize of a convolution with a constant weight: the sums are at most
// 255 * 150 (the data's range times the largest sum of |weight| of an output
// channel), so with ratio 2 (scales 1 and 0.5) the value stays below 2**22 although
// 2**31 * 2 does not: the bounded form (bits of v + 1.5*2**23, no sign shift, no
// int64).
// CHECK-LABEL: func.func @conv_sums_bounded
// CHECK:         relay.nn.conv2d
// CHECK:         relay.reinterpret %{{.*}} {dtype = i32}
// CHECK-NOT:     relay.sign
// CHECK-NOT:     i64
func.func @conv_sums_bounded(%x: tensor<1x2x4x4xui8>) -> tensor<1x2x4x4xui8> {
  %w = relay.constant dense<[[[[100]], [[-50]]], [[[3]], [[127]]]]> : tensor<2x2x1x1xi8>
  %zx = relay.constant dense<0> : tensor<i32>
  %zw = relay.constant dense<0> : tensor<i32>
  %s = relay.constant dense<1.0> : tensor<f32>
  %h = relay.constant dense<0.5> : tensor<f32>
  %c = relay.qnn.conv2d %x, %w, %zx, %zw, %s, %s {channels = 2 : i64, kernel_size = array<i64: 1, 1>} : (tensor<1x2x4x4xui8>, tensor<2x2x1x1xi8>, tensor<i32>, tensor<i32>, tensor<f32>, tensor<f32>) -> tensor<1x2x4x4xi32>
  %r = relay.qnn.requantize %c, %s, %zx, %h, %zx {out_dtype = ui8} : (tensor<1x2x4x4xi32>, tensor<f32>, tensor<i32>, tensor<f32>, tensor<i32>) -> tensor<1x2x4x4xui8>
  func.return %r : tensor<1x2x4x4xui8>
}

// -----

// Negative: the same convolution of int32 data (no bound below int32's range): the
// general rounding.
// CHECK-LABEL: func.func @conv_of_int32_data
// CHECK:         relay.sign
// CHECK:         relay.cast %{{.*}} {dtype = i64}
func.func @conv_of_int32_data(%x: tensor<1x2x4x4xi32>) -> tensor<1x2x4x4xui8> {
  %w = relay.constant dense<[[[[100]], [[-50]]], [[[3]], [[127]]]]> : tensor<2x2x1x1xi32>
  %zx = relay.constant dense<0> : tensor<i32>
  %s = relay.constant dense<1.0> : tensor<f32>
  %h = relay.constant dense<0.5> : tensor<f32>
  %c = relay.nn.conv2d %x, %w {channels = 2 : i64, kernel_size = array<i64: 1, 1>, out_dtype = i32} : (tensor<1x2x4x4xi32>, tensor<2x2x1x1xi32>) -> tensor<1x2x4x4xi32>
  %r = relay.qnn.requantize %c, %s, %zx, %h, %zx {out_dtype = ui8} : (tensor<1x2x4x4xi32>, tensor<f32>, tensor<i32>, tensor<f32>, tensor<i32>) -> tensor<1x2x4x4xui8>
  func.return %r : tensor<1x2x4x4xui8>
}

// -----

// A QNN op of constants (a quantized model's int32 bias requantized) becomes the
// constant its numpy semantics give: round(40 * 0.25) + 1 = 11, round(-6 * 0.25)
// + 1 = -1 (ties to even: -1.5 -> -2); no canonical ops for FoldConstant to fold.
// CHECK-LABEL: func.func @constant_operands
// CHECK:         %[[C:.*]] = relay.constant dense<[11, -1]> : tensor<2xi8>
// CHECK-NOT:     relay.cast
// CHECK-NOT:     relay.qnn
// CHECK:         func.return %[[C]]
func.func @constant_operands() -> tensor<2xi8> {
  %a = relay.constant dense<[40, -6]> : tensor<2xi32>
  %s = relay.constant dense<0.25> : tensor<f32>
  %one = relay.constant dense<1.0> : tensor<f32>
  %z = relay.constant dense<0> : tensor<i32>
  %zo = relay.constant dense<1> : tensor<i32>
  %r = relay.qnn.requantize %a, %s, %z, %one, %zo {out_dtype = i8} : (tensor<2xi32>, tensor<f32>, tensor<i32>, tensor<f32>, tensor<i32>) -> tensor<2xi8>
  func.return %r : tensor<2xi8>
}
