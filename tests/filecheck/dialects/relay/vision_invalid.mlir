// RUN: xrelay-opt %s --split-input-file --verify-diagnostics | filecheck %s

func.func @f(%x: tensor<2x3x7x9xf32>, %r: tensor<4x4xf32>) -> tensor<4x3x2x3xf32> {
  // CHECK: relay.vision.roi_align: rois must be [R, 5] (batch index, x1, y1, x2, y2), got tensor<4x4xf32>
  %0 = relay.vision.roi_align %x, %r {pooled_size = array<i64: 2, 3>, spatial_scale = 1.0 : f64} : (tensor<2x3x7x9xf32>, tensor<4x4xf32>) -> tensor<4x3x2x3xf32>
  func.return %0 : tensor<4x3x2x3xf32>
}

// -----

func.func @f(%x: tensor<2x3x7x9xf32>, %r: tensor<4x5xf32>) -> tensor<4x3x2x3xf32> {
  // CHECK: relay.vision.roi_align: unknown mode "sum" (avg or max)
  %0 = relay.vision.roi_align %x, %r {pooled_size = array<i64: 2, 3>, spatial_scale = 1.0 : f64, mode = "sum"} : (tensor<2x3x7x9xf32>, tensor<4x5xf32>) -> tensor<4x3x2x3xf32>
  func.return %0 : tensor<4x3x2x3xf32>
}

// -----

func.func @f(%x: tensor<2x3x7x9xf32>, %r: tensor<4x5xf32>) -> tensor<4x3x2x3xf32> {
  // CHECK: relay.vision.roi_align: pooled_size must be 2 positive ints, got [2, 0]
  %0 = relay.vision.roi_align %x, %r {pooled_size = array<i64: 2, 0>, spatial_scale = 1.0 : f64} : (tensor<2x3x7x9xf32>, tensor<4x5xf32>) -> tensor<4x3x2x3xf32>
  func.return %0 : tensor<4x3x2x3xf32>
}

// -----

func.func @f(%x: tensor<2x3x7x9xi32>, %r: tensor<4x5xi32>) -> tensor<4x3x2x3xi32> {
  // CHECK: relay.vision.roi_align: data must be a float tensor, got tensor<2x3x7x9xi32>
  %0 = relay.vision.roi_align %x, %r {pooled_size = array<i64: 2, 3>, spatial_scale = 1.0 : f64} : (tensor<2x3x7x9xi32>, tensor<4x5xi32>) -> tensor<4x3x2x3xi32>
  func.return %0 : tensor<4x3x2x3xi32>
}

// -----

func.func @f(%x: tensor<2x3x7x9xf32>, %r: tensor<4x5xf32>) -> tensor<4x3x2x3xf32> {
  // CHECK: relay.vision.roi_align: layout "HWNC" is not supported (NCHW or NHWC)
  %0 = relay.vision.roi_align %x, %r {pooled_size = array<i64: 2, 3>, spatial_scale = 1.0 : f64, layout = "HWNC"} : (tensor<2x3x7x9xf32>, tensor<4x5xf32>) -> tensor<4x3x2x3xf32>
  func.return %0 : tensor<4x3x2x3xf32>
}

// -----

func.func @f(%x: tensor<2x3x7xf32>, %r: tensor<4x5xf32>) -> tensor<4x3x2x3xf32> {
  // CHECK: relay.vision.roi_align: data must be NCHW (rank 4), got tensor<2x3x7xf32>
  %0 = relay.vision.roi_align %x, %r {pooled_size = array<i64: 2, 3>, spatial_scale = 1.0 : f64} : (tensor<2x3x7xf32>, tensor<4x5xf32>) -> tensor<4x3x2x3xf32>
  func.return %0 : tensor<4x3x2x3xf32>
}

// -----

func.func @f(%x: tensor<2x3x7x9xf32>, %r: tensor<4x5xf32>) -> tensor<4x3x2x3xf32> {
  // CHECK: relay.vision.roi_pool: pooled_size must be 2 positive ints, got [2, 0]
  %0 = relay.vision.roi_pool %x, %r {pooled_size = array<i64: 2, 0>, spatial_scale = 1.0 : f64} : (tensor<2x3x7x9xf32>, tensor<4x5xf32>) -> tensor<4x3x2x3xf32>
  func.return %0 : tensor<4x3x2x3xf32>
}

// -----

func.func @f(%x: tensor<2x3x7x9xf32>, %r: tensor<4x4xf32>) -> tensor<4x3x2x3xf32> {
  // CHECK: relay.vision.roi_pool: rois must be [R, 5] (batch index, x1, y1, x2, y2), got tensor<4x4xf32>
  %0 = relay.vision.roi_pool %x, %r {pooled_size = array<i64: 2, 3>, spatial_scale = 1.0 : f64} : (tensor<2x3x7x9xf32>, tensor<4x4xf32>) -> tensor<4x3x2x3xf32>
  func.return %0 : tensor<4x3x2x3xf32>
}
