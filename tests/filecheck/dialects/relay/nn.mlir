// RUN: XRELAY_ROUNDTRIP
// RUN: XRELAY_GENERIC_ROUNDTRIP

// CHECK-LABEL: func.func @conv
// CHECK-GENERIC-LABEL: "func.func"() <{sym_name = "conv"
func.func @conv(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>, %xh: tensor<1x8x8x4xf32>, %wd: tensor<3x3x4x2xf32>, %x4: tensor<1x4x5x5xf32>, %wt: tensor<3x4x3x3xf32>) -> tensor<1x4x4x4xf32> {
  // CHECK: %0 = relay.nn.conv2d %x, %w {strides = array<i64: 2, 2>, padding = array<i64: 1, 1, 1, 1>, channels = 4 : i64, kernel_size = array<i64: 3, 3>} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x4x4xf32>
  // CHECK-GENERIC: %0 = "relay.nn.conv2d"(%x, %w) <{strides = array<i64: 2, 2>, padding = array<i64: 1, 1, 1, 1>, channels = 4 : i64, kernel_size = array<i64: 3, 3>
  %0 = relay.nn.conv2d %x, %w {strides = array<i64: 2, 2>, padding = array<i64: 1, 1, 1, 1>, channels = 4 : i64, kernel_size = array<i64: 3, 3>} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x4x4xf32>
  // CHECK-NEXT: %1 = relay.nn.conv2d %xh, %wd {groups = 4 : i64, channels = 8 : i64, data_layout = "NHWC", kernel_layout = "HWOI", out_layout = "NCHW", dilation = array<i64: 2, 1>} : (tensor<1x8x8x4xf32>, tensor<3x3x4x2xf32>) -> tensor<1x8x4x6xf32>
  // CHECK-GENERIC: "relay.nn.conv2d"(%xh, %wd) <{groups = 4 : i64, channels = 8 : i64, data_layout = "NHWC", kernel_layout = "HWOI", out_layout = "NCHW"
  %1 = relay.nn.conv2d %xh, %wd {groups = 4 : i64, channels = 8 : i64, data_layout = "NHWC", kernel_layout = "HWOI", out_layout = "NCHW", dilation = array<i64: 2, 1>} : (tensor<1x8x8x4xf32>, tensor<3x3x4x2xf32>) -> tensor<1x8x4x6xf32>
  // CHECK-NEXT: %2 = relay.nn.conv2d %x, %w {out_dtype = f64} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<*xf64>
  // CHECK-GENERIC: "relay.nn.conv2d"(%x, %w) <{out_dtype = f64
  %2 = relay.nn.conv2d %x, %w {out_dtype = f64} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<*xf64>
  // CHECK-NEXT: %3 = relay.nn.conv2d_transpose %x4, %wt {strides = array<i64: 2, 2>, padding = array<i64: 1, 1, 1, 1>, output_padding = array<i64: 1, 0>, groups = 2 : i64, kernel_layout = "OIHW"} : (tensor<1x4x5x5xf32>, tensor<3x4x3x3xf32>) -> tensor<1x6x10x9xf32>
  // CHECK-GENERIC: "relay.nn.conv2d_transpose"(%x4, %wt) <{strides = array<i64: 2, 2>, padding = array<i64: 1, 1, 1, 1>, output_padding = array<i64: 1, 0>, groups = 2 : i64, kernel_layout = "OIHW"
  %3 = relay.nn.conv2d_transpose %x4, %wt {strides = array<i64: 2, 2>, padding = array<i64: 1, 1, 1, 1>, output_padding = array<i64: 1, 0>, groups = 2 : i64, kernel_layout = "OIHW"} : (tensor<1x4x5x5xf32>, tensor<3x4x3x3xf32>) -> tensor<1x6x10x9xf32>
  func.return %0 : tensor<1x4x4x4xf32>
}

// CHECK-LABEL: func.func @products
// CHECK-GENERIC-LABEL: "func.func"() <{sym_name = "products"
func.func @products(%a: tensor<2x3x8xf32>, %w: tensor<5x8xf32>, %q: tensor<4x8xi8>, %qw: tensor<5x8xi8>, %b: tensor<2x5x8xf32>, %c: tensor<1x8x5xf32>) -> tensor<2x3x5xf32> {
  // CHECK: %0 = relay.nn.dense %a, %w {units = 5 : i64} : (tensor<2x3x8xf32>, tensor<5x8xf32>) -> tensor<2x3x5xf32>
  // CHECK-GENERIC: %0 = "relay.nn.dense"(%a, %w) <{units = 5 : i64}> : (tensor<2x3x8xf32>, tensor<5x8xf32>) -> tensor<2x3x5xf32>
  %0 = relay.nn.dense %a, %w {units = 5 : i64} : (tensor<2x3x8xf32>, tensor<5x8xf32>) -> tensor<2x3x5xf32>
  // CHECK-NEXT: %1 = relay.nn.dense %q, %qw {out_dtype = i32} : (tensor<4x8xi8>, tensor<5x8xi8>) -> tensor<4x5xi32>
  // CHECK-GENERIC: "relay.nn.dense"(%q, %qw) <{out_dtype = i32}>
  %1 = relay.nn.dense %q, %qw {out_dtype = i32} : (tensor<4x8xi8>, tensor<5x8xi8>) -> tensor<4x5xi32>
  // CHECK-NEXT: %2 = relay.nn.matmul %a, %w {transpose_b = true} : (tensor<2x3x8xf32>, tensor<5x8xf32>) -> tensor<2x3x5xf32>
  // CHECK-GENERIC: "relay.nn.matmul"(%a, %w) <{transpose_b = true
  %2 = relay.nn.matmul %a, %w {transpose_b = true} : (tensor<2x3x8xf32>, tensor<5x8xf32>) -> tensor<2x3x5xf32>
  // CHECK-NEXT: %3 = relay.nn.matmul %w, %w {transpose_a = true, units = 8 : i64} : (tensor<5x8xf32>, tensor<5x8xf32>) -> tensor<8x8xf32>
  // CHECK-GENERIC: "relay.nn.matmul"(%w, %w) <{transpose_a = true, units = 8 : i64
  %3 = relay.nn.matmul %w, %w {transpose_a = true, units = 8 : i64} : (tensor<5x8xf32>, tensor<5x8xf32>) -> tensor<8x8xf32>
  // CHECK-NEXT: %4 = relay.nn.batch_matmul %a, %b : (tensor<2x3x8xf32>, tensor<2x5x8xf32>) -> tensor<2x3x5xf32>
  // CHECK-GENERIC: "relay.nn.batch_matmul"(%a, %b) <{transpose_a = false, transpose_b = true}>
  %4 = relay.nn.batch_matmul %a, %b : (tensor<2x3x8xf32>, tensor<2x5x8xf32>) -> tensor<2x3x5xf32>
  // CHECK-NEXT: %5 = relay.nn.batch_matmul %a, %c {transpose_b = false, out_dtype = f64} : (tensor<2x3x8xf32>, tensor<1x8x5xf32>) -> tensor<2x3x5xf64>
  // CHECK-GENERIC: "relay.nn.batch_matmul"(%a, %c) <{transpose_b = false, out_dtype = f64
  %5 = relay.nn.batch_matmul %a, %c {transpose_b = false, out_dtype = f64} : (tensor<2x3x8xf32>, tensor<1x8x5xf32>) -> tensor<2x3x5xf64>
  func.return %0 : tensor<2x3x5xf32>
}

// CHECK-LABEL: func.func @softmax
// CHECK-GENERIC-LABEL: "func.func"() <{sym_name = "softmax"
func.func @softmax(%x: tensor<2x3x4xf32>) -> tensor<2x3x4xf32> {
  // CHECK: %0 = relay.nn.softmax %x : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  // CHECK-GENERIC: %0 = "relay.nn.softmax"(%x) <{axis = -1 : i64}> : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  %0 = relay.nn.softmax %x : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  // CHECK-NEXT: %1 = relay.nn.log_softmax %0 {axis = 1 : i64} : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  // CHECK-GENERIC: "relay.nn.log_softmax"(%0) <{axis = 1 : i64}>
  %1 = relay.nn.log_softmax %0 {axis = 1 : i64} : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  // CHECK-NEXT: %2 = relay.nn.fast_softmax %1 {axis = -3 : i64} : (tensor<2x3x4xf32>) -> tensor<*xf32>
  // CHECK-GENERIC: "relay.nn.fast_softmax"(%1) <{axis = -3 : i64}>
  %2 = relay.nn.fast_softmax %1 {axis = -3 : i64} : (tensor<2x3x4xf32>) -> tensor<*xf32>
  func.return %1 : tensor<2x3x4xf32>
}

// CHECK-LABEL: func.func @shape_ops
// CHECK-GENERIC-LABEL: "func.func"() <{sym_name = "shape_ops"
func.func @shape_ops(%x: tensor<2x3x4x5xf32>, %v: tensor<f32>) -> tensor<2x60xf32> {
  // CHECK: %0, %1 = relay.nn.dropout %x {rate = 2.500000e-01 : f64} : (tensor<2x3x4x5xf32>) -> (tensor<2x3x4x5xf32>, tensor<2x3x4x5xf32>)
  // CHECK-GENERIC: %0, %1 = "relay.nn.dropout"(%x) <{rate = 2.500000e-01 : f64}> : (tensor<2x3x4x5xf32>) -> (tensor<2x3x4x5xf32>, tensor<2x3x4x5xf32>)
  %0, %1 = relay.nn.dropout %x {rate = 0.25 : f64} : (tensor<2x3x4x5xf32>) -> (tensor<2x3x4x5xf32>, tensor<2x3x4x5xf32>)
  // CHECK-NEXT: %2 = relay.nn.batch_flatten %0 : (tensor<2x3x4x5xf32>) -> tensor<2x60xf32>
  // CHECK-GENERIC: "relay.nn.batch_flatten"(%0) : (tensor<2x3x4x5xf32>) -> tensor<2x60xf32>
  %2 = relay.nn.batch_flatten %0 : (tensor<2x3x4x5xf32>) -> tensor<2x60xf32>
  // CHECK-NEXT: %3 = relay.nn.pad %x, %v {pad_width = array<i64: 0, 0, 1, 2, 0, 1, 3, 0>} : (tensor<2x3x4x5xf32>, tensor<f32>) -> tensor<2x6x5x8xf32>
  // CHECK-GENERIC: "relay.nn.pad"(%x, %v) <{pad_width = array<i64: 0, 0, 1, 2, 0, 1, 3, 0>, pad_mode = "constant"}>
  %3 = relay.nn.pad %x, %v {pad_width = array<i64: 0, 0, 1, 2, 0, 1, 3, 0>} : (tensor<2x3x4x5xf32>, tensor<f32>) -> tensor<2x6x5x8xf32>
  // CHECK-NEXT: %4 = relay.nn.pad %x, %v {pad_width = array<i64: 1, 1, 2, 2, 3, 3, 4, 4>, pad_mode = "reflect"} : (tensor<2x3x4x5xf32>, tensor<f32>) -> tensor<4x7x10x13xf32>
  // CHECK-GENERIC: "relay.nn.pad"(%x, %v) <{pad_width = array<i64: 1, 1, 2, 2, 3, 3, 4, 4>, pad_mode = "reflect"}>
  %4 = relay.nn.pad %x, %v {pad_width = array<i64: 1, 1, 2, 2, 3, 3, 4, 4>, pad_mode = "reflect"} : (tensor<2x3x4x5xf32>, tensor<f32>) -> tensor<4x7x10x13xf32>
  // CHECK-NEXT: %5 = relay.nn.pad %x, %v {pad_width = array<i64: 0, 0, 0, 0, 2, 2, 0, 9>, pad_mode = "edge"} : (tensor<2x3x4x5xf32>, tensor<f32>) -> tensor<2x3x8x14xf32>
  // CHECK-GENERIC: "relay.nn.pad"(%x, %v) <{pad_width = array<i64: 0, 0, 0, 0, 2, 2, 0, 9>, pad_mode = "edge"}>
  %5 = relay.nn.pad %x, %v {pad_width = array<i64: 0, 0, 0, 0, 2, 2, 0, 9>, pad_mode = "edge"} : (tensor<2x3x4x5xf32>, tensor<f32>) -> tensor<2x3x8x14xf32>
  func.return %2 : tensor<2x60xf32>
}
