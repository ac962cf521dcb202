// RUN: xrelay-opt %s -p fake-quantization-to-integer --split-input-file | filecheck %s

// add: qnn.add straight into the quantize's type (one rounding), no requantize.
// CHECK-LABEL: func.func @add
// CHECK-NEXT:    %q = relay.qnn.add %a, %b, %sa, %za, %sb, %zb, %so, %zo : (tensor<2x4xui8>, tensor<2x4xui8>, tensor<f32>, tensor<i32>, tensor<f32>, tensor<i32>, tensor<f32>, tensor<i32>) -> tensor<2x4xui8>
// CHECK-NEXT:    func.return %q
func.func @add(%a: tensor<2x4xui8>, %b: tensor<2x4xui8>, %sa: tensor<f32>, %za: tensor<i32>, %sb: tensor<f32>, %zb: tensor<i32>, %so: tensor<f32>, %zo: tensor<i32>) -> tensor<2x4xui8> {
  %0 = relay.qnn.dequantize %a, %sa, %za : (tensor<2x4xui8>, tensor<f32>, tensor<i32>) -> tensor<2x4xf32>
  %1 = relay.qnn.dequantize %b, %sb, %zb : (tensor<2x4xui8>, tensor<f32>, tensor<i32>) -> tensor<2x4xf32>
  %2 = relay.add %0, %1 : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  %q = relay.qnn.quantize %2, %so, %zo {out_dtype = ui8} : (tensor<2x4xf32>, tensor<f32>, tensor<i32>) -> tensor<2x4xui8>
  func.return %q : tensor<2x4xui8>
}

// -----

// The wanted type passes back through max_pool2d and reshape (they keep their
// operand's type) to the qnn.concatenate; the pool and the reshape run on integers.
// CHECK-LABEL: func.func @concat_pool_reshape
// CHECK-NEXT:    %[[C:.*]] = relay.qnn.concatenate %a, %b, %sa, %sb, %za, %zb, %so, %zo {axis = 1 : i64}
// CHECK-NEXT:    %[[P:.*]] = relay.nn.max_pool2d %[[C]] {pool_size = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<1x4x4x4xi8>) -> tensor<1x4x2x2xi8>
// CHECK-NEXT:    %q = relay.reshape %[[P]] {newshape = array<i64: 1, 16>} : (tensor<1x4x2x2xi8>) -> tensor<1x16xi8>
// CHECK-NEXT:    func.return %q
func.func @concat_pool_reshape(%a: tensor<1x2x4x4xi8>, %b: tensor<1x2x4x4xi8>, %sa: tensor<f32>, %za: tensor<i32>, %sb: tensor<f32>, %zb: tensor<i32>, %so: tensor<f32>, %zo: tensor<i32>) -> tensor<1x16xi8> {
  %0 = relay.qnn.dequantize %a, %sa, %za : (tensor<1x2x4x4xi8>, tensor<f32>, tensor<i32>) -> tensor<1x2x4x4xf32>
  %1 = relay.qnn.dequantize %b, %sb, %zb : (tensor<1x2x4x4xi8>, tensor<f32>, tensor<i32>) -> tensor<1x2x4x4xf32>
  %2 = relay.concatenate %0, %1 {axis = 1 : i64} : (tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) -> tensor<1x4x4x4xf32>
  %3 = relay.nn.max_pool2d %2 {pool_size = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<1x4x4x4xf32>) -> tensor<1x4x2x2xf32>
  %4 = relay.reshape %3 {newshape = array<i64: 1, 16>} : (tensor<1x4x2x2xf32>) -> tensor<1x16xf32>
  %q = relay.qnn.quantize %4, %so, %zo : (tensor<1x16xf32>, tensor<f32>, tensor<i32>) -> tensor<1x16xi8>
  func.return %q : tensor<1x16xi8>
}

// -----

// global_avg_pool2d is qnn.avg_pool2d over the plane; clip with constant parameters
// clips the integers to round(bound / scale) + zero point (0 -> 3, 6 / 0.5 + 3 = 15).
// CHECK-LABEL: func.func @pool_clip
// CHECK:         %[[P:.*]] = relay.qnn.avg_pool2d %x, %s, %z, %s, %z {pool_size = array<i64: 4, 4>} : (tensor<1x2x4x4xui8>, tensor<f32>, tensor<i32>, tensor<f32>, tensor<i32>) -> tensor<1x2x1x1xui8>
// CHECK-NEXT:    %q = relay.clip %[[P]] {a_min = 3.000000e+00 : f64, a_max = 1.500000e+01 : f64}
// CHECK-NEXT:    func.return %q
func.func @pool_clip(%x: tensor<1x2x4x4xui8>) -> tensor<1x2x1x1xui8> {
  %s = relay.constant dense<0.5> : tensor<f32>
  %z = relay.constant dense<3> : tensor<i32>
  %0 = relay.qnn.dequantize %x, %s, %z : (tensor<1x2x4x4xui8>, tensor<f32>, tensor<i32>) -> tensor<1x2x4x4xf32>
  %1 = relay.nn.global_avg_pool2d %0 : (tensor<1x2x4x4xf32>) -> tensor<1x2x1x1xf32>
  %2 = relay.clip %1 {a_min = 0.0 : f64, a_max = 6.0 : f64} : (tensor<1x2x1x1xf32>) -> tensor<1x2x1x1xf32>
  %q = relay.qnn.quantize %2, %s, %z {out_dtype = ui8} : (tensor<1x2x1x1xf32>, tensor<f32>, tensor<i32>) -> tensor<1x2x1x1xui8>
  func.return %q : tensor<1x2x1x1xui8>
}

// -----

// dequantize straight into quantize is a requantize.
// CHECK-LABEL: func.func @requantize
// CHECK-NEXT:    %q = relay.qnn.requantize %x, %s, %z, %so, %zo {out_dtype = ui8} : (tensor<5xi8>, tensor<f32>, tensor<i32>, tensor<f32>, tensor<i32>) -> tensor<5xui8>
// CHECK-NEXT:    func.return %q
func.func @requantize(%x: tensor<5xi8>, %s: tensor<f32>, %z: tensor<i32>, %so: tensor<f32>, %zo: tensor<i32>) -> tensor<5xui8> {
  %0 = relay.qnn.dequantize %x, %s, %z : (tensor<5xi8>, tensor<f32>, tensor<i32>) -> tensor<5xf32>
  %q = relay.qnn.quantize %0, %so, %zo {out_dtype = ui8} : (tensor<5xf32>, tensor<f32>, tensor<i32>) -> tensor<5xui8>
  func.return %q : tensor<5xui8>
}

// -----

// dense with a weight per unit and a float constant bias: qnn.dense, the bias
// quantized to the accumulator's scale along its one axis, an int32 add.
// CHECK-LABEL: func.func @dense_bias
// CHECK:         %[[D:.*]] = relay.qnn.dense %x, %w, %z, %{{.*}}, %s, %sw : (tensor<2x8xi8>, tensor<3x8xi8>, tensor<i32>, tensor<i32>, tensor<f32>, tensor<3xf32>) -> tensor<2x3xi32>
// CHECK-NEXT:    %[[S:.*]] = relay.multiply %s, %sw
// CHECK-NEXT:    %[[Z:.*]] = relay.constant dense<0> : tensor<i32>
// CHECK-NEXT:    %[[B:.*]] = relay.qnn.quantize %bias, %[[S]], %[[Z]] {axis = 0 : i64, out_dtype = i32}
// CHECK-NEXT:    %[[A:.*]] = relay.add %[[D]], %[[B]] : (tensor<2x3xi32>, tensor<3xi32>) -> tensor<2x3xi32>
// CHECK-NEXT:    %q = relay.qnn.requantize %[[A]], %[[S]], %[[Z]], %s, %z {axis = 1 : i64}
func.func @dense_bias(%x: tensor<2x8xi8>, %w: tensor<3x8xi8>, %s: tensor<f32>, %z: tensor<i32>, %sw: tensor<3xf32>) -> tensor<2x3xi8> {
  %bias = relay.constant dense<[0.5, -1.0, 2.0]> : tensor<3xf32>
  %zw = relay.constant dense<0> : tensor<3xi32>
  %0 = relay.qnn.dequantize %x, %s, %z : (tensor<2x8xi8>, tensor<f32>, tensor<i32>) -> tensor<2x8xf32>
  %1 = relay.qnn.dequantize %w, %sw, %zw {axis = 0 : i64} : (tensor<3x8xi8>, tensor<3xf32>, tensor<3xi32>) -> tensor<3x8xf32>
  %2 = relay.nn.dense %0, %1 : (tensor<2x8xf32>, tensor<3x8xf32>) -> tensor<2x3xf32>
  %3 = relay.add %2, %bias : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %q = relay.qnn.quantize %3, %s, %z : (tensor<2x3xf32>, tensor<f32>, tensor<i32>) -> tensor<2x3xi8>
  func.return %q : tensor<2x3xi8>
}

// -----

// A transposed weight per column (MatMul's B as the importer writes it) is per
// channel along axis 0 after the transpose: qnn.dense per unit.
// CHECK-LABEL: func.func @transposed_weight
// CHECK:         %[[T:.*]] = relay.transpose %w {axes = array<i64: 1, 0>} : (tensor<8x3xi8>) -> tensor<3x8xi8>
// CHECK:         relay.qnn.dense %x, %[[T]], %z, %{{.*}}, %s, %sw : (tensor<2x8xi8>, tensor<3x8xi8>, tensor<i32>, tensor<i32>, tensor<f32>, tensor<3xf32>) -> tensor<2x3xi32>
// CHECK:         %q = relay.qnn.requantize {{.*}} {axis = 1 : i64}
func.func @transposed_weight(%x: tensor<2x8xi8>, %w: tensor<8x3xi8>, %s: tensor<f32>, %z: tensor<i32>, %sw: tensor<3xf32>) -> tensor<2x3xi8> {
  %zw = relay.constant dense<0> : tensor<3xi32>
  %0 = relay.qnn.dequantize %x, %s, %z : (tensor<2x8xi8>, tensor<f32>, tensor<i32>) -> tensor<2x8xf32>
  %1 = relay.qnn.dequantize %w, %sw, %zw {axis = 1 : i64} : (tensor<8x3xi8>, tensor<3xf32>, tensor<3xi32>) -> tensor<8x3xf32>
  %2 = relay.transpose %1 {axes = array<i64: 1, 0>} : (tensor<8x3xf32>) -> tensor<3x8xf32>
  %3 = relay.nn.dense %0, %2 : (tensor<2x8xf32>, tensor<3x8xf32>) -> tensor<2x3xf32>
  %q = relay.qnn.quantize %3, %s, %z : (tensor<2x3xf32>, tensor<f32>, tensor<i32>) -> tensor<2x3xi8>
  func.return %q : tensor<2x3xi8>
}
