// RUN: xrelay-opt %s --split-input-file --verify-diagnostics | filecheck %s

func.func @f(%x: tensor<2x3xi32>, %s: tensor<f32>, %z: tensor<i32>) -> tensor<2x3xi8> {
  // CHECK: relay.qnn.quantize: data must be float32, got i32
  %r = relay.qnn.quantize %x, %s, %z : (tensor<2x3xi32>, tensor<f32>, tensor<i32>) -> tensor<2x3xi8>
  func.return %r : tensor<2x3xi8>
}

// -----

func.func @f(%x: tensor<2x3xf32>, %s: tensor<f32>, %z: tensor<i32>) -> tensor<2x3xf32> {
  // CHECK: relay.qnn.quantize: out_dtype must be int8, uint8, int16 or int32, got f32
  %r = relay.qnn.quantize %x, %s, %z {out_dtype = f32} : (tensor<2x3xf32>, tensor<f32>, tensor<i32>) -> tensor<2x3xf32>
  func.return %r : tensor<2x3xf32>
}

// -----

func.func @f(%x: tensor<2x3xf32>, %s: tensor<f64>, %z: tensor<i32>) -> tensor<2x3xi8> {
  // CHECK: relay.qnn.quantize: output_scale must be float32, got f64
  %r = relay.qnn.quantize %x, %s, %z : (tensor<2x3xf32>, tensor<f64>, tensor<i32>) -> tensor<2x3xi8>
  func.return %r : tensor<2x3xi8>
}

// -----

func.func @f(%x: tensor<2x3xf32>, %s: tensor<f32>, %z: tensor<ui8>) -> tensor<2x3xui8> {
  // CHECK: relay.qnn.quantize: output_zero_point must be int32, got ui8
  %r = relay.qnn.quantize %x, %s, %z {out_dtype = ui8} : (tensor<2x3xf32>, tensor<f32>, tensor<ui8>) -> tensor<2x3xui8>
  func.return %r : tensor<2x3xui8>
}

// -----

func.func @f(%x: tensor<2x3xf32>, %s: tensor<2xf32>, %z: tensor<i32>) -> tensor<2x3xi8> {
  // CHECK: relay.qnn.quantize: output_scale has 2 elements but axis 1 of data has 3 channels
  %r = relay.qnn.quantize %x, %s, %z : (tensor<2x3xf32>, tensor<2xf32>, tensor<i32>) -> tensor<2x3xi8>
  func.return %r : tensor<2x3xi8>
}

// -----

func.func @f(%x: tensor<2x3xf32>, %s: tensor<f32>, %z: tensor<1x3xi32>) -> tensor<2x3xi8> {
  // CHECK: relay.qnn.quantize: output_zero_point must be a scalar or a 1-D tensor, got shape [1, 3]
  %r = relay.qnn.quantize %x, %s, %z : (tensor<2x3xf32>, tensor<f32>, tensor<1x3xi32>) -> tensor<2x3xi8>
  func.return %r : tensor<2x3xi8>
}

// -----

func.func @f(%x: tensor<2x3xf32>, %s: tensor<f32>, %z: tensor<i32>) -> tensor<2x3xi8> {
  // CHECK: relay.qnn.quantize: axis 2 is out of range for rank 2
  %r = relay.qnn.quantize %x, %s, %z {axis = 2 : i64} : (tensor<2x3xf32>, tensor<f32>, tensor<i32>) -> tensor<2x3xi8>
  func.return %r : tensor<2x3xi8>
}

// -----

func.func @f(%x: tensor<f32>, %s: tensor<3xf32>, %z: tensor<i32>) -> tensor<i8> {
  // CHECK: relay.qnn.quantize: output_scale must be a scalar (per-tensor), got shape [3]
  %r = relay.qnn.quantize %x, %s, %z : (tensor<f32>, tensor<3xf32>, tensor<i32>) -> tensor<i8>
  func.return %r : tensor<i8>
}

// -----

func.func @f(%x: tensor<2x3xf32>, %s: tensor<f32>, %z: tensor<i32>) -> tensor<2x3xi8> {
  // CHECK: relay.qnn.quantize: result #0 has type tensor<2x3xi8> but the type relation gives tensor<2x3xui8>
  %r = relay.qnn.quantize %x, %s, %z {out_dtype = ui8} : (tensor<2x3xf32>, tensor<f32>, tensor<i32>) -> tensor<2x3xi8>
  func.return %r : tensor<2x3xi8>
}

// -----

func.func @f(%x: tensor<2x3xf32>, %s: tensor<f32>, %z: tensor<i32>) -> tensor<2x3xf32> {
  // CHECK: relay.qnn.dequantize: data must be int8, uint8, int16 or int32, got f32
  %r = relay.qnn.dequantize %x, %s, %z : (tensor<2x3xf32>, tensor<f32>, tensor<i32>) -> tensor<2x3xf32>
  func.return %r : tensor<2x3xf32>
}

// -----

func.func @f(%x: tensor<2x3xi8>, %s: tensor<f32>, %z: tensor<i32>) -> tensor<2x3xf16> {
  // CHECK: relay.qnn.dequantize: out_dtype must be float32, got f16
  %r = relay.qnn.dequantize %x, %s, %z {out_dtype = f16} : (tensor<2x3xi8>, tensor<f32>, tensor<i32>) -> tensor<2x3xf16>
  func.return %r : tensor<2x3xf16>
}

// -----

func.func @f(%x: tensor<4xi32>, %s: tensor<f32>, %z: tensor<i32>) -> tensor<4xi8> {
  // CHECK: relay.qnn.requantize: rounding must be 'None', 'UPWARD' or 'TONEAREST', got 'DOWNWARD'
  %r = relay.qnn.requantize %x, %s, %z, %s, %z {rounding = "DOWNWARD"} : (tensor<4xi32>, tensor<f32>, tensor<i32>, tensor<f32>, tensor<i32>) -> tensor<4xi8>
  func.return %r : tensor<4xi8>
}

// -----

func.func @f(%x: tensor<4xi32>, %s: tensor<f32>, %z: tensor<i32>, %so: tensor<2xf32>) -> tensor<4xi8> {
  // CHECK: relay.qnn.requantize: output_scale has 2 elements but axis 0 of data has 4 channels
  %r = relay.qnn.requantize %x, %s, %z, %so, %z : (tensor<4xi32>, tensor<f32>, tensor<i32>, tensor<2xf32>, tensor<i32>) -> tensor<4xi8>
  func.return %r : tensor<4xi8>
}

// -----

func.func @f(%x: tensor<1x3x4x4xf32>, %w: tensor<2x3x1x1xi8>, %z: tensor<i32>, %s: tensor<f32>) -> tensor<1x2x4x4xi32> {
  // CHECK: relay.qnn.conv2d: data must be int8, uint8 or int16, got f32
  %r = relay.qnn.conv2d %x, %w, %z, %z, %s, %s : (tensor<1x3x4x4xf32>, tensor<2x3x1x1xi8>, tensor<i32>, tensor<i32>, tensor<f32>, tensor<f32>) -> tensor<1x2x4x4xi32>
  func.return %r : tensor<1x2x4x4xi32>
}

// -----

func.func @f(%x: tensor<1x3x4x4xui8>, %w: tensor<2x3x1x1xi8>, %z: tensor<i32>, %zw: tensor<2xi32>, %s: tensor<f32>) -> tensor<1x2x4x4xi32> {
  // CHECK: relay.qnn.conv2d: kernel_zero_point must be a scalar (per-tensor), got shape [2]
  %r = relay.qnn.conv2d %x, %w, %z, %zw, %s, %s : (tensor<1x3x4x4xui8>, tensor<2x3x1x1xi8>, tensor<i32>, tensor<2xi32>, tensor<f32>, tensor<f32>) -> tensor<1x2x4x4xi32>
  func.return %r : tensor<1x2x4x4xi32>
}

// -----

func.func @f(%x: tensor<1x3x4x4xui8>, %w: tensor<2x3x1x1xi8>, %z: tensor<i32>, %s: tensor<f32>, %sw: tensor<3xf32>) -> tensor<1x2x4x4xi32> {
  // CHECK: relay.qnn.conv2d: kernel_scale has 3 elements but the output has 2 channels
  %r = relay.qnn.conv2d %x, %w, %z, %z, %s, %sw : (tensor<1x3x4x4xui8>, tensor<2x3x1x1xi8>, tensor<i32>, tensor<i32>, tensor<f32>, tensor<3xf32>) -> tensor<1x2x4x4xi32>
  func.return %r : tensor<1x2x4x4xi32>
}

// -----

func.func @f(%x: tensor<1x3x4x4xui8>, %w: tensor<2x4x1x1xi8>, %z: tensor<i32>, %s: tensor<f32>) -> tensor<1x2x4x4xi32> {
  // CHECK: relay.qnn.conv2d: data has 3 input channels but the weight takes 4 per group with groups=1 (needs 3 == 4 * 1)
  %r = relay.qnn.conv2d %x, %w, %z, %z, %s, %s : (tensor<1x3x4x4xui8>, tensor<2x4x1x1xi8>, tensor<i32>, tensor<i32>, tensor<f32>, tensor<f32>) -> tensor<1x2x4x4xi32>
  func.return %r : tensor<1x2x4x4xi32>
}

// -----

func.func @f(%x: tensor<1x3x4x4xui8>, %w: tensor<2x3x1x1xi8>, %z: tensor<i32>, %s: tensor<f32>) -> tensor<1x2x4x4xi16> {
  // CHECK: relay.qnn.conv2d: out_dtype must be int32, got i16
  %r = relay.qnn.conv2d %x, %w, %z, %z, %s, %s {out_dtype = i16} : (tensor<1x3x4x4xui8>, tensor<2x3x1x1xi8>, tensor<i32>, tensor<i32>, tensor<f32>, tensor<f32>) -> tensor<1x2x4x4xi16>
  func.return %r : tensor<1x2x4x4xi16>
}

// -----

func.func @f(%x: tensor<2x5xui8>, %w: tensor<3x5xi8>, %z: tensor<i32>, %s: tensor<f32>, %sw: tensor<4xf32>) -> tensor<2x3xi32> {
  // CHECK: relay.qnn.dense: kernel_scale has 4 elements but units has 3 channels
  %r = relay.qnn.dense %x, %w, %z, %z, %s, %sw : (tensor<2x5xui8>, tensor<3x5xi8>, tensor<i32>, tensor<i32>, tensor<f32>, tensor<4xf32>) -> tensor<2x3xi32>
  func.return %r : tensor<2x3xi32>
}

// -----

func.func @f(%x: tensor<2x5xui8>, %w: tensor<3x5xi8>, %z: tensor<i32>, %s: tensor<f32>, %si: tensor<5xf32>) -> tensor<2x3xi32> {
  // CHECK: relay.qnn.dense: input_scale must be a scalar (per-tensor), got shape [5]
  %r = relay.qnn.dense %x, %w, %z, %z, %si, %s : (tensor<2x5xui8>, tensor<3x5xi8>, tensor<i32>, tensor<i32>, tensor<5xf32>, tensor<f32>) -> tensor<2x3xi32>
  func.return %r : tensor<2x3xi32>
}

// -----

func.func @f(%x: tensor<1x2x4xi8>, %y: tensor<1x3x4xi8>, %z: tensor<i8>, %zi: tensor<i32>, %s: tensor<f32>) -> tensor<1x2x3xi32> {
  // CHECK: relay.qnn.batch_matmul: x_zero_point must be int32, got i8
  %r = relay.qnn.batch_matmul %x, %y, %z, %zi, %s, %s : (tensor<1x2x4xi8>, tensor<1x3x4xi8>, tensor<i8>, tensor<i32>, tensor<f32>, tensor<f32>) -> tensor<1x2x3xi32>
  func.return %r : tensor<1x2x3xi32>
}

// -----

func.func @f(%x: tensor<1x2x4xi8>, %y: tensor<1x3x5xi8>, %z: tensor<i32>, %s: tensor<f32>) -> tensor<1x2x3xi32> {
  // CHECK: relay.qnn.batch_matmul: reduction dimensions differ: 4 (tensor_a [1, 2, 4]) vs 5 (tensor_b [1, 3, 5])
  %r = relay.qnn.batch_matmul %x, %y, %z, %z, %s, %s : (tensor<1x2x4xi8>, tensor<1x3x5xi8>, tensor<i32>, tensor<i32>, tensor<f32>, tensor<f32>) -> tensor<1x2x3xi32>
  func.return %r : tensor<1x2x3xi32>
}

// -----

func.func @f(%a: tensor<4xui8>, %b: tensor<4xi8>, %s: tensor<f32>, %z: tensor<i32>) -> tensor<4xui8> {
  // CHECK: relay.qnn.add: rhs has element type i8 but lhs has ui8
  %r = relay.qnn.add %a, %b, %s, %z, %s, %z, %s, %z : (tensor<4xui8>, tensor<4xi8>, tensor<f32>, tensor<i32>, tensor<f32>, tensor<i32>, tensor<f32>, tensor<i32>) -> tensor<4xui8>
  func.return %r : tensor<4xui8>
}

// -----

func.func @f(%a: tensor<4xui8>, %s: tensor<f32>, %z: tensor<i32>, %so: tensor<4xf32>) -> tensor<4xui8> {
  // CHECK: relay.qnn.add: output_scale must be a scalar (per-tensor), got shape [4]
  %r = relay.qnn.add %a, %a, %s, %z, %s, %z, %so, %z : (tensor<4xui8>, tensor<4xui8>, tensor<f32>, tensor<i32>, tensor<f32>, tensor<i32>, tensor<4xf32>, tensor<i32>) -> tensor<4xui8>
  func.return %r : tensor<4xui8>
}

// -----

func.func @f(%a: tensor<3xi8>, %b: tensor<4xi8>, %s: tensor<f32>, %z: tensor<i32>) -> tensor<4xi8> {
  // CHECK: relay.qnn.subtract: shapes [3] and [4] do not broadcast
  %r = relay.qnn.subtract %a, %b, %s, %z, %s, %z, %s, %z : (tensor<3xi8>, tensor<4xi8>, tensor<f32>, tensor<i32>, tensor<f32>, tensor<i32>, tensor<f32>, tensor<i32>) -> tensor<4xi8>
  func.return %r : tensor<4xi8>
}

// -----

func.func @f(%a: tensor<4xi8>, %s: tensor<f32>, %z: tensor<i32>, %zc: tensor<2xi32>) -> tensor<4xi8> {
  // CHECK: relay.qnn.mul: rhs_zero_point has 2 elements but axis 0 of rhs has 4 channels
  %r = relay.qnn.mul %a, %a, %s, %z, %s, %zc, %s, %z : (tensor<4xi8>, tensor<4xi8>, tensor<f32>, tensor<i32>, tensor<f32>, tensor<2xi32>, tensor<f32>, tensor<i32>) -> tensor<4xi8>
  func.return %r : tensor<4xi8>
}

// -----

func.func @f(%a: tensor<2xi8>, %s: tensor<f32>, %z: tensor<i32>) -> tensor<4xi8> {
  // CHECK: relay.qnn.concatenate: expected 3n + 2 operands (n inputs, n scales, n zero points, the output scale and zero point) with n >= 1, got 6
  %r = relay.qnn.concatenate %a, %a, %s, %z, %s, %z : (tensor<2xi8>, tensor<2xi8>, tensor<f32>, tensor<i32>, tensor<f32>, tensor<i32>) -> tensor<4xi8>
  func.return %r : tensor<4xi8>
}

// -----

func.func @f(%a: tensor<2xi8>, %b: tensor<2xui8>, %s: tensor<f32>, %z: tensor<i32>) -> tensor<4xi8> {
  // CHECK: relay.qnn.concatenate: input #1 has element type ui8 but input #0 has i8
  %r = relay.qnn.concatenate %a, %b, %s, %s, %z, %z, %s, %z : (tensor<2xi8>, tensor<2xui8>, tensor<f32>, tensor<f32>, tensor<i32>, tensor<i32>, tensor<f32>, tensor<i32>) -> tensor<4xi8>
  func.return %r : tensor<4xi8>
}

// -----

func.func @f(%x: tensor<1x1x4x4xi32>, %s: tensor<f32>, %z: tensor<i32>) -> tensor<1x1x4x4xi32> {
  // CHECK: relay.qnn.avg_pool2d: data must be int8 or uint8, got i32
  %r = relay.qnn.avg_pool2d %x, %s, %z, %s, %z : (tensor<1x1x4x4xi32>, tensor<f32>, tensor<i32>, tensor<f32>, tensor<i32>) -> tensor<1x1x4x4xi32>
  func.return %r : tensor<1x1x4x4xi32>
}

// -----

func.func @f(%x: tensor<1x1x4x4xi8>, %s: tensor<f32>, %z: tensor<i32>) -> tensor<1x1x1x1xi8> {
  // CHECK: relay.qnn.avg_pool2d: the output height would be 0: the input height 4 with padding 0 is smaller than the window 5
  %r = relay.qnn.avg_pool2d %x, %s, %z, %s, %z {pool_size = array<i64: 5, 5>} : (tensor<1x1x4x4xi8>, tensor<f32>, tensor<i32>, tensor<f32>, tensor<i32>) -> tensor<1x1x1x1xi8>
  func.return %r : tensor<1x1x1x1xi8>
}

// -----

func.func @f(%x: tensor<1x3x4x4xui8>, %w: tensor<2x2x1x1xi8>, %z: tensor<i32>, %s: tensor<f32>) -> tensor<1x2x4x4xi32> {
  // CHECK: relay.qnn.conv2d_transpose: data has 3 input channels but the weight has 2 (its 'I' axis)
  %r = relay.qnn.conv2d_transpose %x, %w, %z, %z, %s, %s : (tensor<1x3x4x4xui8>, tensor<2x2x1x1xi8>, tensor<i32>, tensor<i32>, tensor<f32>, tensor<f32>) -> tensor<1x2x4x4xi32>
  func.return %r : tensor<1x2x4x4xi32>
}

// -----

func.func @f(%x: tensor<1x2x4x4xf32>, %w: tensor<2x2x1x1xi8>, %z: tensor<i32>, %s: tensor<f32>) -> tensor<1x2x4x4xi32> {
  // CHECK: relay.qnn.conv2d_transpose: data must be int8, uint8 or int16, got f32
  %r = relay.qnn.conv2d_transpose %x, %w, %z, %z, %s, %s : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xi8>, tensor<i32>, tensor<i32>, tensor<f32>, tensor<f32>) -> tensor<1x2x4x4xi32>
  func.return %r : tensor<1x2x4x4xi32>
}
