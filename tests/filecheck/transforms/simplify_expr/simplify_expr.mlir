// RUN: xrelay-opt %s -p simplify-expr --split-input-file | filecheck %s

// Concretize the *_like ops when the result type is static.

// CHECK-LABEL: func.func @zeros_like
// CHECK-NEXT:    %[[R:.*]] = relay.zeros {shape = array<i64: 2, 3>, dtype = f32} : tensor<2x3xf32>
// CHECK-NEXT:    func.return %[[R]]
func.func @zeros_like(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = relay.zeros_like %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
  func.return %0 : tensor<2x3xf32>
}

// -----

// CHECK-LABEL: func.func @ones_like
// CHECK-NEXT:    %[[R:.*]] = relay.ones {shape = array<i64: 4>, dtype = i32} : tensor<4xi32>
// CHECK-NEXT:    func.return %[[R]]
func.func @ones_like(%x: tensor<4xi32>) -> tensor<4xi32> {
  %0 = relay.ones_like %x : (tensor<4xi32>) -> tensor<4xi32>
  func.return %0 : tensor<4xi32>
}

// -----

// CHECK-LABEL: func.func @full_like
// CHECK-NEXT:    %[[R:.*]] = relay.full %v {shape = array<i64: 2, 2>, dtype = f32} : (tensor<f32>) -> tensor<2x2xf32>
// CHECK-NEXT:    func.return %[[R]]
func.func @full_like(%x: tensor<2x2xf32>, %v: tensor<f32>) -> tensor<2x2xf32> {
  %0 = relay.full_like %x, %v : (tensor<2x2xf32>, tensor<f32>) -> tensor<2x2xf32>
  func.return %0 : tensor<2x2xf32>
}

// -----

// CHECK-LABEL: func.func @reshape_like
// CHECK-NEXT:    %[[R:.*]] = relay.reshape %x {newshape = array<i64: 3, 2>} : (tensor<2x3xf32>) -> tensor<3x2xf32>
// CHECK-NEXT:    func.return %[[R]]
func.func @reshape_like(%x: tensor<2x3xf32>, %y: tensor<3x2xf32>) -> tensor<3x2xf32> {
  %0 = relay.reshape_like %x, %y : (tensor<2x3xf32>, tensor<3x2xf32>) -> tensor<3x2xf32>
  func.return %0 : tensor<3x2xf32>
}

// -----

// CHECK-LABEL: func.func @collapse_sum_like
// CHECK-NEXT:    %[[R:.*]] = relay.collapse_sum_to %x {shape = array<i64: 3, 1>} : (tensor<2x3x4xf32>) -> tensor<3x1xf32>
// CHECK-NEXT:    func.return %[[R]]
func.func @collapse_sum_like(%x: tensor<2x3x4xf32>, %y: tensor<3x1xf32>) -> tensor<3x1xf32> {
  %0 = relay.collapse_sum_like %x, %y : (tensor<2x3x4xf32>, tensor<3x1xf32>) -> tensor<3x1xf32>
  func.return %0 : tensor<3x1xf32>
}

// -----

// CHECK-LABEL: func.func @broadcast_to_like
// CHECK-NEXT:    %[[R:.*]] = relay.broadcast_to %x {shape = array<i64: 2, 3>} : (tensor<3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT:    func.return %[[R]]
func.func @broadcast_to_like(%x: tensor<3xf32>, %y: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = relay.broadcast_to_like %x, %y : (tensor<3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  func.return %0 : tensor<2x3xf32>
}

// -----

// cast_like becomes cast even with a dynamic shape.
// CHECK-LABEL: func.func @cast_like
// CHECK-NEXT:    %[[R:.*]] = relay.cast %x {dtype = f16} : (tensor<?x3xf32>) -> tensor<?x3xf16>
// CHECK-NEXT:    func.return %[[R]]
func.func @cast_like(%x: tensor<?x3xf32>, %y: tensor<1xf16>) -> tensor<?x3xf16> {
  %0 = relay.cast_like %x, %y : (tensor<?x3xf32>, tensor<1xf16>) -> tensor<?x3xf16>
  func.return %0 : tensor<?x3xf16>
}

// -----

// Not concretized: the shape is dynamic.
// CHECK-LABEL: func.func @zeros_like_dynamic
// CHECK-NEXT:    %[[R:.*]] = relay.zeros_like %x
// CHECK-NEXT:    func.return %[[R]]
func.func @zeros_like_dynamic(%x: tensor<?x3xf32>) -> tensor<?x3xf32> {
  %0 = relay.zeros_like %x : (tensor<?x3xf32>) -> tensor<?x3xf32>
  func.return %0 : tensor<?x3xf32>
}

// -----

// x + x -> x * 2
// CHECK-LABEL: func.func @add_self
// CHECK-NEXT:    %[[C:.*]] = relay.constant dense<2.000000e+00> : tensor<f32>
// CHECK-NEXT:    %[[R:.*]] = relay.multiply %x, %[[C]] : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
// CHECK-NEXT:    func.return %[[R]]
func.func @add_self(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = relay.add %x, %x : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  func.return %0 : tensor<2x3xf32>
}

// -----

// x / sqrt(y) -> x * rsqrt(y)
// CHECK-LABEL: func.func @rsqrt
// CHECK-NEXT:    %[[S:.*]] = relay.rsqrt %y : (tensor<3xf32>) -> tensor<3xf32>
// CHECK-NEXT:    %[[R:.*]] = relay.multiply %x, %[[S]] : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT:    func.return %[[R]]
func.func @rsqrt(%x: tensor<2x3xf32>, %y: tensor<3xf32>) -> tensor<2x3xf32> {
  %0 = relay.sqrt %y : (tensor<3xf32>) -> tensor<3xf32>
  %1 = relay.divide %x, %0 : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  func.return %1 : tensor<2x3xf32>
}

// -----

// Identities with constants and zeros/ones ops, both operand orders.
// CHECK-LABEL: func.func @identities
// CHECK-NEXT:    func.return %x : tensor<2x3xf32>
func.func @identities(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %zero = relay.constant dense<0.0> : tensor<f32>
  %one = relay.constant dense<1.0> : tensor<1x1xf32>
  %zeros = relay.zeros {shape = array<i64: 3>, dtype = f32} : tensor<3xf32>
  %ones = relay.ones_like %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %0 = relay.add %x, %zero : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
  %1 = relay.multiply %one, %0 : (tensor<1x1xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %2 = relay.subtract %1, %zeros : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %3 = relay.divide %2, %ones : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %4 = relay.add %zeros, %3 : (tensor<3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  func.return %4 : tensor<2x3xf32>
}

// -----

// Must not rewrite: the zeros broadcast x to a bigger shape.
// CHECK-LABEL: func.func @identity_changes_shape
// CHECK-NEXT:    %[[Z:.*]] = relay.zeros {shape = array<i64: 2, 3>, dtype = f32} : tensor<2x3xf32>
// CHECK-NEXT:    %[[R:.*]] = relay.add %x, %[[Z]] : (tensor<3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT:    func.return %[[R]]
func.func @identity_changes_shape(%x: tensor<3xf32>) -> tensor<2x3xf32> {
  %z = relay.zeros {shape = array<i64: 2, 3>, dtype = f32} : tensor<2x3xf32>
  %0 = relay.add %x, %z : (tensor<3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  func.return %0 : tensor<2x3xf32>
}

// -----

// Must not rewrite: the constant is not all ones.
// CHECK-LABEL: func.func @not_identity
// CHECK:         relay.multiply
func.func @not_identity(%x: tensor<2xf32>) -> tensor<2xf32> {
  %c = relay.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %0 = relay.multiply %x, %c : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  func.return %0 : tensor<2xf32>
}

// -----

// CHECK-LABEL: func.func @reshape_chain
// CHECK-NEXT:    %[[R:.*]] = relay.reshape %x {newshape = array<i64: 3, 4>} : (tensor<2x6xf32>) -> tensor<3x4xf32>
// CHECK-NEXT:    func.return %[[R]]
func.func @reshape_chain(%x: tensor<2x6xf32>) -> tensor<3x4xf32> {
  %0 = relay.reshape %x {newshape = array<i64: -1>} : (tensor<2x6xf32>) -> tensor<12xf32>
  %1 = relay.reshape %0 {newshape = array<i64: 6, 2>} : (tensor<12xf32>) -> tensor<6x2xf32>
  %2 = relay.reshape %1 {newshape = array<i64: 3, -1>} : (tensor<6x2xf32>) -> tensor<3x4xf32>
  func.return %2 : tensor<3x4xf32>
}

// -----

// CHECK-LABEL: func.func @reshape_noop
// CHECK-NEXT:    func.return %x : tensor<2x6xf32>
func.func @reshape_noop(%x: tensor<2x6xf32>) -> tensor<2x6xf32> {
  %0 = relay.reshape %x {newshape = array<i64: 0, -1>} : (tensor<2x6xf32>) -> tensor<2x6xf32>
  func.return %0 : tensor<2x6xf32>
}

// -----

// CHECK-LABEL: func.func @transpose_chain
// CHECK-NEXT:    %[[R:.*]] = relay.transpose %x {axes = array<i64: 2, 0, 1>} : (tensor<2x3x4xf32>) -> tensor<4x2x3xf32>
// CHECK-NEXT:    func.return %[[R]]
func.func @transpose_chain(%x: tensor<2x3x4xf32>) -> tensor<4x2x3xf32> {
  %0 = relay.transpose %x {axes = array<i64: 1, 0, 2>} : (tensor<2x3x4xf32>) -> tensor<3x2x4xf32>
  %1 = relay.transpose %0 {axes = array<i64: 2, 1, 0>} : (tensor<3x2x4xf32>) -> tensor<4x2x3xf32>
  func.return %1 : tensor<4x2x3xf32>
}

// -----

// CHECK-LABEL: func.func @transpose_cancel
// CHECK-NEXT:    func.return %x : tensor<2x3x4xf32>
func.func @transpose_cancel(%x: tensor<2x3x4xf32>) -> tensor<2x3x4xf32> {
  %0 = relay.transpose %x {axes = array<i64: 1, 2, 0>} : (tensor<2x3x4xf32>) -> tensor<3x4x2xf32>
  %1 = relay.transpose %0 {axes = array<i64: 2, 0, 1>} : (tensor<3x4x2xf32>) -> tensor<2x3x4xf32>
  func.return %1 : tensor<2x3x4xf32>
}

// -----

// CHECK-LABEL: func.func @layout_transform_cancel
// CHECK-NEXT:    func.return %x : tensor<1x8x4x4xf32>
func.func @layout_transform_cancel(%x: tensor<1x8x4x4xf32>) -> tensor<1x8x4x4xf32> {
  %0 = relay.layout_transform %x {src_layout = "NCHW", dst_layout = "NCHW4c"} : (tensor<1x8x4x4xf32>) -> tensor<1x2x4x4x4xf32>
  %1 = relay.layout_transform %0 {src_layout = "NCHW4c", dst_layout = "NCHW"} : (tensor<1x2x4x4x4xf32>) -> tensor<1x8x4x4xf32>
  func.return %1 : tensor<1x8x4x4xf32>
}

// -----

// CHECK-LABEL: func.func @layout_transform_chain
// CHECK-NEXT:    %[[R:.*]] = relay.layout_transform %x {src_layout = "NCHW", dst_layout = "NCHW8c"} : (tensor<1x16x4x4xf32>) -> tensor<1x2x4x4x8xf32>
// CHECK-NEXT:    func.return %[[R]]
func.func @layout_transform_chain(%x: tensor<1x16x4x4xf32>) -> tensor<1x2x4x4x8xf32> {
  %0 = relay.layout_transform %x {src_layout = "NCHW", dst_layout = "NCHW4c"} : (tensor<1x16x4x4xf32>) -> tensor<1x4x4x4x4xf32>
  %1 = relay.layout_transform %0 {src_layout = "NCHW4c", dst_layout = "NCHW8c"} : (tensor<1x4x4x4x4xf32>) -> tensor<1x2x4x4x8xf32>
  func.return %1 : tensor<1x2x4x4x8xf32>
}

// -----

// A transpose before a rank-changing layout transform folds into it.
// CHECK-LABEL: func.func @transpose_then_blocking
// CHECK-NEXT:    %[[R:.*]] = relay.layout_transform %x {src_layout = "NHWC", dst_layout = "NCHW4c"} : (tensor<1x5x6x8xf32>) -> tensor<1x2x5x6x4xf32>
// CHECK-NEXT:    func.return %[[R]]
func.func @transpose_then_blocking(%x: tensor<1x5x6x8xf32>) -> tensor<1x2x5x6x4xf32> {
  %0 = relay.transpose %x {axes = array<i64: 0, 3, 1, 2>} : (tensor<1x5x6x8xf32>) -> tensor<1x8x5x6xf32>
  %1 = relay.layout_transform %0 {src_layout = "NCHW", dst_layout = "NCHW4c"} : (tensor<1x8x5x6xf32>) -> tensor<1x2x5x6x4xf32>
  func.return %1 : tensor<1x2x5x6x4xf32>
}

// -----

// A layout transform that permutes, then a transpose: one transpose.
// CHECK-LABEL: func.func @layout_permute_then_transpose
// CHECK-NEXT:    %[[R:.*]] = relay.transpose %x {axes = array<i64: 0, 3, 2, 1>} : (tensor<1x8x5x6xf32>) -> tensor<1x6x5x8xf32>
// CHECK-NEXT:    func.return %[[R]]
func.func @layout_permute_then_transpose(%x: tensor<1x8x5x6xf32>) -> tensor<1x6x5x8xf32> {
  %0 = relay.layout_transform %x {src_layout = "NCHW", dst_layout = "NHWC"} : (tensor<1x8x5x6xf32>) -> tensor<1x5x6x8xf32>
  %1 = relay.transpose %0 {axes = array<i64: 0, 2, 1, 3>} : (tensor<1x5x6x8xf32>) -> tensor<1x6x5x8xf32>
  func.return %1 : tensor<1x6x5x8xf32>
}

// -----

// CHECK-LABEL: func.func @noop_transposes
// CHECK-NEXT:    func.return %x : tensor<2x3xf32>
func.func @noop_transposes(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = relay.transpose %x {axes = array<i64: 0, 1>} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %1 = relay.layout_transform %0 {src_layout = "NC", dst_layout = "NC"} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  func.return %1 : tensor<2x3xf32>
}

// -----

// CHECK-LABEL: func.func @same_cast
// CHECK-NEXT:    func.return %x : tensor<4xi32>
func.func @same_cast(%x: tensor<4xi32>, %y: tensor<2xi32>) -> tensor<4xi32> {
  %0 = relay.cast %x {dtype = i32} : (tensor<4xi32>) -> tensor<4xi32>
  %1 = relay.cast_like %0, %y : (tensor<4xi32>, tensor<2xi32>) -> tensor<4xi32>
  func.return %1 : tensor<4xi32>
}

// -----

// The first cast widens: one cast.
// CHECK-LABEL: func.func @widen_then_cast
// CHECK-NEXT:    %[[R:.*]] = relay.cast %x {dtype = f64} : (tensor<4xi8>) -> tensor<4xf64>
// CHECK-NEXT:    func.return %[[R]]
func.func @widen_then_cast(%x: tensor<4xi8>) -> tensor<4xf64> {
  %0 = relay.cast %x {dtype = i32} : (tensor<4xi8>) -> tensor<4xi32>
  %1 = relay.cast %0 {dtype = f64} : (tensor<4xi32>) -> tensor<4xf64>
  func.return %1 : tensor<4xf64>
}

// -----

// Must not rewrite: the first cast narrows (f32 -> f16 loses precision).
// CHECK-LABEL: func.func @narrow_then_widen
// CHECK-NEXT:    %[[A:.*]] = relay.cast %x {dtype = f16} : (tensor<4xf32>) -> tensor<4xf16>
// CHECK-NEXT:    %[[B:.*]] = relay.cast %[[A]] {dtype = f32} : (tensor<4xf16>) -> tensor<4xf32>
// CHECK-NEXT:    func.return %[[B]]
func.func @narrow_then_widen(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = relay.cast %x {dtype = f16} : (tensor<4xf32>) -> tensor<4xf16>
  %1 = relay.cast %0 {dtype = f32} : (tensor<4xf16>) -> tensor<4xf32>
  func.return %1 : tensor<4xf32>
}

// -----

// Must not rewrite: i32 -> f32 is not exact for large integers.
// CHECK-LABEL: func.func @int_to_float_not_exact
// CHECK-NEXT:    relay.cast %x {dtype = f32}
// CHECK-NEXT:    relay.cast %{{.*}} {dtype = f64}
func.func @int_to_float_not_exact(%x: tensor<4xi32>) -> tensor<4xf64> {
  %0 = relay.cast %x {dtype = f32} : (tensor<4xi32>) -> tensor<4xf32>
  %1 = relay.cast %0 {dtype = f64} : (tensor<4xf32>) -> tensor<4xf64>
  func.return %1 : tensor<4xf64>
}

// -----

// full/ones/zeros operands of broadcasting ops become scalar constants.
// CHECK-LABEL: func.func @full_elementwise
// CHECK-NEXT:    %[[C:.*]] = relay.constant dense<3.000000e+00> : tensor<f32>
// CHECK-NEXT:    %[[A:.*]] = relay.maximum %x, %[[C]] : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
// CHECK-NEXT:    %[[O:.*]] = relay.constant dense<1.000000e+00> : tensor<f32>
// CHECK-NEXT:    %[[B:.*]] = relay.subtract %[[O]], %[[A]] : (tensor<f32>, tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT:    func.return %[[B]]
func.func @full_elementwise(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %v = relay.constant dense<3.0> : tensor<f32>
  %f = relay.full %v {shape = array<i64: 2, 3>} : (tensor<f32>) -> tensor<2x3xf32>
  %0 = relay.maximum %x, %f : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %ones = relay.ones {shape = array<i64: 3>, dtype = f32} : tensor<3xf32>
  %1 = relay.subtract %ones, %0 : (tensor<3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  func.return %1 : tensor<2x3xf32>
}

// -----

// (x + c1) * c2 -> x * c2 + c1 * c2
// CHECK-LABEL: func.func @switch_add_multiply
// CHECK-NEXT:    %[[C2:.*]] = relay.constant dense<[2.000000e+00, 3.000000e+00]> : tensor<2xf32>
// CHECK-NEXT:    %[[M:.*]] = relay.multiply %x, %[[C2]] : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
// CHECK-NEXT:    %[[C:.*]] = relay.constant dense<[2.000000e+00, 6.000000e+00]> : tensor<2xf32>
// CHECK-NEXT:    %[[R:.*]] = relay.add %[[M]], %[[C]] : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
// CHECK-NEXT:    func.return %[[R]]
func.func @switch_add_multiply(%x: tensor<2xf32>) -> tensor<2xf32> {
  %c1 = relay.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %c2 = relay.constant dense<[2.0, 3.0]> : tensor<2xf32>
  %0 = relay.add %c1, %x : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  %1 = relay.multiply %0, %c2 : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  func.return %1 : tensor<2xf32>
}

// -----

// CHECK-LABEL: func.func @adjacent_multiply_and_add
// CHECK-NEXT:    %[[M:.*]] = relay.constant dense<6.000000e+00> : tensor<f32>
// CHECK-NEXT:    %[[X:.*]] = relay.multiply %x, %[[M]] : (tensor<2xf32>, tensor<f32>) -> tensor<2xf32>
// CHECK-NEXT:    %[[A:.*]] = relay.constant dense<[5.000000e+00, 6.000000e+00]> : tensor<2xf32>
// CHECK-NEXT:    %[[R:.*]] = relay.add %[[X]], %[[A]] : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
// CHECK-NEXT:    func.return %[[R]]
func.func @adjacent_multiply_and_add(%x: tensor<2xf32>) -> tensor<2xf32> {
  %c2 = relay.constant dense<2.0> : tensor<f32>
  %c3 = relay.constant dense<3.0> : tensor<f32>
  %c4 = relay.constant dense<[4.0, 5.0]> : tensor<2xf32>
  %c1 = relay.constant dense<1.0> : tensor<f32>
  %0 = relay.multiply %x, %c2 : (tensor<2xf32>, tensor<f32>) -> tensor<2xf32>
  %1 = relay.multiply %c3, %0 : (tensor<f32>, tensor<2xf32>) -> tensor<2xf32>
  %2 = relay.add %1, %c4 : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  %3 = relay.add %2, %c1 : (tensor<2xf32>, tensor<f32>) -> tensor<2xf32>
  func.return %3 : tensor<2xf32>
}

// -----

// An i32 clip to [0, 255] cast to u8 and back: just the clip.
// CHECK-LABEL: func.func @clip_cast_cast
// CHECK-NEXT:    %[[C:.*]] = relay.clip %x {a_min = 0.000000e+00 : f64, a_max = 2.550000e+02 : f64} : (tensor<4xi32>) -> tensor<4xi32>
// CHECK-NEXT:    func.return %[[C]]
func.func @clip_cast_cast(%x: tensor<4xi32>) -> tensor<4xi32> {
  %0 = relay.clip %x {a_min = 0.0 : f64, a_max = 255.0 : f64} : (tensor<4xi32>) -> tensor<4xi32>
  %1 = relay.cast %0 {dtype = ui8} : (tensor<4xi32>) -> tensor<4xui8>
  %2 = relay.cast %1 {dtype = i32} : (tensor<4xui8>) -> tensor<4xi32>
  func.return %2 : tensor<4xi32>
}

// -----

// Must not rewrite: a float clip cast to u8 truncates.
// CHECK-LABEL: func.func @float_clip_cast_cast
// CHECK-NEXT:    relay.clip
// CHECK-NEXT:    relay.cast %{{.*}} {dtype = ui8}
// CHECK-NEXT:    relay.cast %{{.*}} {dtype = f32}
func.func @float_clip_cast_cast(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = relay.clip %x {a_min = 0.0 : f64, a_max = 255.0 : f64} : (tensor<4xf32>) -> tensor<4xf32>
  %1 = relay.cast %0 {dtype = ui8} : (tensor<4xf32>) -> tensor<4xui8>
  %2 = relay.cast %1 {dtype = f32} : (tensor<4xui8>) -> tensor<4xf32>
  func.return %2 : tensor<4xf32>
}

// -----

// A clip covering the whole u8 range is dropped.
// CHECK-LABEL: func.func @clip_covers_dtype
// CHECK-NEXT:    %[[C:.*]] = relay.cast %x {dtype = ui8} : (tensor<4xf32>) -> tensor<4xui8>
// CHECK-NEXT:    func.return %[[C]]
func.func @clip_covers_dtype(%x: tensor<4xf32>) -> tensor<4xui8> {
  %0 = relay.cast %x {dtype = ui8} : (tensor<4xf32>) -> tensor<4xui8>
  %1 = relay.clip %0 {a_min = 0.0 : f64, a_max = 255.0 : f64} : (tensor<4xui8>) -> tensor<4xui8>
  func.return %1 : tensor<4xui8>
}

// -----

// CHECK-LABEL: func.func @clip_of_clip
// CHECK-NEXT:    %[[C:.*]] = relay.clip %x {a_min = 0.000000e+00 : f64, a_max = 6.000000e+00 : f64} : (tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT:    func.return %[[C]]
func.func @clip_of_clip(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = relay.clip %x {a_min = -1.0 : f64, a_max = 6.0 : f64} : (tensor<4xf32>) -> tensor<4xf32>
  %1 = relay.clip %0 {a_min = 0.0 : f64, a_max = 10.0 : f64} : (tensor<4xf32>) -> tensor<4xf32>
  func.return %1 : tensor<4xf32>
}

// -----

// A float clip cast to u8 then i16 then i32: the u8 cast truncates as one cast to
// i32 would, and the later casts keep [0, 255]: one cast.
// CHECK-LABEL: func.func @float_clip_to_int_chain
// CHECK-NEXT:    %[[C:.*]] = relay.clip %x
// CHECK-NEXT:    %[[R:.*]] = relay.cast %[[C]] {dtype = i32} : (tensor<4xf32>) -> tensor<4xi32>
// CHECK-NEXT:    func.return %[[R]]
func.func @float_clip_to_int_chain(%x: tensor<4xf32>) -> tensor<4xi32> {
  %0 = relay.clip %x {a_min = 0.0 : f64, a_max = 255.0 : f64} : (tensor<4xf32>) -> tensor<4xf32>
  %1 = relay.cast %0 {dtype = ui8} : (tensor<4xf32>) -> tensor<4xui8>
  %2 = relay.cast %1 {dtype = i16} : (tensor<4xui8>) -> tensor<4xi16>
  %3 = relay.cast %2 {dtype = i32} : (tensor<4xi16>) -> tensor<4xi32>
  func.return %3 : tensor<4xi32>
}

// -----

// argmax of a dequantize with a positive scale: the op on the integers; a negative
// scale (the order reverses) keeps the dequantize.
// CHECK-LABEL: func.func @argmax_of_dequantize
// CHECK-NEXT:    %[[A:.*]] = relay.argmax %x {axis = array<i64: 1>} : (tensor<2x5xi8>) -> tensor<2xi32>
// CHECK-NEXT:    %[[S:.*]] = relay.constant dense<-2.000000e+00>
// CHECK-NEXT:    %[[Z:.*]] = relay.constant dense<0>
// CHECK-NEXT:    %[[D:.*]] = relay.qnn.dequantize %x, %[[S]], %[[Z]]
// CHECK-NEXT:    %[[B:.*]] = relay.argmin %[[D]]
func.func @argmax_of_dequantize(%x: tensor<2x5xi8>) -> (tensor<2xi32>, tensor<2xi32>) {
  %s = relay.constant dense<2.0> : tensor<f32>
  %z = relay.constant dense<3> : tensor<i32>
  %d = relay.qnn.dequantize %x, %s, %z : (tensor<2x5xi8>, tensor<f32>, tensor<i32>) -> tensor<2x5xf32>
  %a = relay.argmax %d {axis = array<i64: 1>} : (tensor<2x5xf32>) -> tensor<2xi32>
  %n = relay.constant dense<-2.0> : tensor<f32>
  %z2 = relay.constant dense<0> : tensor<i32>
  %d2 = relay.qnn.dequantize %x, %n, %z2 : (tensor<2x5xi8>, tensor<f32>, tensor<i32>) -> tensor<2x5xf32>
  %b = relay.argmin %d2 {axis = array<i64: 1>} : (tensor<2x5xf32>) -> tensor<2xi32>
  func.return %a, %b : tensor<2xi32>, tensor<2xi32>
}
