// RUN: xrelay-opt %s --split-input-file --verify-diagnostics | filecheck %s
func.func @f(%a0: tensor<1x3x8x8xf32>) {
  // CHECK: relay.nn.max_pool2d: padding must have 4 values (top, left, bottom, right), got 3
  %r = relay.nn.max_pool2d %a0 {pool_size = array<i64: 2, 2>, padding = array<i64: 1, 1, 1>} : (tensor<1x3x8x8xf32>) -> tensor<*xf32>
  func.return
}

// -----

func.func @f(%a0: tensor<1x3x8x8xf32>) {
  // CHECK: relay.nn.max_pool2d: pool_size must be positive, got (0, 2)
  %r = relay.nn.max_pool2d %a0 {pool_size = array<i64: 0, 2>} : (tensor<1x3x8x8xf32>) -> tensor<*xf32>
  func.return
}

// -----

func.func @f(%a0: tensor<1x3x2x8xf32>) {
  // CHECK: relay.nn.max_pool2d: the output height would be 0: the input height 2 with padding 0 is smaller than the window 3
  %r = relay.nn.max_pool2d %a0 {pool_size = array<i64: 3, 3>} : (tensor<1x3x2x8xf32>) -> tensor<*xf32>
  func.return
}

// -----

func.func @f(%a0: tensor<1x3x8x8xf32>) {
  // CHECK: relay.nn.max_pool2d: result #0 has type tensor<1x3x8x8xf32> but the type relation gives tensor<1x3x4x4xf32>
  %r = relay.nn.max_pool2d %a0 {pool_size = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<1x3x8x8xf32>) -> tensor<1x3x8x8xf32>
  func.return
}

// -----

func.func @f(%a0: tensor<1x3x8x8xf32>) {
  // CHECK: relay.nn.avg_pool2d: padding must be non-negative, got (0, -1, 0, 0)
  %r = relay.nn.avg_pool2d %a0 {pool_size = array<i64: 2, 2>, padding = array<i64: 0, -1, 0, 0>} : (tensor<1x3x8x8xf32>) -> tensor<*xf32>
  func.return
}

// -----

func.func @f(%a0: tensor<1x3x8x8xf32>) {
  // CHECK: relay.nn.avg_pool2d: strides must be positive, got (2, 0)
  %r = relay.nn.avg_pool2d %a0 {pool_size = array<i64: 2, 2>, strides = array<i64: 2, 0>} : (tensor<1x3x8x8xf32>) -> tensor<*xf32>
  func.return
}

// -----

func.func @f(%a0: tensor<1x3x8x8xf32>) {
  // CHECK: relay.nn.avg_pool2d: layout 'NCHW16c' needs a rank-5 tensor, got shape [1, 3, 8, 8]
  %r = relay.nn.avg_pool2d %a0 {layout = "NCHW16c"} : (tensor<1x3x8x8xf32>) -> tensor<*xf32>
  func.return
}

// -----

func.func @f(%a0: tensor<1x3x8x8xf32>) {
  // CHECK: relay.nn.avg_pool2d: layout 'NCHW16h' is not supported (expected a permutation of 'NCHW')
  %r = relay.nn.avg_pool2d %a0 {layout = "NCHW16h"} : (tensor<1x3x8x8xf32>) -> tensor<*xf32>
  func.return
}

// -----

func.func @f(%a0: tensor<1x3x8x8xf32>) {
  // CHECK: relay.nn.global_avg_pool2d: out_layout 'NCDHW' is not supported (expected a permutation of 'NCHW')
  %r = relay.nn.global_avg_pool2d %a0 {out_layout = "NCDHW"} : (tensor<1x3x8x8xf32>) -> tensor<1x3x1x1xf32>
  func.return
}

// -----

func.func @f(%a0: tensor<1x2x8x8x16xf32>) {
  // CHECK: relay.nn.global_avg_pool2d: out_layout 'NCHW' must be the blocked layout 'NCHW16c' of the data (or empty)
  %r = relay.nn.global_avg_pool2d %a0 {layout = "NCHW16c", out_layout = "NCHW"} : (tensor<1x2x8x8x16xf32>) -> tensor<*xf32>
  func.return
}

// -----

func.func @f(%a0: tensor<1x2x8x8x8xf32>) {
  // CHECK: relay.nn.global_max_pool2d: the channel block of 'NCHW16c' is 16, got shape [1, 2, 8, 8, 8]
  %r = relay.nn.global_max_pool2d %a0 {layout = "NCHW16c"} : (tensor<1x2x8x8x8xf32>) -> tensor<*xf32>
  func.return
}

// -----

func.func @f(%a0: tensor<1x2x8x8xf32>) {
  // CHECK: relay.nn.global_max_pool2d: layout 'NCHW16c' needs a rank-5 tensor, got shape [1, 2, 8, 8]
  %r = relay.nn.global_max_pool2d %a0 {layout = "NCHW16c"} : (tensor<1x2x8x8xf32>) -> tensor<*xf32>
  func.return
}

// -----

func.func @f(%a0: tensor<3x8x8xf32>) {
  // CHECK: relay.nn.global_max_pool2d: layout 'NCHW' needs a rank-4 tensor, got shape [3, 8, 8]
  %r = relay.nn.global_max_pool2d %a0 : (tensor<3x8x8xf32>) -> tensor<*xf32>
  func.return
}

// -----

func.func @f(%a0: tensor<1x3x8x8xf32>) {
  // CHECK: relay.nn.global_max_pool2d: result #0 has type tensor<1x3x8x8xf32> but the type relation gives tensor<1x3x1x1xf32>
  %r = relay.nn.global_max_pool2d %a0 : (tensor<1x3x8x8xf32>) -> tensor<1x3x8x8xf32>
  func.return
}

// -----

func.func @f(%a0: tensor<1x3x8x8xf32>) {
  // CHECK: relay.nn.adaptive_avg_pool2d: output_size must have 1 or 2 values, got 3
  %r = relay.nn.adaptive_avg_pool2d %a0 {output_size = array<i64: 1, 2, 3>} : (tensor<1x3x8x8xf32>) -> tensor<*xf32>
  func.return
}

// -----

func.func @f(%a0: tensor<1x3x8x8xf32>) {
  // CHECK: relay.nn.adaptive_max_pool2d: output_size must be positive, got (0,)
  %r = relay.nn.adaptive_max_pool2d %a0 {output_size = array<i64: 0>} : (tensor<1x3x8x8xf32>) -> tensor<*xf32>
  func.return
}

// -----

func.func @f(%a0: tensor<1x3x8x8xf32>) {
  // CHECK: relay.nn.adaptive_max_pool2d: result #0 has type tensor<1x3x2x2xf32> but the type relation gives tensor<1x3x3x3xf32>
  %r = relay.nn.adaptive_max_pool2d %a0 {output_size = array<i64: 3>} : (tensor<1x3x8x8xf32>) -> tensor<1x3x2x2xf32>
  func.return
}
