// RUN: xrelay-opt %s -p canonicalize-ops --split-input-file | filecheck %s

// bias_add along axis 1 of NCHW: the bias gets two trailing dims.
// CHECK-LABEL: func.func @bias_add_nchw
// CHECK-NEXT:    %[[E:.*]] = relay.expand_dims %b {axis = 1 : i64, num_newaxis = 2 : i64} : (tensor<8xf32>) -> tensor<8x1x1xf32>
// CHECK-NEXT:    %[[A:.*]] = relay.add %x, %[[E]] : (tensor<1x8x4x4xf32>, tensor<8x1x1xf32>) -> tensor<1x8x4x4xf32>
// CHECK-NEXT:    func.return %[[A]]
func.func @bias_add_nchw(%x: tensor<1x8x4x4xf32>, %b: tensor<8xf32>) -> tensor<1x8x4x4xf32> {
  %0 = relay.nn.bias_add %x, %b : (tensor<1x8x4x4xf32>, tensor<8xf32>) -> tensor<1x8x4x4xf32>
  func.return %0 : tensor<1x8x4x4xf32>
}

// -----

// The last axis (also written -1): a plain add.
// CHECK-LABEL: func.func @bias_add_last
// CHECK-NEXT:    %[[A:.*]] = relay.add %x, %b : (tensor<2x10xf32>, tensor<10xf32>) -> tensor<2x10xf32>
// CHECK-NEXT:    %[[B:.*]] = relay.add %y, %c : (tensor<1x4x4x8xf32>, tensor<8xf32>) -> tensor<1x4x4x8xf32>
// CHECK-NEXT:    func.return %[[A]], %[[B]]
func.func @bias_add_last(%x: tensor<2x10xf32>, %b: tensor<10xf32>, %y: tensor<1x4x4x8xf32>, %c: tensor<8xf32>) -> (tensor<2x10xf32>, tensor<1x4x4x8xf32>) {
  %0 = relay.nn.bias_add %x, %b : (tensor<2x10xf32>, tensor<10xf32>) -> tensor<2x10xf32>
  %1 = relay.nn.bias_add %y, %c {axis = -1 : i64} : (tensor<1x4x4x8xf32>, tensor<8xf32>) -> tensor<1x4x4x8xf32>
  func.return %0, %1 : tensor<2x10xf32>, tensor<1x4x4x8xf32>
}

// -----

// Does not fire: no bias_add (an add stays as it is).
// CHECK-LABEL: func.func @no_bias_add
// CHECK-NEXT:    %0 = relay.add %x, %b : (tensor<2x10xf32>, tensor<10xf32>) -> tensor<2x10xf32>
// CHECK-NEXT:    func.return %0
func.func @no_bias_add(%x: tensor<2x10xf32>, %b: tensor<10xf32>) -> tensor<2x10xf32> {
  %0 = relay.add %x, %b : (tensor<2x10xf32>, tensor<10xf32>) -> tensor<2x10xf32>
  func.return %0 : tensor<2x10xf32>
}
