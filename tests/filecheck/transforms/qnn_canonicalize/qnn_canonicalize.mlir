// RUN: xrelay-opt %s -p qnn-canonicalize --split-input-file | filecheck %s

// dequantize: int32 difference, one float32 multiply; the per-channel scale is
// reshaped to broadcast along axis 1.
// CHECK-LABEL: func.func @dequantize
// CHECK-NEXT:    %[[S:.*]] = relay.reshape %s {newshape = array<i64: 1, 3>} : (tensor<3xf32>) -> tensor<1x3xf32>
// CHECK-NEXT:    %[[Q:.*]] = relay.cast %q {dtype = i32} : (tensor<2x3xui8>) -> tensor<2x3xi32>
// CHECK-NEXT:    %[[D:.*]] = relay.subtract %[[Q]], %z : (tensor<2x3xi32>, tensor<i32>) -> tensor<2x3xi32>
// CHECK-NEXT:    %[[F:.*]] = relay.cast %[[D]] {dtype = f32} : (tensor<2x3xi32>) -> tensor<2x3xf32>
// CHECK-NEXT:    %d = relay.multiply %[[F]], %[[S]] : (tensor<2x3xf32>, tensor<1x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT:    func.return %d
// CHECK-NOT:     relay.qnn
func.func @dequantize(%q: tensor<2x3xui8>, %s: tensor<3xf32>, %z: tensor<i32>) -> tensor<2x3xf32> {
  %d = relay.qnn.dequantize %q, %s, %z : (tensor<2x3xui8>, tensor<3xf32>, tensor<i32>) -> tensor<2x3xf32>
  func.return %d : tensor<2x3xf32>
}

// -----

// quantize: float32 division; NaN to the low bound; clamp; ties to even with the
// 2**23 shift (where |v| < 2**23); int64 zero point; saturation; cast.
// CHECK-LABEL: func.func @quantize
// CHECK-NEXT:    %[[V:.*]] = relay.divide %x, %s : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
// CHECK-NEXT:    %[[NAN:.*]] = relay.not_equal %[[V]], %[[V]]
// CHECK-NEXT:    %[[LOW:.*]] = relay.constant dense<-1.09951163e+12> : tensor<f32>
// CHECK-NEXT:    %[[V1:.*]] = relay.where %[[NAN]], %[[LOW]], %[[V]]
// CHECK-NEXT:    %[[V2:.*]] = relay.clip %[[V1]] {a_min = 0xC270000000000000 : f64, a_max = 0x4270000000000000 : f64}
// CHECK-NEXT:    %[[SIGN:.*]] = relay.sign %[[V2]]
// CHECK-NEXT:    %[[TWO23:.*]] = relay.constant dense<0x4B000000> : tensor<f32>
// CHECK-NEXT:    %[[SHIFT:.*]] = relay.multiply %[[SIGN]], %[[TWO23]]
// CHECK-NEXT:    %[[UP:.*]] = relay.add %[[V2]], %[[SHIFT]]
// CHECK-NEXT:    %[[R:.*]] = relay.subtract %[[UP]], %[[SHIFT]]
// CHECK-NEXT:    %[[ABS:.*]] = relay.abs %[[V2]]
// CHECK:         %[[SMALL:.*]] = relay.less %[[ABS]]
// CHECK-NEXT:    %[[RE:.*]] = relay.where %[[SMALL]], %[[R]], %[[V2]]
// CHECK-NEXT:    %[[I:.*]] = relay.cast %[[RE]] {dtype = i64}
// CHECK-NEXT:    %[[Z:.*]] = relay.cast %z {dtype = i64}
// CHECK-NEXT:    %[[T:.*]] = relay.add %[[I]], %[[Z]]
// CHECK-NEXT:    %[[C:.*]] = relay.clip %[[T]] {a_min = 0.000000e+00 : f64, a_max = 2.550000e+02 : f64} : (tensor<4xi64>) -> tensor<4xi64>
// CHECK-NEXT:    %q = relay.cast %[[C]] {dtype = ui8} : (tensor<4xi64>) -> tensor<4xui8>
func.func @quantize(%x: tensor<4xf32>, %s: tensor<f32>, %z: tensor<i32>) -> tensor<4xui8> {
  %q = relay.qnn.quantize %x, %s, %z {out_dtype = ui8} : (tensor<4xf32>, tensor<f32>, tensor<i32>) -> tensor<4xui8>
  func.return %q : tensor<4xui8>
}

// -----

// requantize: the float32 multiplier s_in / s_out; UPWARD rounds with floor.
// CHECK-LABEL: func.func @requantize
// CHECK-NEXT:    %[[D:.*]] = relay.subtract %a, %zi : (tensor<4xi32>, tensor<i32>) -> tensor<4xi32>
// CHECK-NEXT:    %[[M:.*]] = relay.divide %si, %so : (tensor<f32>, tensor<f32>) -> tensor<f32>
// CHECK-NEXT:    %[[F:.*]] = relay.cast %[[D]] {dtype = f32}
// CHECK-NEXT:    %[[V:.*]] = relay.multiply %[[F]], %[[M]]
// CHECK:         relay.floor
// CHECK:         relay.greater_equal
// CHECK:         %r = relay.cast %{{.*}} {dtype = i8} : (tensor<4xi64>) -> tensor<4xi8>
func.func @requantize(%a: tensor<4xi32>, %si: tensor<f32>, %zi: tensor<i32>, %so: tensor<f32>, %zo: tensor<i32>) -> tensor<4xi8> {
  %r = relay.qnn.requantize %a, %si, %zi, %so, %zo {rounding = "UPWARD"} : (tensor<4xi32>, tensor<f32>, tensor<i32>, tensor<f32>, tensor<i32>) -> tensor<4xi8>
  func.return %r : tensor<4xi8>
}

// -----

// conv2d: centred int32 operands into nn.conv2d with out_dtype i32 and the same
// attributes; a one-element zero point becomes a scalar.
// CHECK-LABEL: func.func @conv
// CHECK-NEXT:    %[[X:.*]] = relay.cast %x {dtype = i32} : (tensor<1x3x4x4xui8>) -> tensor<1x3x4x4xi32>
// CHECK-NEXT:    %[[XC:.*]] = relay.subtract %[[X]], %zx
// CHECK-NEXT:    %[[ZW:.*]] = relay.reshape %zw {newshape = array<i64>} : (tensor<1xi32>) -> tensor<i32>
// CHECK-NEXT:    %[[W:.*]] = relay.cast %w {dtype = i32} : (tensor<2x3x3x3xi8>) -> tensor<2x3x3x3xi32>
// CHECK-NEXT:    %[[WC:.*]] = relay.subtract %[[W]], %[[ZW]]
// CHECK-NEXT:    %c = relay.nn.conv2d %[[XC]], %[[WC]] {padding = array<i64: 1, 1, 1, 1>, channels = 2 : i64, out_dtype = i32} : (tensor<1x3x4x4xi32>, tensor<2x3x3x3xi32>) -> tensor<1x2x4x4xi32>
// CHECK-NEXT:    func.return %c
func.func @conv(%x: tensor<1x3x4x4xui8>, %w: tensor<2x3x3x3xi8>, %zx: tensor<i32>, %zw: tensor<1xi32>, %s: tensor<f32>) -> tensor<1x2x4x4xi32> {
  %c = relay.qnn.conv2d %x, %w, %zx, %zw, %s, %s {padding = array<i64: 1, 1, 1, 1>, channels = 2 : i64} : (tensor<1x3x4x4xui8>, tensor<2x3x3x3xi8>, tensor<i32>, tensor<1xi32>, tensor<f32>, tensor<f32>) -> tensor<1x2x4x4xi32>
  func.return %c : tensor<1x2x4x4xi32>
}

// -----

// dense, batch_matmul and avg_pool2d map onto their nn twins.
// CHECK-LABEL: func.func @twins
// CHECK:         relay.nn.dense %{{.*}}, %{{.*}} {units = 3 : i64, out_dtype = i32} : (tensor<2x5xi32>, tensor<3x5xi32>) -> tensor<2x3xi32>
// CHECK:         relay.nn.batch_matmul %{{.*}}, %{{.*}} {out_dtype = i32} : (tensor<1x2x5xi32>, tensor<1x3x5xi32>) -> tensor<1x2x3xi32>
// CHECK:         relay.nn.avg_pool2d %{{.*}} {pool_size = array<i64: 2, 2>} : (tensor<1x1x4x4xf32>) -> tensor<1x1x3x3xf32>
// CHECK-NOT:     relay.qnn
func.func @twins(%x: tensor<2x5xi8>, %w: tensor<3x5xi8>, %b: tensor<1x2x5xi8>, %c: tensor<1x3x5xi8>, %p: tensor<1x1x4x4xi8>, %z: tensor<i32>, %s: tensor<f32>) -> (tensor<2x3xi32>, tensor<1x2x3xi32>, tensor<1x1x3x3xi8>) {
  %0 = relay.qnn.dense %x, %w, %z, %z, %s, %s {units = 3 : i64} : (tensor<2x5xi8>, tensor<3x5xi8>, tensor<i32>, tensor<i32>, tensor<f32>, tensor<f32>) -> tensor<2x3xi32>
  %1 = relay.qnn.batch_matmul %b, %c, %z, %z, %s, %s : (tensor<1x2x5xi8>, tensor<1x3x5xi8>, tensor<i32>, tensor<i32>, tensor<f32>, tensor<f32>) -> tensor<1x2x3xi32>
  %2 = relay.qnn.avg_pool2d %p, %s, %z, %s, %z {pool_size = array<i64: 2, 2>} : (tensor<1x1x4x4xi8>, tensor<f32>, tensor<i32>, tensor<f32>, tensor<i32>) -> tensor<1x1x3x3xi8>
  func.return %0, %1, %2 : tensor<2x3xi32>, tensor<1x2x3xi32>, tensor<1x1x3x3xi8>
}

// -----

// add: each side times its float32 ratio to the output scale, one sum, one rounding.
// CHECK-LABEL: func.func @add
// CHECK:         %[[RA:.*]] = relay.divide %sa, %so
// CHECK-NEXT:    %[[FA:.*]] = relay.multiply %{{.*}}, %[[RA]]
// CHECK:         %[[RB:.*]] = relay.divide %sb, %so
// CHECK-NEXT:    %[[FB:.*]] = relay.multiply %{{.*}}, %[[RB]]
// CHECK-NEXT:    %[[V:.*]] = relay.add %[[FA]], %[[FB]] : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT:    relay.not_equal %[[V]], %[[V]]
// CHECK:         %r = relay.cast %{{.*}} {dtype = i8}
func.func @add(%a: tensor<4xi8>, %b: tensor<4xi8>, %sa: tensor<f32>, %sb: tensor<f32>, %so: tensor<f32>, %z: tensor<i32>) -> tensor<4xi8> {
  %r = relay.qnn.add %a, %b, %sa, %z, %sb, %z, %so, %z : (tensor<4xi8>, tensor<4xi8>, tensor<f32>, tensor<i32>, tensor<f32>, tensor<i32>, tensor<f32>, tensor<i32>) -> tensor<4xi8>
  func.return %r : tensor<4xi8>
}

// -----

// concatenate: an input with the output's own scale and zero point is passed as it is;
// the other is requantized.
// CHECK-LABEL: func.func @concatenate
// CHECK:         %[[M:.*]] = relay.divide %sb, %s
// CHECK:         %[[B:.*]] = relay.cast %{{.*}} {dtype = i8} : (tensor<3xi64>) -> tensor<3xi8>
// CHECK-NEXT:    %c = relay.concatenate %a, %[[B]] : (tensor<2xi8>, tensor<3xi8>) -> tensor<5xi8>
func.func @concatenate(%a: tensor<2xi8>, %b: tensor<3xi8>, %s: tensor<f32>, %sb: tensor<f32>, %z: tensor<i32>) -> tensor<5xi8> {
  %c = relay.qnn.concatenate %a, %b, %s, %sb, %z, %z, %s, %z : (tensor<2xi8>, tensor<3xi8>, tensor<f32>, tensor<f32>, tensor<i32>, tensor<i32>, tensor<f32>, tensor<i32>) -> tensor<5xi8>
  func.return %c : tensor<5xi8>
}

// -----

// Does not fire: no QNN op; and a function marked relay.skip_optimization keeps its
// QNN ops (function passes skip it).
// CHECK-LABEL: func.func @untouched
// CHECK-NEXT:    %0 = relay.add %x, %x : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
// CHECK-LABEL: func.func @skipped
// CHECK-NEXT:    %q = relay.qnn.quantize %x, %s, %z : (tensor<4xf32>, tensor<f32>, tensor<i32>) -> tensor<4xi8>
func.func @untouched(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = relay.add %x, %x : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  func.return %0 : tensor<4xf32>
}
func.func @skipped(%x: tensor<4xf32>, %s: tensor<f32>, %z: tensor<i32>) -> tensor<4xi8> attributes {relay.skip_optimization} {
  %q = relay.qnn.quantize %x, %s, %z : (tensor<4xf32>, tensor<f32>, tensor<i32>) -> tensor<4xi8>
  func.return %q : tensor<4xi8>
}
