// RUN: xrelay-opt %s --split-input-file --verify-diagnostics | filecheck %s
func.func @f(%a0: tensor<1x3x8x8xf32>, %a1: tensor<4x2x3x3xf32>) {
  // CHECK: relay.nn.conv2d: data has 3 input channels but the weight takes 2 per group with groups=1 (needs 3 == 2 * 1)
  %r = relay.nn.conv2d %a0, %a1 : (tensor<1x3x8x8xf32>, tensor<4x2x3x3xf32>) -> tensor<*xf32>
  func.return
}

// -----

func.func @f(%a0: tensor<1x3x8x8xf32>, %a1: tensor<4x3x3x3xf32>) {
  // CHECK: relay.nn.conv2d: padding must have 4 values (top, left, bottom, right), got 2
  %r = relay.nn.conv2d %a0, %a1 {padding = array<i64: 1, 1>} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<*xf32>
  func.return
}

// -----

func.func @f(%a0: tensor<1x3x8x8xf32>, %a1: tensor<4x3x3x3xf32>) {
  // CHECK: relay.nn.conv2d: strides must be positive, got (0, 1)
  %r = relay.nn.conv2d %a0, %a1 {strides = array<i64: 0, 1>} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<*xf32>
  func.return
}

// -----

func.func @f(%a0: tensor<1x3x8x8xf32>, %a1: tensor<4x3x3x3xf32>) {
  // CHECK: relay.nn.conv2d: channels=8 but the weight gives 4 output channels
  %r = relay.nn.conv2d %a0, %a1 {channels = 8 : i64} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<*xf32>
  func.return
}

// -----

func.func @f(%a0: tensor<1x3x8x8xf32>, %a1: tensor<4x3x3x3xf32>) {
  // CHECK: relay.nn.conv2d: kernel_size (5, 5) does not match the weight's kernel (3, 3)
  %r = relay.nn.conv2d %a0, %a1 {kernel_size = array<i64: 5, 5>} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<*xf32>
  func.return
}

// -----

func.func @f(%a0: tensor<1x3x2x8xf32>, %a1: tensor<4x3x3x3xf32>) {
  // CHECK: relay.nn.conv2d: the output height would be 0: the input height 2 with padding 0 is smaller than the window 3
  %r = relay.nn.conv2d %a0, %a1 : (tensor<1x3x2x8xf32>, tensor<4x3x3x3xf32>) -> tensor<*xf32>
  func.return
}

// -----

func.func @f(%a0: tensor<1x3x8x8xf32>, %a1: tensor<4x3x3x3xf32>) {
  // CHECK: relay.nn.conv2d: data_layout 'NCHW4c' needs a rank-5 tensor, got shape [1, 3, 8, 8]
  %r = relay.nn.conv2d %a0, %a1 {data_layout = "NCHW4c"} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<*xf32>
  func.return
}

// -----

func.func @f(%a0: tensor<1x3x8x8xf32>, %a1: tensor<4x3x3x3xf32>) {
  // CHECK: relay.nn.conv2d: result #0 has type tensor<1x4x8x8xf32> but the type relation gives tensor<1x4x6x6xf32>
  %r = relay.nn.conv2d %a0, %a1 : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x8x8xf32>
  func.return
}

// -----

func.func @f(%a0: tensor<1x4x5x5xf32>, %a1: tensor<3x2x3x3xf32>) {
  // CHECK: relay.nn.conv2d_transpose: data has 4 input channels but the weight has 3 (its 'I' axis)
  %r = relay.nn.conv2d_transpose %a0, %a1 : (tensor<1x4x5x5xf32>, tensor<3x2x3x3xf32>) -> tensor<*xf32>
  func.return
}

// -----

func.func @f(%a0: tensor<1x4x5x5xf32>, %a1: tensor<4x2x3x3xf32>) {
  // CHECK: relay.nn.conv2d_transpose: output_padding must be 2 non-negative values, got (-1, 0)
  %r = relay.nn.conv2d_transpose %a0, %a1 {output_padding = array<i64: -1, 0>} : (tensor<1x4x5x5xf32>, tensor<4x2x3x3xf32>) -> tensor<*xf32>
  func.return
}

// -----

func.func @f(%a0: tensor<4x8xf32>, %a1: tensor<5x7xf32>) {
  // CHECK: relay.nn.dense: data's last dimension 8 does not match the weight's K 7
  %r = relay.nn.dense %a0, %a1 : (tensor<4x8xf32>, tensor<5x7xf32>) -> tensor<*xf32>
  func.return
}

// -----

func.func @f(%a0: tensor<4x8xf32>, %a1: tensor<5x8xi8>) {
  // CHECK: relay.nn.dense: weight has element type i8 but data has f32 (relay does not promote dtypes)
  %r = relay.nn.dense %a0, %a1 : (tensor<4x8xf32>, tensor<5x8xi8>) -> tensor<*xf32>
  func.return
}

// -----

func.func @f(%a0: tensor<4x8xf32>, %a1: tensor<5x8xf32>) {
  // CHECK: relay.nn.matmul: reduction dimensions differ: tensor_a [4, 8] gives 8, tensor_b [5, 8] gives 5
  %r = relay.nn.matmul %a0, %a1 : (tensor<4x8xf32>, tensor<5x8xf32>) -> tensor<*xf32>
  func.return
}

// -----

func.func @f(%a0: tensor<2x3x4xf32>, %a1: tensor<3x5x4xf32>) {
  // CHECK: relay.nn.batch_matmul: batch dimensions 2 and 3 do not broadcast
  %r = relay.nn.batch_matmul %a0, %a1 : (tensor<2x3x4xf32>, tensor<3x5x4xf32>) -> tensor<*xf32>
  func.return
}

// -----

func.func @f(%a0: tensor<2x3x4xf32>, %a1: tensor<2x5x4xf32>) {
  // CHECK: relay.nn.batch_matmul: reduction dimensions differ: 4 (tensor_a [2, 3, 4]) vs 5 (tensor_b [2, 5, 4])
  %r = relay.nn.batch_matmul %a0, %a1 {transpose_b = false} : (tensor<2x3x4xf32>, tensor<2x5x4xf32>) -> tensor<*xf32>
  func.return
}

// -----

func.func @f(%a0: tensor<2x3xf32>) {
  // CHECK: relay.nn.softmax: axis 2 is out of range for rank 2
  %r = relay.nn.softmax %a0 {axis = 2 : i64} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  func.return
}

// -----

func.func @f(%a0: tensor<2x3xi32>) {
  // CHECK: relay.nn.log_softmax: data must be a floating-point tensor, got tensor<2x3xi32>
  %r = relay.nn.log_softmax %a0 : (tensor<2x3xi32>) -> tensor<2x3xi32>
  func.return
}

// -----

func.func @f(%a0: tensor<2x3xf32>) {
  // CHECK: relay.nn.fast_softmax: axis -3 is out of range for rank 2
  %r = relay.nn.fast_softmax %a0 {axis = -3 : i64} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  func.return
}

// -----

func.func @f(%a0: tensor<2x3xf32>) {
  // CHECK: relay.nn.dropout: rate must be in [0, 1], got 2.0
  %r, %m = relay.nn.dropout %a0 {rate = 2.0 : f64} : (tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>)
  func.return
}

// -----

func.func @f(%a0: tensor<2x3xf32>) {
  // CHECK: relay.nn.dropout: result #1 has type tensor<3x2xf32> but the type relation gives tensor<2x3xf32>
  %r, %m = relay.nn.dropout %a0 : (tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<3x2xf32>)
  func.return
}

// -----

func.func @f(%a0: tensor<f32>) {
  // CHECK: relay.nn.batch_flatten: data must have rank >= 1, got a 0-d tensor
  %r = relay.nn.batch_flatten %a0 : (tensor<f32>) -> tensor<*xf32>
  func.return
}

// -----

func.func @f(%a0: tensor<2x3x4xf32>) {
  // CHECK: relay.nn.batch_flatten: result #0 has type tensor<2x4xf32> but the type relation gives tensor<2x12xf32>
  %r = relay.nn.batch_flatten %a0 : (tensor<2x3x4xf32>) -> tensor<2x4xf32>
  func.return
}

// -----

func.func @f(%a0: tensor<2x3xf32>, %a1: tensor<f32>) {
  // CHECK: relay.nn.pad: pad_width must be non-negative, got [1, -1, 0, 0]
  %r = relay.nn.pad %a0, %a1 {pad_width = array<i64: 1, -1, 0, 0>} : (tensor<2x3xf32>, tensor<f32>) -> tensor<*xf32>
  func.return
}

// -----

func.func @f(%a0: tensor<2x3xf32>, %a1: tensor<f32>) {
  // CHECK: relay.nn.pad: pad_width has 2 values but a rank-2 tensor needs 4 (a before/after pair per axis)
  %r = relay.nn.pad %a0, %a1 {pad_width = array<i64: 1, 1>} : (tensor<2x3xf32>, tensor<f32>) -> tensor<*xf32>
  func.return
}

// -----

func.func @f(%a0: tensor<2x3xf32>, %a1: tensor<1xf32>) {
  // CHECK: relay.nn.pad: pad_value must be a 0-d tensor, got tensor<1xf32>
  %r = relay.nn.pad %a0, %a1 {pad_width = array<i64: 0, 0, 0, 0>} : (tensor<2x3xf32>, tensor<1xf32>) -> tensor<*xf32>
  func.return
}

// -----

func.func @f(%a0: tensor<2x3xf32>, %a1: tensor<f32>) {
  // CHECK: relay.nn.pad: reflect padding (3, 0) of axis 1 must be smaller than its size 3
  %r = relay.nn.pad %a0, %a1 {pad_width = array<i64: 0, 0, 3, 0>, pad_mode = "reflect"} : (tensor<2x3xf32>, tensor<f32>) -> tensor<*xf32>
  func.return
}
