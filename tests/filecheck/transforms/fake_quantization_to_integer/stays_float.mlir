// RUN: xrelay-opt %s -p fake-quantization-to-integer --split-input-file | filecheck %s

// sigmoid has no integer form: the whole region stays float, nothing half-built is
// left behind (no qnn.add, no stray constants).
// CHECK-LABEL: func.func @sigmoid
// CHECK-NEXT:    %0 = relay.qnn.dequantize %a
// CHECK-NEXT:    %1 = relay.qnn.dequantize %b
// CHECK-NEXT:    %2 = relay.add %0, %1
// CHECK-NEXT:    %3 = relay.sigmoid %2
// CHECK-NEXT:    %q = relay.qnn.quantize %3
// CHECK-NEXT:    func.return %q
func.func @sigmoid(%a: tensor<4xi8>, %b: tensor<4xi8>, %s: tensor<f32>, %z: tensor<i32>) -> tensor<4xi8> {
  %0 = relay.qnn.dequantize %a, %s, %z : (tensor<4xi8>, tensor<f32>, tensor<i32>) -> tensor<4xf32>
  %1 = relay.qnn.dequantize %b, %s, %z : (tensor<4xi8>, tensor<f32>, tensor<i32>) -> tensor<4xf32>
  %2 = relay.add %0, %1 : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %3 = relay.sigmoid %2 : (tensor<4xf32>) -> tensor<4xf32>
  %q = relay.qnn.quantize %3, %s, %z : (tensor<4xf32>, tensor<f32>, tensor<i32>) -> tensor<4xi8>
  func.return %q : tensor<4xi8>
}

// -----

// A float value of the region is also returned: the integer form replaces the
// quantize, and the float ops stay for the other user.
// CHECK-LABEL: func.func @shared
// CHECK-NEXT:    %0 = relay.qnn.dequantize %a
// CHECK-NEXT:    %1 = relay.qnn.dequantize %b
// CHECK-NEXT:    %2 = relay.add %0, %1
// CHECK-NEXT:    %q = relay.qnn.add %a, %b
// CHECK-NEXT:    %3 = relay.tuple %q, %2
func.func @shared(%a: tensor<4xi8>, %b: tensor<4xi8>, %s: tensor<f32>, %z: tensor<i32>) -> tuple<tensor<4xi8>, tensor<4xf32>> {
  %0 = relay.qnn.dequantize %a, %s, %z : (tensor<4xi8>, tensor<f32>, tensor<i32>) -> tensor<4xf32>
  %1 = relay.qnn.dequantize %b, %s, %z : (tensor<4xi8>, tensor<f32>, tensor<i32>) -> tensor<4xf32>
  %2 = relay.add %0, %1 : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %q = relay.qnn.quantize %2, %s, %z : (tensor<4xf32>, tensor<f32>, tensor<i32>) -> tensor<4xi8>
  %3 = relay.tuple %q, %2 : (tensor<4xi8>, tensor<4xf32>) -> tuple<tensor<4xi8>, tensor<4xf32>>
  func.return %3 : tuple<tensor<4xi8>, tensor<4xf32>>
}

// -----

// No dequantize feeds the quantize (a float input): nothing to do.
// CHECK-LABEL: func.func @float_input
// CHECK-NEXT:    %0 = relay.nn.relu %x
// CHECK-NEXT:    %q = relay.qnn.quantize %0
func.func @float_input(%x: tensor<4xf32>, %s: tensor<f32>, %z: tensor<i32>) -> tensor<4xi8> {
  %0 = relay.nn.relu %x : (tensor<4xf32>) -> tensor<4xf32>
  %q = relay.qnn.quantize %0, %s, %z : (tensor<4xf32>, tensor<f32>, tensor<i32>) -> tensor<4xi8>
  func.return %q : tensor<4xi8>
}

// -----

// A reshape of a per-channel tensor moves elements across channels: stays float.
// CHECK-LABEL: func.func @per_channel_reshape
// CHECK-NEXT:    relay.qnn.dequantize
// CHECK-NEXT:    relay.reshape
// CHECK-NEXT:    %q = relay.qnn.quantize
func.func @per_channel_reshape(%x: tensor<2x3xi8>, %s: tensor<3xf32>, %z: tensor<3xi32>, %so: tensor<f32>, %zo: tensor<i32>) -> tensor<6xi8> {
  %0 = relay.qnn.dequantize %x, %s, %z {axis = 1 : i64} : (tensor<2x3xi8>, tensor<3xf32>, tensor<3xi32>) -> tensor<2x3xf32>
  %1 = relay.reshape %0 {newshape = array<i64: 6>} : (tensor<2x3xf32>) -> tensor<6xf32>
  %q = relay.qnn.quantize %1, %so, %zo : (tensor<6xf32>, tensor<f32>, tensor<i32>) -> tensor<6xi8>
  func.return %q : tensor<6xi8>
}
