// RUN: XRELAY_ROUNDTRIP
// RUN: XRELAY_GENERIC_ROUNDTRIP

// CHECK-LABEL: func.func @roi_aligns
// CHECK-GENERIC-LABEL: "func.func"() <{sym_name = "roi_aligns"
func.func @roi_aligns(%x: tensor<2x3x7x9xf32>, %r: tensor<4x5xf32>, %h: tensor<2x7x9x3xf32>) -> tensor<4x3x2x3xf32> {
  // CHECK-NEXT: %0 = relay.vision.roi_align %x, %r {pooled_size = array<i64: 2, 3>, spatial_scale = 5.000000e-01 : f64} : (tensor<2x3x7x9xf32>, tensor<4x5xf32>) -> tensor<4x3x2x3xf32>
  // CHECK-GENERIC: %0 = "relay.vision.roi_align"(
  %0 = relay.vision.roi_align %x, %r {pooled_size = array<i64: 2, 3>, spatial_scale = 0.5 : f64} : (tensor<2x3x7x9xf32>, tensor<4x5xf32>) -> tensor<4x3x2x3xf32>
  // CHECK-NEXT: %1 = relay.vision.roi_align %x, %r {pooled_size = array<i64: 2, 3>, spatial_scale = 1.000000e+00 : f64, sample_ratio = 2 : i64, mode = "max", aligned = true} : (tensor<2x3x7x9xf32>, tensor<4x5xf32>) -> tensor<4x3x2x3xf32>
  // CHECK-GENERIC: %1 = "relay.vision.roi_align"(
  %1 = relay.vision.roi_align %x, %r {pooled_size = array<i64: 2, 3>, spatial_scale = 1.0 : f64, sample_ratio = 2 : i64, mode = "max", aligned = true} : (tensor<2x3x7x9xf32>, tensor<4x5xf32>) -> tensor<4x3x2x3xf32>
  // NHWC data: the result is [R, PH, PW, C]
  // CHECK-NEXT: %2 = relay.vision.roi_align %h, %r {pooled_size = array<i64: 2, 3>, spatial_scale = 1.000000e+00 : f64, layout = "NHWC"} : (tensor<2x7x9x3xf32>, tensor<4x5xf32>) -> tensor<4x2x3x3xf32>
  %2 = relay.vision.roi_align %h, %r {pooled_size = array<i64: 2, 3>, spatial_scale = 1.0 : f64, layout = "NHWC"} : (tensor<2x7x9x3xf32>, tensor<4x5xf32>) -> tensor<4x2x3x3xf32>
  func.return %0 : tensor<4x3x2x3xf32>
}

// vision.roi_pool: [R, C, PH, PW] in the data's layout.
// CHECK-LABEL: func.func @roi_pools
func.func @roi_pools(%x: tensor<2x3x7x9xf32>, %r: tensor<4x5xf32>, %h: tensor<2x7x9x3xf32>) -> tensor<4x3x2x3xf32> {
  // CHECK-NEXT: %0 = relay.vision.roi_pool %x, %r {pooled_size = array<i64: 2, 3>, spatial_scale = 6.250000e-02 : f64} : (tensor<2x3x7x9xf32>, tensor<4x5xf32>) -> tensor<4x3x2x3xf32>
  %0 = relay.vision.roi_pool %x, %r {pooled_size = array<i64: 2, 3>, spatial_scale = 0.0625 : f64} : (tensor<2x3x7x9xf32>, tensor<4x5xf32>) -> tensor<4x3x2x3xf32>
  // CHECK-NEXT: %1 = relay.vision.roi_pool %h, %r {pooled_size = array<i64: 2, 3>, spatial_scale = 1.000000e+00 : f64, layout = "NHWC"} : (tensor<2x7x9x3xf32>, tensor<4x5xf32>) -> tensor<4x2x3x3xf32>
  %1 = relay.vision.roi_pool %h, %r {pooled_size = array<i64: 2, 3>, spatial_scale = 1.0 : f64, layout = "NHWC"} : (tensor<2x7x9x3xf32>, tensor<4x5xf32>) -> tensor<4x2x3x3xf32>
  func.return %0 : tensor<4x3x2x3xf32>
}
