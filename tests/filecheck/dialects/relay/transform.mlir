// RUN: XRELAY_ROUNDTRIP
// RUN: XRELAY_GENERIC_ROUNDTRIP

// CHECK-LABEL: func.func @reshapes
// CHECK-GENERIC-LABEL: "func.func"() <{sym_name = "reshapes"
func.func @reshapes(%a: tensor<2x3x4xf32>, %l: tensor<6x4xi32>) -> tensor<2x12xf32> {
  // CHECK-NEXT: %0 = relay.reshape %a {newshape = array<i64: 0, -3>} : (tensor<2x3x4xf32>) -> tensor<2x12xf32>
  // CHECK-GENERIC: %0 = "relay.reshape"(
  %0 = relay.reshape %a {newshape = array<i64: 0, -3>} : (tensor<2x3x4xf32>) -> tensor<2x12xf32>
  // CHECK-NEXT: %1 = relay.reshape %a {newshape = array<i64: -4, 1, -1, -2>, allowzero = true} : (tensor<2x3x4xf32>) -> tensor<1x2x3x4xf32>
  // CHECK-GENERIC: %1 = "relay.reshape"(
  %1 = relay.reshape %a {newshape = array<i64: -4, 1, -1, -2>, allowzero = true} : (tensor<2x3x4xf32>) -> tensor<1x2x3x4xf32>
  // CHECK-NEXT: %2 = relay.reshape %a {newshape = array<i64: -1>} : (tensor<2x3x4xf32>) -> tensor<*xf32>
  // CHECK-GENERIC: %2 = "relay.reshape"(
  %2 = relay.reshape %a {newshape = array<i64: -1>} : (tensor<2x3x4xf32>) -> tensor<*xf32>
  // CHECK-NEXT: %3 = relay.reshape_like %a, %l {lhs_end = 2 : i64, rhs_end = 1 : i64} : (tensor<2x3x4xf32>, tensor<6x4xi32>) -> tensor<6x4xf32>
  // CHECK-GENERIC: %3 = "relay.reshape_like"(
  %3 = relay.reshape_like %a, %l {lhs_end = 2 : i64, rhs_end = 1 : i64} : (tensor<2x3x4xf32>, tensor<6x4xi32>) -> tensor<6x4xf32>
  // CHECK-NEXT: %4 = relay.reshape_like %a, %l {lhs_begin = -1 : i64, rhs_begin = -1 : i64} : (tensor<2x3x4xf32>, tensor<6x4xi32>) -> tensor<2x3x4xf32>
  // CHECK-GENERIC: %4 = "relay.reshape_like"(
  %4 = relay.reshape_like %a, %l {lhs_begin = -1 : i64, rhs_begin = -1 : i64} : (tensor<2x3x4xf32>, tensor<6x4xi32>) -> tensor<2x3x4xf32>
  // CHECK-NEXT: %5 = relay.contrib_reverse_reshape %a {newshape = array<i64: -1, 0>} : (tensor<2x3x4xf32>) -> tensor<6x4xf32>
  // CHECK-GENERIC: %5 = "relay.contrib_reverse_reshape"(
  %5 = relay.contrib_reverse_reshape %a {newshape = array<i64: -1, 0>} : (tensor<2x3x4xf32>) -> tensor<6x4xf32>
  func.return %0 : tensor<2x12xf32>
}

// CHECK-LABEL: func.func @permutes
// CHECK-GENERIC-LABEL: "func.func"() <{sym_name = "permutes"
func.func @permutes(%a: tensor<2x3x4xf32>) -> tensor<4x3x2xf32> {
  // CHECK-NEXT: %0 = relay.transpose %a : (tensor<2x3x4xf32>) -> tensor<4x3x2xf32>
  // CHECK-GENERIC: %0 = "relay.transpose"(
  %0 = relay.transpose %a : (tensor<2x3x4xf32>) -> tensor<4x3x2xf32>
  // CHECK-NEXT: %1 = relay.transpose %a {axes = array<i64: 0, -1, 1>} : (tensor<2x3x4xf32>) -> tensor<2x4x3xf32>
  // CHECK-GENERIC: %1 = "relay.transpose"(
  %1 = relay.transpose %a {axes = array<i64: 0, -1, 1>} : (tensor<2x3x4xf32>) -> tensor<2x4x3xf32>
  // CHECK-NEXT: %2 = relay.expand_dims %a {axis = -1 : i64, num_newaxis = 2 : i64} : (tensor<2x3x4xf32>) -> tensor<2x3x4x1x1xf32>
  // CHECK-GENERIC: %2 = "relay.expand_dims"(
  %2 = relay.expand_dims %a {axis = -1 : i64, num_newaxis = 2 : i64} : (tensor<2x3x4xf32>) -> tensor<2x3x4x1x1xf32>
  // CHECK-NEXT: %3 = relay.expand_dims %a {axis = 0 : i64} : (tensor<2x3x4xf32>) -> tensor<1x2x3x4xf32>
  // CHECK-GENERIC: %3 = "relay.expand_dims"(
  %3 = relay.expand_dims %a {axis = 0 : i64} : (tensor<2x3x4xf32>) -> tensor<1x2x3x4xf32>
  // CHECK-NEXT: %4 = relay.squeeze %2 : (tensor<2x3x4x1x1xf32>) -> tensor<2x3x4xf32>
  // CHECK-GENERIC: %4 = "relay.squeeze"(
  %4 = relay.squeeze %2 : (tensor<2x3x4x1x1xf32>) -> tensor<2x3x4xf32>
  // CHECK-NEXT: %5 = relay.squeeze %2 {axis = array<i64: -1>} : (tensor<2x3x4x1x1xf32>) -> tensor<2x3x4x1xf32>
  // CHECK-GENERIC: %5 = "relay.squeeze"(
  %5 = relay.squeeze %2 {axis = array<i64: -1>} : (tensor<2x3x4x1x1xf32>) -> tensor<2x3x4x1xf32>
  // CHECK-NEXT: %6 = relay.reverse %a {axis = 1 : i64} : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  // CHECK-GENERIC: %6 = "relay.reverse"(
  %6 = relay.reverse %a {axis = 1 : i64} : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  func.return %0 : tensor<4x3x2xf32>
}

// CHECK-LABEL: func.func @join_split
// CHECK-GENERIC-LABEL: "func.func"() <{sym_name = "join_split"
func.func @join_split(%a: tensor<2x3xf32>, %b: tensor<2x5xf32>) -> tensor<2x8xf32> {
  // CHECK-NEXT: %0 = relay.concatenate %a, %b {axis = 1 : i64} : (tensor<2x3xf32>, tensor<2x5xf32>) -> tensor<2x8xf32>
  // CHECK-GENERIC: %0 = "relay.concatenate"(
  %0 = relay.concatenate %a, %b {axis = 1 : i64} : (tensor<2x3xf32>, tensor<2x5xf32>) -> tensor<2x8xf32>
  // CHECK-NEXT: %1 = relay.concatenate %a, %a : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<4x3xf32>
  // CHECK-GENERIC: %1 = "relay.concatenate"(
  %1 = relay.concatenate %a, %a : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<4x3xf32>
  // CHECK-NEXT: %2 = relay.stack %a, %a, %a {axis = -1 : i64} : (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3x3xf32>
  // CHECK-GENERIC: %2 = "relay.stack"(
  %2 = relay.stack %a, %a, %a {axis = -1 : i64} : (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3x3xf32>
  // CHECK-NEXT: %3, %4 = relay.split %a {indices_or_sections = 2 : i64} : (tensor<2x3xf32>) -> (tensor<1x3xf32>, tensor<1x3xf32>)
  // CHECK-GENERIC: %3, %4 = "relay.split"(%a) <{indices_or_sections = 2 : i64, axis = 0 : i64}>
  %3, %4 = relay.split %a {indices_or_sections = 2 : i64} : (tensor<2x3xf32>) -> (tensor<1x3xf32>, tensor<1x3xf32>)
  // CHECK-NEXT: %5, %6, %7 = relay.split %b {indices_or_sections = array<i64: 1, 1>, axis = -1 : i64} : (tensor<2x5xf32>) -> (tensor<2x1xf32>, tensor<2x0xf32>, tensor<2x4xf32>)
  // CHECK-GENERIC: %5, %6, %7 = "relay.split"(%b) <{indices_or_sections = array<i64: 1, 1>, axis = -1 : i64}>
  %5:3 = relay.split %b {indices_or_sections = array<i64: 1, 1>, axis = -1 : i64} : (tensor<2x5xf32>) -> (tensor<2x1xf32>, tensor<2x0xf32>, tensor<2x4xf32>)
  func.return %0 : tensor<2x8xf32>
}

// CHECK-LABEL: func.func @slices
// CHECK-GENERIC-LABEL: "func.func"() <{sym_name = "slices"
func.func @slices(%a: tensor<4x5xf32>, %i: tensor<3xi32>, %j: tensor<2x3xi64>, %k: tensor<4x3xi64>, %g: tensor<1x4x2xi64>) -> tensor<2x5xf32> {
  // CHECK-NEXT: %0 = relay.strided_slice %a {begin = array<i64: 1>, end = array<i64: 3>} : (tensor<4x5xf32>) -> tensor<2x5xf32>
  // CHECK-GENERIC: %0 = "relay.strided_slice"(
  %0 = relay.strided_slice %a {begin = array<i64: 1>, end = array<i64: 3>} : (tensor<4x5xf32>) -> tensor<2x5xf32>
  // CHECK-NEXT: %1 = relay.strided_slice %a {begin = array<i64: -1, 4>, end = array<i64: -5, 0>, strides = array<i64: -2, -1>} : (tensor<4x5xf32>) -> tensor<2x4xf32>
  // CHECK-GENERIC: %1 = "relay.strided_slice"(
  %1 = relay.strided_slice %a {begin = array<i64: -1, 4>, end = array<i64: -5, 0>, strides = array<i64: -2, -1>} : (tensor<4x5xf32>) -> tensor<2x4xf32>
  // CHECK-NEXT: %2 = relay.strided_slice %a {begin = array<i64: 1>, end = array<i64: -1>, axes = array<i64: 1>, slice_mode = "size"} : (tensor<4x5xf32>) -> tensor<4x4xf32>
  // CHECK-GENERIC: %2 = "relay.strided_slice"(
  %2 = relay.strided_slice %a {begin = array<i64: 1>, end = array<i64: -1>, axes = array<i64: 1>, slice_mode = "size"} : (tensor<4x5xf32>) -> tensor<4x4xf32>
  // CHECK-NEXT: %3 = relay.take %a, %i : (tensor<4x5xf32>, tensor<3xi32>) -> tensor<3xf32>
  // CHECK-GENERIC: %3 = "relay.take"(
  %3 = relay.take %a, %i : (tensor<4x5xf32>, tensor<3xi32>) -> tensor<3xf32>
  // CHECK-NEXT: %4 = relay.take %a, %i {axis = 1 : i64, mode = "wrap"} : (tensor<4x5xf32>, tensor<3xi32>) -> tensor<4x3xf32>
  // CHECK-GENERIC: %4 = "relay.take"(
  %4 = relay.take %a, %i {axis = 1 : i64, mode = "wrap"} : (tensor<4x5xf32>, tensor<3xi32>) -> tensor<4x3xf32>
  // CHECK-NEXT: %5 = relay.take %a, %k {axis = 1 : i64, batch_dims = 1 : i64, mode = "fast"} : (tensor<4x5xf32>, tensor<4x3xi64>) -> tensor<*xf32>
  // CHECK-GENERIC: %5 = "relay.take"(
  %5 = relay.take %a, %k {axis = 1 : i64, batch_dims = 1 : i64, mode = "fast"} : (tensor<4x5xf32>, tensor<4x3xi64>) -> tensor<*xf32>
  // CHECK-NEXT: %6 = relay.gather %a, %k {axis = 1 : i64} : (tensor<4x5xf32>, tensor<4x3xi64>) -> tensor<4x3xf32>
  // CHECK-GENERIC: %6 = "relay.gather"(
  %6 = relay.gather %a, %k {axis = 1 : i64} : (tensor<4x5xf32>, tensor<4x3xi64>) -> tensor<4x3xf32>
  // CHECK-NEXT: %7 = relay.gather_nd %a, %j : (tensor<4x5xf32>, tensor<2x3xi64>) -> tensor<3xf32>
  // CHECK-GENERIC: %7 = "relay.gather_nd"(
  %7 = relay.gather_nd %a, %j : (tensor<4x5xf32>, tensor<2x3xi64>) -> tensor<3xf32>
  // CHECK-NEXT: %8 = relay.gather_nd %a, %g {batch_dims = 1 : i64, index_rank = 1 : i64} : (tensor<4x5xf32>, tensor<1x4x2xi64>) -> tensor<4x2xf32>
  // CHECK-GENERIC: %8 = "relay.gather_nd"(
  %8 = relay.gather_nd %a, %g {batch_dims = 1 : i64, index_rank = 1 : i64} : (tensor<4x5xf32>, tensor<1x4x2xi64>) -> tensor<4x2xf32>
  func.return %0 : tensor<2x5xf32>
}

// CHECK-LABEL: func.func @broadcasts
// CHECK-GENERIC-LABEL: "func.func"() <{sym_name = "broadcasts"
func.func @broadcasts(%a: tensor<3x1xf32>, %b: tensor<2x3x4xf32>) -> tensor<2x3x4xf32> {
  // CHECK-NEXT: %0 = relay.broadcast_to %a {shape = array<i64: 2, 3, 4>} : (tensor<3x1xf32>) -> tensor<2x3x4xf32>
  // CHECK-GENERIC: %0 = "relay.broadcast_to"(
  %0 = relay.broadcast_to %a {shape = array<i64: 2, 3, 4>} : (tensor<3x1xf32>) -> tensor<2x3x4xf32>
  // CHECK-NEXT: %1 = relay.broadcast_to_like %a, %b : (tensor<3x1xf32>, tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  // CHECK-GENERIC: %1 = "relay.broadcast_to_like"(
  %1 = relay.broadcast_to_like %a, %b : (tensor<3x1xf32>, tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  // CHECK-NEXT: %2 = relay.collapse_sum_like %b, %a : (tensor<2x3x4xf32>, tensor<3x1xf32>) -> tensor<3x1xf32>
  // CHECK-GENERIC: %2 = "relay.collapse_sum_like"(
  %2 = relay.collapse_sum_like %b, %a : (tensor<2x3x4xf32>, tensor<3x1xf32>) -> tensor<3x1xf32>
  // CHECK-NEXT: %3 = relay.tile %a {reps = array<i64: 2, 1, 3>} : (tensor<3x1xf32>) -> tensor<2x3x3xf32>
  // CHECK-GENERIC: %3 = "relay.tile"(
  %3 = relay.tile %a {reps = array<i64: 2, 1, 3>} : (tensor<3x1xf32>) -> tensor<2x3x3xf32>
  // CHECK-NEXT: %4 = relay.repeat %a {repeats = 2 : i64, axis = -1 : i64} : (tensor<3x1xf32>) -> tensor<3x2xf32>
  // CHECK-GENERIC: %4 = "relay.repeat"(
  %4 = relay.repeat %a {repeats = 2 : i64, axis = -1 : i64} : (tensor<3x1xf32>) -> tensor<3x2xf32>
  func.return %0 : tensor<2x3x4xf32>
}

// CHECK-LABEL: func.func @layouts
// CHECK-GENERIC-LABEL: "func.func"() <{sym_name = "layouts"
func.func @layouts(%a: tensor<1x16x4x4xf32>, %i: tensor<2x3xi32>, %on: tensor<f32>, %off: tensor<f32>) -> tensor<1x2x4x4x8xf32> {
  // CHECK-NEXT: %0 = relay.layout_transform %a {src_layout = "NCHW", dst_layout = "NCHW8c"} : (tensor<1x16x4x4xf32>) -> tensor<1x2x4x4x8xf32>
  // CHECK-GENERIC: %0 = "relay.layout_transform"(
  %0 = relay.layout_transform %a {src_layout = "NCHW", dst_layout = "NCHW8c"} : (tensor<1x16x4x4xf32>) -> tensor<1x2x4x4x8xf32>
  // CHECK-NEXT: %1 = relay.layout_transform %0 {src_layout = "NCHW8c", dst_layout = "NHWC"} : (tensor<1x2x4x4x8xf32>) -> tensor<1x4x4x16xf32>
  // CHECK-GENERIC: %1 = "relay.layout_transform"(
  %1 = relay.layout_transform %0 {src_layout = "NCHW8c", dst_layout = "NHWC"} : (tensor<1x2x4x4x8xf32>) -> tensor<1x4x4x16xf32>
  // CHECK-NEXT: %2 = relay.shape_of %a : (tensor<1x16x4x4xf32>) -> tensor<4xi32>
  // CHECK-GENERIC: %2 = "relay.shape_of"(%a) <{dtype = i32}>
  %2 = relay.shape_of %a : (tensor<1x16x4x4xf32>) -> tensor<4xi32>
  // CHECK-NEXT: %3 = relay.shape_of %a {dtype = i64} : (tensor<1x16x4x4xf32>) -> tensor<4xi64>
  // CHECK-GENERIC: %3 = "relay.shape_of"(
  %3 = relay.shape_of %a {dtype = i64} : (tensor<1x16x4x4xf32>) -> tensor<4xi64>
  // CHECK-NEXT: %4 = relay.one_hot %i, %on, %off {depth = 5 : i64, dtype = f32} : (tensor<2x3xi32>, tensor<f32>, tensor<f32>) -> tensor<2x3x5xf32>
  // CHECK-GENERIC: %4 = "relay.one_hot"(
  %4 = relay.one_hot %i, %on, %off {depth = 5 : i64, dtype = f32} : (tensor<2x3xi32>, tensor<f32>, tensor<f32>) -> tensor<2x3x5xf32>
  // CHECK-NEXT: %5 = relay.one_hot %i, %on, %off {depth = 5 : i64, axis = 0 : i64, dtype = f16} : (tensor<2x3xi32>, tensor<f32>, tensor<f32>) -> tensor<5x2x3xf16>
  // CHECK-GENERIC: %5 = "relay.one_hot"(
  %5 = relay.one_hot %i, %on, %off {depth = 5 : i64, axis = 0 : i64, dtype = f16} : (tensor<2x3xi32>, tensor<f32>, tensor<f32>) -> tensor<5x2x3xf16>
  func.return %0 : tensor<1x2x4x4x8xf32>
}

// CHECK-LABEL: func.func @sums_and_sizes
// CHECK-GENERIC-LABEL: "func.func"() <{sym_name = "sums_and_sizes"
func.func @sums_and_sizes(%a: tensor<2x3x4xf32>) -> tensor<3x1xf32> {
  // CHECK-NEXT: %0 = relay.collapse_sum_to %a {shape = array<i64: 3, 1>} : (tensor<2x3x4xf32>) -> tensor<3x1xf32>
  // CHECK-GENERIC: %0 = "relay.collapse_sum_to"(%a) <{shape = array<i64: 3, 1>}>
  %0 = relay.collapse_sum_to %a {shape = array<i64: 3, 1>} : (tensor<2x3x4xf32>) -> tensor<3x1xf32>
  // CHECK-NEXT: %1 = relay.ndarray_size %a : (tensor<2x3x4xf32>) -> tensor<i32>
  // CHECK-GENERIC: %1 = "relay.ndarray_size"(%a) <{dtype = i32}>
  %1 = relay.ndarray_size %a : (tensor<2x3x4xf32>) -> tensor<i32>
  // CHECK-NEXT: %2 = relay.ndarray_size %a {dtype = f32} : (tensor<2x3x4xf32>) -> tensor<f32>
  // CHECK-GENERIC: %2 = "relay.ndarray_size"(
  %2 = relay.ndarray_size %a {dtype = f32} : (tensor<2x3x4xf32>) -> tensor<f32>
  func.return %0 : tensor<3x1xf32>
}
