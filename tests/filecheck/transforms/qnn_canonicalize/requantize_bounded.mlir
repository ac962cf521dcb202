// RUN: xrelay-opt %s -p qnn-canonicalize --split-input-file | filecheck %s

// requantize with constant scales and zero points: |float32(acc) * ratio| is at most
// 2**31 * 2**-12 < 2**22, so no NaN test, no clamp, ties to even as (v + 1.5*2**23) -
// 1.5*2**23, and the zero point added in int32.
// CHECK-LABEL: func.func @small
// CHECK:         %[[R:.*]] = relay.constant dense<0.000244140625> : tensor<f32>
// CHECK:         %[[F:.*]] = relay.cast %{{.*}} {dtype = f32} : (tensor<4xi32>) -> tensor<4xf32>
// CHECK-NEXT:    %[[V:.*]] = relay.multiply %[[F]], %[[R]]
// CHECK-NEXT:    %[[M:.*]] = relay.constant dense<0x4B400000> : tensor<f32>
// CHECK-NEXT:    %[[U:.*]] = relay.add %[[V]], %[[M]]
// CHECK-NEXT:    %[[D:.*]] = relay.subtract %[[U]], %[[M]]
// CHECK-NEXT:    %[[I:.*]] = relay.cast %[[D]] {dtype = i32} : (tensor<4xf32>) -> tensor<4xi32>
// CHECK-NEXT:    %[[T:.*]] = relay.add %[[I]], %zo : (tensor<4xi32>, tensor<i32>) -> tensor<4xi32>
// CHECK-NEXT:    relay.clip %[[T]] {a_min = 0.000000e+00 : f64, a_max = 2.550000e+02 : f64} : (tensor<4xi32>) -> tensor<4xi32>
// CHECK-NOT:     relay.not_equal
// CHECK-NOT:     relay.where
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
// CHECK:         relay.cast %{{.*}} {dtype = i32} : (tensor<2x4xf32>) -> tensor<2x4xi32>
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

// qnn.add with constant scales and zero points: |v| <= 255 * (0.5 + 0.25) / 0.0625
// at most, far below 2**22: no NaN test, no clamp, the two-op rounding, int32 (the
// residual adds of a quantized ResNet: an int64 cast does not vectorise on AVX2).
// CHECK-LABEL: func.func @add_bounded
// CHECK:         %[[V:.*]] = relay.add %{{.*}}, %{{.*}} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT:    %[[M:.*]] = relay.constant dense<0x4B400000> : tensor<f32>
// CHECK-NEXT:    %[[U:.*]] = relay.add %[[V]], %[[M]]
// CHECK-NEXT:    %[[D:.*]] = relay.subtract %[[U]], %[[M]]
// CHECK-NEXT:    relay.cast %[[D]] {dtype = i32} : (tensor<4xf32>) -> tensor<4xi32>
// CHECK-NOT:     relay.not_equal
// CHECK-NOT:     relay.where
// CHECK-NOT:     i64
func.func @add_bounded(%a: tensor<4xui8>, %b: tensor<4xui8>) -> tensor<4xui8> {
  %sa = relay.constant dense<0.5> : tensor<f32>
  %sb = relay.constant dense<0.25> : tensor<f32>
  %so = relay.constant dense<0.0625> : tensor<f32>
  %za = relay.constant dense<128> : tensor<i32>
  %zo = relay.constant dense<3> : tensor<i32>
  %r = relay.qnn.add %a, %b, %sa, %za, %sb, %za, %so, %zo : (tensor<4xui8>, tensor<4xui8>, tensor<f32>, tensor<i32>, tensor<f32>, tensor<i32>, tensor<f32>, tensor<i32>) -> tensor<4xui8>
  func.return %r : tensor<4xui8>
}

// -----

// qnn.mul: |v| <= 255 * 255 * (0.5 * 0.5 / 0.0625) = 4 * 255**2 < 2**22: bounded too.
// CHECK-LABEL: func.func @mul_bounded
// CHECK:         relay.constant dense<0x4B400000> : tensor<f32>
// CHECK-NOT:     relay.not_equal
// CHECK-NOT:     relay.where
// CHECK-NOT:     i64
func.func @mul_bounded(%a: tensor<4xui8>, %b: tensor<4xui8>) -> tensor<4xui8> {
  %s = relay.constant dense<0.5> : tensor<f32>
  %so = relay.constant dense<0.0625> : tensor<f32>
  %z = relay.constant dense<0> : tensor<i32>
  %r = relay.qnn.mul %a, %b, %s, %z, %s, %z, %so, %z : (tensor<4xui8>, tensor<4xui8>, tensor<f32>, tensor<i32>, tensor<f32>, tensor<i32>, tensor<f32>, tensor<i32>) -> tensor<4xui8>
  func.return %r : tensor<4xui8>
}

// -----

// Negative: int32 operands (|x - zp| up to 2**32) make |v| reach past 2**23: the
// general rounding with the sign shift and the where, in int64; and a zero point
// that is not a constant keeps every step.
// CHECK-LABEL: func.func @add_wide
// CHECK-NOT:     relay.not_equal
// CHECK:         relay.sign
// CHECK:         relay.where
// CHECK:         relay.cast %{{.*}} {dtype = i64}
// CHECK-LABEL: func.func @add_unknown_zero_point
// CHECK:         relay.not_equal
// CHECK:         relay.where
func.func @add_wide(%a: tensor<4xi32>, %b: tensor<4xi32>) -> tensor<4xi32> {
  %s = relay.constant dense<0.5> : tensor<f32>
  %z = relay.constant dense<0> : tensor<i32>
  %r = relay.qnn.add %a, %b, %s, %z, %s, %z, %s, %z : (tensor<4xi32>, tensor<4xi32>, tensor<f32>, tensor<i32>, tensor<f32>, tensor<i32>, tensor<f32>, tensor<i32>) -> tensor<4xi32>
  func.return %r : tensor<4xi32>
}
func.func @add_unknown_zero_point(%a: tensor<4xui8>, %b: tensor<4xui8>, %za: tensor<i32>) -> tensor<4xui8> {
  %s = relay.constant dense<0.5> : tensor<f32>
  %z = relay.constant dense<0> : tensor<i32>
  %r = relay.qnn.add %a, %b, %s, %za, %s, %z, %s, %z : (tensor<4xui8>, tensor<4xui8>, tensor<f32>, tensor<i32>, tensor<f32>, tensor<i32>, tensor<f32>, tensor<i32>) -> tensor<4xui8>
  func.return %r : tensor<4xui8>
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
