// RUN: XRELAY_ROUNDTRIP
// RUN: XRELAY_GENERIC_ROUNDTRIP

// CHECK-LABEL: func.func @window_pools
// CHECK-GENERIC-LABEL: "func.func"() <{sym_name = "window_pools"
func.func @window_pools(%x: tensor<1x3x8x8xf32>, %xh: tensor<1x7x7x3xf32>) -> tensor<1x3x4x4xf32> {
  // CHECK: %0 = relay.nn.max_pool2d %x {pool_size = array<i64: 3, 3>, strides = array<i64: 2, 2>, padding = array<i64: 1, 1, 1, 1>} : (tensor<1x3x8x8xf32>) -> tensor<1x3x4x4xf32>
  // CHECK-GENERIC: %0 = "relay.nn.max_pool2d"(%x) <{pool_size = array<i64: 3, 3>, strides = array<i64: 2, 2>, padding = array<i64: 1, 1, 1, 1>
  %0 = relay.nn.max_pool2d %x {pool_size = array<i64: 3, 3>, strides = array<i64: 2, 2>, padding = array<i64: 1, 1, 1, 1>} : (tensor<1x3x8x8xf32>) -> tensor<1x3x4x4xf32>
  // CHECK-NEXT: %1 = relay.nn.max_pool2d %xh {pool_size = array<i64: 2, 2>, strides = array<i64: 2, 2>, layout = "NHWC", out_layout = "NCHW", ceil_mode = true, dilation = array<i64: 1, 2>} : (tensor<1x7x7x3xf32>) -> tensor<1x3x4x3xf32>
  // CHECK-GENERIC: "relay.nn.max_pool2d"(%xh) <{pool_size = array<i64: 2, 2>, strides = array<i64: 2, 2>, layout = "NHWC", out_layout = "NCHW", ceil_mode = true, dilation = array<i64: 1, 2>
  %1 = relay.nn.max_pool2d %xh {pool_size = array<i64: 2, 2>, strides = array<i64: 2, 2>, layout = "NHWC", out_layout = "NCHW", ceil_mode = true, dilation = array<i64: 1, 2>} : (tensor<1x7x7x3xf32>) -> tensor<1x3x4x3xf32>
  // CHECK-NEXT: %2 = relay.nn.avg_pool2d %x {pool_size = array<i64: 2, 2>, strides = array<i64: 2, 2>, count_include_pad = true} : (tensor<1x3x8x8xf32>) -> tensor<1x3x4x4xf32>
  // CHECK-GENERIC: "relay.nn.avg_pool2d"(%x) <{pool_size = array<i64: 2, 2>, strides = array<i64: 2, 2>, count_include_pad = true
  %2 = relay.nn.avg_pool2d %x {pool_size = array<i64: 2, 2>, strides = array<i64: 2, 2>, count_include_pad = true} : (tensor<1x3x8x8xf32>) -> tensor<1x3x4x4xf32>
  // CHECK-NEXT: %3 = relay.nn.avg_pool2d %xh {pool_size = array<i64: 3, 3>, strides = array<i64: 2, 2>, padding = array<i64: 0, 1, 1, 0>, layout = "NHWC", ceil_mode = true} : (tensor<1x7x7x3xf32>) -> tensor<*xf32>
  // CHECK-GENERIC: "relay.nn.avg_pool2d"(%xh) <{pool_size = array<i64: 3, 3>, strides = array<i64: 2, 2>, padding = array<i64: 0, 1, 1, 0>, layout = "NHWC", ceil_mode = true
  %3 = relay.nn.avg_pool2d %xh {pool_size = array<i64: 3, 3>, strides = array<i64: 2, 2>, padding = array<i64: 0, 1, 1, 0>, layout = "NHWC", ceil_mode = true} : (tensor<1x7x7x3xf32>) -> tensor<*xf32>
  func.return %0 : tensor<1x3x4x4xf32>
}

// CHECK-LABEL: func.func @global_pools
// CHECK-GENERIC-LABEL: "func.func"() <{sym_name = "global_pools"
func.func @global_pools(%x: tensor<2x3x7x5xf32>, %xh: tensor<2x7x5x3xf32>) -> tensor<2x3x1x1xf32> {
  // CHECK: %0 = relay.nn.global_avg_pool2d %x : (tensor<2x3x7x5xf32>) -> tensor<2x3x1x1xf32>
  // CHECK-GENERIC: %0 = "relay.nn.global_avg_pool2d"(%x) <{layout = "NCHW", out_layout = ""}> : (tensor<2x3x7x5xf32>) -> tensor<2x3x1x1xf32>
  %0 = relay.nn.global_avg_pool2d %x : (tensor<2x3x7x5xf32>) -> tensor<2x3x1x1xf32>
  // CHECK-NEXT: %1 = relay.nn.global_max_pool2d %xh {layout = "NHWC"} : (tensor<2x7x5x3xf32>) -> tensor<2x1x1x3xf32>
  // CHECK-GENERIC: "relay.nn.global_max_pool2d"(%xh) <{layout = "NHWC"
  %1 = relay.nn.global_max_pool2d %xh {layout = "NHWC"} : (tensor<2x7x5x3xf32>) -> tensor<2x1x1x3xf32>
  // CHECK-NEXT: %2 = relay.nn.global_avg_pool2d %xh {layout = "NHWC", out_layout = "NCHW"} : (tensor<2x7x5x3xf32>) -> tensor<2x3x1x1xf32>
  // CHECK-GENERIC: "relay.nn.global_avg_pool2d"(%xh) <{layout = "NHWC", out_layout = "NCHW"}>
  %2 = relay.nn.global_avg_pool2d %xh {layout = "NHWC", out_layout = "NCHW"} : (tensor<2x7x5x3xf32>) -> tensor<2x3x1x1xf32>
  func.return %0 : tensor<2x3x1x1xf32>
}

// CHECK-LABEL: func.func @adaptive_pools
// CHECK-GENERIC-LABEL: "func.func"() <{sym_name = "adaptive_pools"
func.func @adaptive_pools(%x: tensor<2x3x7x5xf32>, %xh: tensor<2x7x5x3xf32>) -> tensor<2x3x3x2xf32> {
  // CHECK: %0 = relay.nn.adaptive_avg_pool2d %x {output_size = array<i64: 3, 2>} : (tensor<2x3x7x5xf32>) -> tensor<2x3x3x2xf32>
  // CHECK-GENERIC: %0 = "relay.nn.adaptive_avg_pool2d"(%x) <{output_size = array<i64: 3, 2>, layout = "NCHW", out_layout = ""}> : (tensor<2x3x7x5xf32>) -> tensor<2x3x3x2xf32>
  %0 = relay.nn.adaptive_avg_pool2d %x {output_size = array<i64: 3, 2>} : (tensor<2x3x7x5xf32>) -> tensor<2x3x3x2xf32>
  // CHECK-NEXT: %1 = relay.nn.adaptive_max_pool2d %xh {output_size = array<i64: 4>, layout = "NHWC"} : (tensor<2x7x5x3xf32>) -> tensor<2x4x4x3xf32>
  // CHECK-GENERIC: "relay.nn.adaptive_max_pool2d"(%xh) <{output_size = array<i64: 4>, layout = "NHWC"
  %1 = relay.nn.adaptive_max_pool2d %xh {output_size = array<i64: 4>, layout = "NHWC"} : (tensor<2x7x5x3xf32>) -> tensor<2x4x4x3xf32>
  // CHECK-NEXT: %2 = relay.nn.adaptive_max_pool2d %x {out_layout = "NHWC"} : (tensor<2x3x7x5xf32>) -> tensor<2x7x5x3xf32>
  // CHECK-GENERIC: "relay.nn.adaptive_max_pool2d"(%x) <{out_layout = "NHWC", layout = "NCHW"}>
  %2 = relay.nn.adaptive_max_pool2d %x {out_layout = "NHWC"} : (tensor<2x3x7x5xf32>) -> tensor<2x7x5x3xf32>
  func.return %0 : tensor<2x3x3x2xf32>
}
