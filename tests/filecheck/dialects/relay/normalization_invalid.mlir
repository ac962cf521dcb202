// RUN: xrelay-opt %s --split-input-file --verify-diagnostics | filecheck %s

// CHECK: Operation does not verify: relay.nn.batch_norm: moving_var must have shape [3] (data.shape[1]), got tensor<4xf32>
func.func @batch_norm_vector(%x: tensor<2x3x4xf32>, %g: tensor<3xf32>, %v: tensor<4xf32>) {
  %0, %1, %2 = relay.nn.batch_norm %x, %g, %g, %g, %v : (tensor<2x3x4xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<4xf32>) -> (tensor<2x3x4xf32>, tensor<3xf32>, tensor<3xf32>)
  func.return
}

// -----

// CHECK: Operation does not verify: relay.nn.batch_norm: result #1 has type tensor<4xf32> but the type relation gives tensor<3xf32>
func.func @batch_norm_result(%x: tensor<2x3x4xf32>, %g: tensor<3xf32>) {
  %0, %1, %2 = relay.nn.batch_norm %x, %g, %g, %g, %g : (tensor<2x3x4xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> (tensor<2x3x4xf32>, tensor<4xf32>, tensor<3xf32>)
  func.return
}

// -----

// CHECK: Operation does not verify: relay.nn.batch_norm: beta has element type f64 but data has f32 (relay does not promote dtypes)
func.func @batch_norm_dtype(%x: tensor<2x3xf32>, %g: tensor<3xf32>, %b: tensor<3xf64>) {
  %0, %1, %2 = relay.nn.batch_norm %x, %g, %b, %g, %g : (tensor<2x3xf32>, tensor<3xf32>, tensor<3xf64>, tensor<3xf32>, tensor<3xf32>) -> (tensor<2x3xf32>, tensor<3xf32>, tensor<3xf32>)
  func.return
}

// -----

// CHECK: Operation does not verify: relay.nn.layer_norm: gamma must have shape [5] (data.shape[1]), got tensor<2xf32>
func.func @layer_norm(%x: tensor<2x5xf32>, %g: tensor<2xf32>, %b: tensor<5xf32>) {
  %0 = relay.nn.layer_norm %x, %g, %b : (tensor<2x5xf32>, tensor<2xf32>, tensor<5xf32>) -> tensor<2x5xf32>
  func.return
}

// -----

// CHECK: Operation does not verify: relay.nn.group_norm: the 6 channels (data.shape[1]) are not divisible by num_groups 4
func.func @group_norm(%x: tensor<2x6x3xf32>, %g: tensor<6xf32>) {
  %0 = relay.nn.group_norm %x, %g, %g {num_groups = 4 : i64} : (tensor<2x6x3xf32>, tensor<6xf32>, tensor<6xf32>) -> tensor<2x6x3xf32>
  func.return
}

// -----

// CHECK: Operation does not verify: property 'num_groups' expected in operation 'relay.nn.group_norm'
func.func @group_norm_required(%x: tensor<2x6x3xf32>, %g: tensor<6xf32>) {
  %0 = relay.nn.group_norm %x, %g, %g : (tensor<2x6x3xf32>, tensor<6xf32>, tensor<6xf32>) -> tensor<2x6x3xf32>
  func.return
}

// -----

// CHECK: Operation does not verify: relay.nn.instance_norm: axis 4 is out of range for rank 4
func.func @instance_norm(%x: tensor<2x3x4x4xf32>, %g: tensor<3xf32>) {
  %0 = relay.nn.instance_norm %x, %g, %g {axis = 4 : i64} : (tensor<2x3x4x4xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<2x3x4x4xf32>
  func.return
}

// -----

// CHECK: Operation does not verify: relay.nn.instance_norm: result #0 has type tensor<2x3x4x4xf16> but the type relation gives tensor<2x3x4x4xf32>
func.func @instance_norm_result(%x: tensor<2x3x4x4xf32>, %g: tensor<3xf32>) {
  %0 = relay.nn.instance_norm %x, %g, %g : (tensor<2x3x4x4xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<2x3x4x4xf16>
  func.return
}

// -----

// CHECK: Operation does not verify: relay.nn.l2_normalize: axis [0, -2] repeats an axis
func.func @l2_normalize(%x: tensor<2x3xf32>) {
  %0 = relay.nn.l2_normalize %x {eps = 1.0e-10 : f64, axis = array<i64: 0, -2>} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  func.return
}

// -----

// CHECK: Operation does not verify: relay.nn.l2_normalize: data must be a floating-point tensor, got tensor<2x3xi32>
func.func @l2_normalize_int(%x: tensor<2x3xi32>) {
  %0 = relay.nn.l2_normalize %x {eps = 1.0e-10 : f64} : (tensor<2x3xi32>) -> tensor<2x3xi32>
  func.return
}

// -----

// CHECK: Operation does not verify: relay.nn.lrn: size must be positive, got -1
func.func @lrn(%x: tensor<2x6x4x4xf32>) {
  %0 = relay.nn.lrn %x {size = -1 : i64} : (tensor<2x6x4x4xf32>) -> tensor<2x6x4x4xf32>
  func.return
}
