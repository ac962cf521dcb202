// RUN: XRELAY_ROUNDTRIP
// RUN: XRELAY_GENERIC_ROUNDTRIP

// image.resize2d and nn.upsampling: attributes at their defaults are not printed; a
// blocked channel layout is taken (H and W stay whole).
// CHECK-LABEL: func.func @resizes
// CHECK-GENERIC-LABEL: "func.func"() <{sym_name = "resizes"
func.func @resizes(%x: tensor<1x3x4x5xf32>, %b: tensor<1x2x4x5x8xf32>, %q: tensor<1x4x5x3xi8>) -> tensor<1x3x8x10xf32> {
  // CHECK-NEXT: %0 = relay.image.resize2d %x {size = array<i64: 7, 9>} : (tensor<1x3x4x5xf32>) -> tensor<1x3x7x9xf32>
  // CHECK-GENERIC: %0 = "relay.image.resize2d"(%x) <{size = array<i64: 7, 9>
  %0 = relay.image.resize2d %x {size = array<i64: 7, 9>} : (tensor<1x3x4x5xf32>) -> tensor<1x3x7x9xf32>
  // CHECK-NEXT: %1 = relay.image.resize2d %q {size = array<i64: 2, 2>, layout = "NHWC", method = "nearest_neighbor", coordinate_transformation_mode = "tf_crop_and_resize", roi = [1.000000e-01 : f64, 0.000000e+00 : f64, 9.000000e-01 : f64, 1.000000e+00 : f64], extrapolation_value = -1.000000e+00 : f64} : (tensor<1x4x5x3xi8>) -> tensor<1x2x2x3xi8>
  %1 = relay.image.resize2d %q {size = array<i64: 2, 2>, layout = "NHWC", method = "nearest_neighbor", coordinate_transformation_mode = "tf_crop_and_resize", roi = [1.000000e-01 : f64, 0.000000e+00 : f64, 9.000000e-01 : f64, 1.000000e+00 : f64], extrapolation_value = -1.000000e+00 : f64} : (tensor<1x4x5x3xi8>) -> tensor<1x2x2x3xi8>
  // CHECK-NEXT: %2 = relay.nn.upsampling %x {scale_h = 2.000000e+00 : f64, scale_w = 2.000000e+00 : f64} : (tensor<1x3x4x5xf32>) -> tensor<1x3x8x10xf32>
  // CHECK-GENERIC: %2 = "relay.nn.upsampling"(%x)
  %2 = relay.nn.upsampling %x {scale_h = 2.000000e+00 : f64, scale_w = 2.000000e+00 : f64} : (tensor<1x3x4x5xf32>) -> tensor<1x3x8x10xf32>
  // CHECK-NEXT: %3 = relay.nn.upsampling %b {scale_h = 1.500000e+00 : f64, scale_w = 2.000000e+00 : f64, layout = "NCHW8c", method = "bilinear", align_corners = true} : (tensor<1x2x4x5x8xf32>) -> tensor<1x2x6x10x8xf32>
  %3 = relay.nn.upsampling %b {scale_h = 1.500000e+00 : f64, scale_w = 2.000000e+00 : f64, layout = "NCHW8c", method = "bilinear", align_corners = true} : (tensor<1x2x4x5x8xf32>) -> tensor<1x2x6x10x8xf32>
  func.return %2 : tensor<1x3x8x10xf32>
}
