// RUN: xrelay-opt %s --split-input-file --verify-diagnostics | filecheck %s

// CHECK: Operation does not verify: relay.sum: axis 3 is out of range for rank 3
func.func @sum_range(%x: tensor<2x3x4xf32>) {
  %0 = relay.sum %x {axis = array<i64: 3>} : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  func.return
}

// -----

// CHECK: Operation does not verify: relay.mean: axis [1, -2] repeats an axis
func.func @mean_duplicate(%x: tensor<2x3x4xf32>) {
  %0 = relay.mean %x {axis = array<i64: 1, -2>} : (tensor<2x3x4xf32>) -> tensor<2x4xf32>
  func.return
}

// -----

// CHECK: Operation does not verify: relay.max: result #0 has type tensor<2x4xf32> but the type relation gives tensor<2x1x4xf32>
func.func @max_keepdims(%x: tensor<2x3x4xf32>) {
  %0 = relay.max %x {axis = array<i64: 1>, keepdims = true} : (tensor<2x3x4xf32>) -> tensor<2x4xf32>
  func.return
}

// -----

// CHECK: Operation does not verify: relay.min: result #0 has type tensor<3xf32> but the type relation gives tensor<2x4xf32>
func.func @min_exclude(%x: tensor<2x3x4xf32>) {
  %0 = relay.min %x {axis = array<i64: 1>, exclude = false} : (tensor<2x3x4xf32>) -> tensor<3xf32>
  func.return
}

// -----

// CHECK: Operation does not verify: relay.prod: result #0 has type tensor<f32> but the type relation gives tensor<i64>
func.func @prod_dtype(%x: tensor<5xi64>) {
  %0 = relay.prod %x : (tensor<5xi64>) -> tensor<f32>
  func.return
}

// -----

// CHECK: Operation does not verify: relay.all: data must be an i1 tensor, got tensor<2x3xf32>
func.func @all_float(%x: tensor<2x3xf32>) {
  %0 = relay.all %x : (tensor<2x3xf32>) -> tensor<f32>
  func.return
}

// -----

// CHECK: Operation does not verify: relay.any: data must be an i1 tensor, got tensor<2xi32>
func.func @any_int(%x: tensor<2xi32>) {
  %0 = relay.any %x : (tensor<2xi32>) -> tensor<i32>
  func.return
}

// -----

// CHECK: Operation does not verify: relay.argmax: result #0 has type tensor<2xi64> but the type relation gives tensor<2xi32>
func.func @argmax_dtype(%x: tensor<2x3xf32>) {
  %0 = relay.argmax %x {axis = array<i64: 1>} : (tensor<2x3xf32>) -> tensor<2xi64>
  func.return
}

// -----

// CHECK: Operation does not verify: relay.argmin: axis -3 is out of range for rank 2
func.func @argmin_range(%x: tensor<2x3xf32>) {
  %0 = relay.argmin %x {axis = array<i64: -3>} : (tensor<2x3xf32>) -> tensor<3xi32>
  func.return
}

// -----

// CHECK: Operation does not verify: relay.variance: mean shape [2, 3] does not broadcast to data shape [2, 4]
func.func @variance_mean(%x: tensor<2x4xf32>, %m: tensor<2x3xf32>) {
  %0 = relay.variance %x, %m {axis = array<i64: 1>} : (tensor<2x4xf32>, tensor<2x3xf32>) -> tensor<2xf32>
  func.return
}

// -----

// CHECK: Operation does not verify: relay.std: data must be a floating-point tensor, got tensor<2x4xi32>
func.func @std_int(%x: tensor<2x4xi32>) {
  %0 = relay.std %x : (tensor<2x4xi32>) -> tensor<i32>
  func.return
}

// -----

// CHECK: Operation does not verify: relay.logsumexp: axis [0, 0] repeats an axis
func.func @logsumexp_duplicate(%x: tensor<2x4xf32>) {
  %0 = relay.logsumexp %x {axis = array<i64: 0, 0>} : (tensor<2x4xf32>) -> tensor<4xf32>
  func.return
}
