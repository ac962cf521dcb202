// RUN: xrelay-opt %s -p infer-type --split-input-file | filecheck %s

// Untyped parameters (tensor<*xnone>, Relay's IncompleteType) take the type their
// uses determine: conv2d's weight from the data, channels and kernel_size; the bias
// of bias_add from the data's channel axis.
// CHECK-LABEL: func.func @conv(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>, %b: tensor<4xf32>) -> tensor<1x4x6x6xf32>
// CHECK:         relay.nn.conv2d %x, %w {{.*}} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
// CHECK:         relay.nn.bias_add {{.*}} : (tensor<1x4x6x6xf32>, tensor<4xf32>) -> tensor<1x4x6x6xf32>
func.func @conv(%x: tensor<1x3x8x8xf32>, %w: tensor<*xnone>, %b: tensor<*xnone>) -> tensor<*xnone> {
  %0 = relay.nn.conv2d %x, %w {channels = 4 : i64, kernel_size = array<i64: 3, 3>} : (tensor<1x3x8x8xf32>, tensor<*xnone>) -> tensor<*xnone>
  %1 = relay.nn.bias_add %0, %b : (tensor<*xnone>, tensor<*xnone>) -> tensor<*xnone>
  func.return %1 : tensor<*xnone>
}

// -----

// The weight is laid out in kernel_layout, grouped convolutions take C/groups
// input channels, and the dtype is the data's.
// CHECK-LABEL: func.func @grouped(%x: tensor<1x8x8x4xf16>, %w: tensor<3x3x2x6xf16>)
func.func @grouped(%x: tensor<1x8x8x4xf16>, %w: tensor<*xnone>) -> tensor<*xnone> {
  %0 = relay.nn.conv2d %x, %w {channels = 6 : i64, groups = 2 : i64, kernel_size = array<i64: 3, 3>, data_layout = "NHWC", kernel_layout = "HWIO"} : (tensor<1x8x8x4xf16>, tensor<*xnone>) -> tensor<*xnone>
  func.return %0 : tensor<*xnone>
}

// -----

// A use that cannot determine the type (relu) before one that can (dense): the
// order of the uses does not matter.
// CHECK-LABEL: func.func @dense(%x: tensor<2x5xf32>, %w: tensor<3x5xf32>) -> (tensor<3x5xf32>, tensor<2x3xf32>)
// CHECK:         relay.nn.relu %w : (tensor<3x5xf32>) -> tensor<3x5xf32>
// CHECK:         relay.nn.dense %x, %w {units = 3 : i64} : (tensor<2x5xf32>, tensor<3x5xf32>) -> tensor<2x3xf32>
func.func @dense(%x: tensor<2x5xf32>, %w: tensor<*xnone>) -> (tensor<*xnone>, tensor<*xnone>) {
  %0 = relay.nn.relu %w : (tensor<*xnone>) -> tensor<*xnone>
  %1 = relay.nn.dense %x, %w {units = 3 : i64} : (tensor<2x5xf32>, tensor<*xnone>) -> tensor<*xnone>
  func.return %0, %1 : tensor<*xnone>, tensor<*xnone>
}

// -----

// batch_norm's four vectors and layer_norm's gamma/beta: [data.shape[axis]].
// CHECK-LABEL: func.func @norms(%x: tensor<2x3x4xf32>, %g: tensor<3xf32>, %b: tensor<3xf32>, %m: tensor<3xf32>, %v: tensor<3xf32>, %lg: tensor<4xf32>, %lb: tensor<4xf32>)
func.func @norms(%x: tensor<2x3x4xf32>, %g: tensor<*xnone>, %b: tensor<*xnone>, %m: tensor<*xnone>, %v: tensor<*xnone>, %lg: tensor<*xnone>, %lb: tensor<*xnone>) -> tensor<*xnone> {
  %0, %1, %2 = relay.nn.batch_norm %x, %g, %b, %m, %v : (tensor<2x3x4xf32>, tensor<*xnone>, tensor<*xnone>, tensor<*xnone>, tensor<*xnone>) -> (tensor<*xnone>, tensor<*xnone>, tensor<*xnone>)
  %3 = relay.nn.layer_norm %0, %lg, %lb {axis = -1 : i64} : (tensor<*xnone>, tensor<*xnone>, tensor<*xnone>) -> tensor<*xnone>
  func.return %3 : tensor<*xnone>
}

// -----

// prelu's alpha: one value per channel along axis, of the data's dtype.
// CHECK-LABEL: func.func @prelu(%x: tensor<1x5x4x3xf16>, %a: tensor<3xf16>) -> tensor<1x5x4x3xf16>
// CHECK:         relay.nn.prelu %x, %a {axis = 3 : i64} : (tensor<1x5x4x3xf16>, tensor<3xf16>) -> tensor<1x5x4x3xf16>
func.func @prelu(%x: tensor<1x5x4x3xf16>, %a: tensor<*xnone>) -> tensor<*xnone> {
  %0 = relay.nn.prelu %x, %a {axis = 3 : i64} : (tensor<1x5x4x3xf16>, tensor<*xnone>) -> tensor<*xnone>
  func.return %0 : tensor<*xnone>
}
