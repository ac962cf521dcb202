// RUN: XRELAY_ROUNDTRIP
// RUN: XRELAY_GENERIC_ROUNDTRIP

// The ops AlterOpLayout makes on CPUs: a channel-blocked convolution and a dense with
// a packed weight.

// CHECK-LABEL: func.func @conv2d_nchwc
// CHECK-GENERIC-LABEL: "func.func"() <{sym_name = "conv2d_nchwc"
func.func @conv2d_nchwc(%x: tensor<1x2x8x8x8xf32>, %w: tensor<2x2x3x3x8x16xf32>, %x4: tensor<1x4x7x7x4xf32>, %w4: tensor<1x4x3x3x4x4xf32>, %w8: tensor<3x2x1x1x8x8xf32>) -> tensor<1x2x8x8x16xf32> {
  // data_layout "NCHW8c" is the default (not printed).
  // CHECK: %0 = relay.nn.contrib_conv2d_NCHWc %x, %w {padding = array<i64: 1, 1, 1, 1>, kernel_layout = "OIHW8i16o", out_layout = "NCHW16c"} : (tensor<1x2x8x8x8xf32>, tensor<2x2x3x3x8x16xf32>) -> tensor<1x2x8x8x16xf32>
  // CHECK-GENERIC: %0 = "relay.nn.contrib_conv2d_NCHWc"(%x, %w) <{padding = array<i64: 1, 1, 1, 1>, data_layout = "NCHW8c", kernel_layout = "OIHW8i16o", out_layout = "NCHW16c"
  %0 = relay.nn.contrib_conv2d_NCHWc %x, %w {padding = array<i64: 1, 1, 1, 1>, data_layout = "NCHW8c", kernel_layout = "OIHW8i16o", out_layout = "NCHW16c"} : (tensor<1x2x8x8x8xf32>, tensor<2x2x3x3x8x16xf32>) -> tensor<1x2x8x8x16xf32>
  // Strides, dilation, channels and kernel_size as conv2d's; out_layout "" is the data layout.
  // CHECK-NEXT: %1 = relay.nn.contrib_conv2d_NCHWc %x4, %w4 {strides = array<i64: 2, 2>, dilation = array<i64: 1, 2>, channels = 4 : i64, kernel_size = array<i64: 3, 3>, data_layout = "NCHW4c", kernel_layout = "OIHW4i4o"} : (tensor<1x4x7x7x4xf32>, tensor<1x4x3x3x4x4xf32>) -> tensor<1x1x3x2x4xf32>
  %1 = relay.nn.contrib_conv2d_NCHWc %x4, %w4 {strides = array<i64: 2, 2>, dilation = array<i64: 1, 2>, channels = 4 : i64, kernel_size = array<i64: 3, 3>, data_layout = "NCHW4c", kernel_layout = "OIHW4i4o"} : (tensor<1x4x7x7x4xf32>, tensor<1x4x3x3x4x4xf32>) -> tensor<1x1x3x2x4xf32>
  // The defaults: NCHW8c data, OIHW8i8o kernel; the result type is inferred.
  // CHECK-NEXT: %2 = relay.nn.contrib_conv2d_NCHWc %x, %w8 : (tensor<1x2x8x8x8xf32>, tensor<3x2x1x1x8x8xf32>) -> tensor<*xf32>
  %2 = relay.nn.contrib_conv2d_NCHWc %x, %w8 : (tensor<1x2x8x8x8xf32>, tensor<3x2x1x1x8x8xf32>) -> tensor<*xf32>
  func.return %0 : tensor<1x2x8x8x16xf32>
}

// -----

// CHECK-LABEL: func.func @dense_pack
// CHECK-GENERIC-LABEL: "func.func"() <{sym_name = "dense_pack"
func.func @dense_pack(%x: tensor<4x32xf32>, %w: tensor<2x32x8xf32>, %q: tensor<4x32xi8>, %qw: tensor<4x32x4xi8>) -> tensor<4x16xf32> {
  // CHECK: %0 = relay.nn.contrib_dense_pack %x, %w {weight_layout = "NC8n"} : (tensor<4x32xf32>, tensor<2x32x8xf32>) -> tensor<4x16xf32>
  // CHECK-GENERIC: %0 = "relay.nn.contrib_dense_pack"(%x, %w) <{weight_layout = "NC8n"}> : (tensor<4x32xf32>, tensor<2x32x8xf32>) -> tensor<4x16xf32>
  %0 = relay.nn.contrib_dense_pack %x, %w {weight_layout = "NC8n"} : (tensor<4x32xf32>, tensor<2x32x8xf32>) -> tensor<4x16xf32>
  // CHECK-NEXT: %1 = relay.nn.contrib_dense_pack %q, %qw {weight_layout = "NC4n", units = 16 : i64, out_dtype = i32} : (tensor<4x32xi8>, tensor<4x32x4xi8>) -> tensor<4x16xi32>
  %1 = relay.nn.contrib_dense_pack %q, %qw {weight_layout = "NC4n", units = 16 : i64, out_dtype = i32} : (tensor<4x32xi8>, tensor<4x32x4xi8>) -> tensor<4x16xi32>
  func.return %0 : tensor<4x16xf32>
}

// A kernel blocked on its output channels only ([O/4, C, KH, KW, 4]); the output
// is in blocks of 4.
// CHECK-LABEL: func.func @o_blocked_kernel
func.func @o_blocked_kernel(%x: tensor<1x2x8x8x8xf32>, %w: tensor<2x16x3x3x4xf32>) -> tensor<1x2x6x6x4xf32> {
  // CHECK-NEXT: %0 = relay.nn.contrib_conv2d_NCHWc %x, %w {kernel_layout = "OIHW4o", out_layout = "NCHW4c"} : (tensor<1x2x8x8x8xf32>, tensor<2x16x3x3x4xf32>) -> tensor<1x2x6x6x4xf32>
  %0 = relay.nn.contrib_conv2d_NCHWc %x, %w {kernel_layout = "OIHW4o", out_layout = "NCHW4c"} : (tensor<1x2x8x8x8xf32>, tensor<2x16x3x3x4xf32>) -> tensor<1x2x6x6x4xf32>
  func.return %0 : tensor<1x2x6x6x4xf32>
}
