// RUN: xrelay-opt %s --split-input-file --verify-diagnostics | filecheck %s

func.func @f(%a: tensor<2x3x4xf32>) -> tensor<5x5xf32> {
  // CHECK: relay.reshape: cannot reshape [2, 3, 4] (24 elements) to [5, 5] (25 elements) (newshape [5, 5])
  %r = relay.reshape %a {newshape = array<i64: 5, 5>} : (tensor<2x3x4xf32>) -> tensor<5x5xf32>
  func.return %r : tensor<5x5xf32>
}

// -----

func.func @f(%a: tensor<2x3x4xf32>) -> tensor<*xf32> {
  // CHECK: relay.reshape: newshape [-1, -1] has more than one -1 (only one dim can be inferred)
  %r = relay.reshape %a {newshape = array<i64: -1, -1>} : (tensor<2x3x4xf32>) -> tensor<*xf32>
  func.return %r : tensor<*xf32>
}

// -----

func.func @f(%a: tensor<2x3x4xf32>) -> tensor<*xf32> {
  // CHECK: relay.reshape: the two values after -4 cannot both be -1
  %r = relay.reshape %a {newshape = array<i64: -4, -1, -1, -2>} : (tensor<2x3x4xf32>) -> tensor<*xf32>
  func.return %r : tensor<*xf32>
}

// -----

func.func @f(%a: tensor<2x3x4xf32>) -> tensor<6x2x2xf32> {
  // CHECK: relay.reshape: result #0 has type tensor<6x2x2xf32> but the type relation gives tensor<6x4xf32>
  %r = relay.reshape %a {newshape = array<i64: -3, -2>} : (tensor<2x3x4xf32>) -> tensor<6x2x2xf32>
  func.return %r : tensor<6x2x2xf32>
}

// -----

func.func @f(%a: tensor<2x3x4xf32>) -> tensor<4x6xf32> {
  // CHECK: relay.contrib_reverse_reshape: result #0 has type tensor<4x6xf32> but the type relation gives tensor<6x4xf32>
  %r = relay.contrib_reverse_reshape %a {newshape = array<i64: -1, 0>} : (tensor<2x3x4xf32>) -> tensor<4x6xf32>
  func.return %r : tensor<4x6xf32>
}

// -----

func.func @f(%a: tensor<2x3x4xf32>) -> tensor<*xf32> {
  // CHECK: relay.contrib_reverse_reshape: newshape[3] = 0 copies input dim 3 but the input [4, 3, 2] has rank 3, reading newshape [0, 0, 0, 0] from the right
  %r = relay.contrib_reverse_reshape %a {newshape = array<i64: 0, 0, 0, 0>} : (tensor<2x3x4xf32>) -> tensor<*xf32>
  func.return %r : tensor<*xf32>
}

// -----

func.func @f(%a: tensor<2x3xf32>, %b: tensor<7xf32>) -> tensor<*xf32> {
  // CHECK: relay.reshape_like: cannot reshape [2, 3] (6 elements) to [7] (7 elements)
  %r = relay.reshape_like %a, %b : (tensor<2x3xf32>, tensor<7xf32>) -> tensor<*xf32>
  func.return %r : tensor<*xf32>
}

// -----

func.func @f(%a: tensor<2x3x4xf32>) -> tensor<*xf32> {
  // CHECK: relay.transpose: axes [0, 1, -2] is not a permutation
  %r = relay.transpose %a {axes = array<i64: 0, 1, -2>} : (tensor<2x3x4xf32>) -> tensor<*xf32>
  func.return %r : tensor<*xf32>
}

// -----

func.func @f(%a: tensor<2x3xf32>) -> tensor<*xf32> {
  // CHECK: relay.expand_dims: axis 3 is out of range [-3, 2] for rank 2
  %r = relay.expand_dims %a {axis = 3 : i64} : (tensor<2x3xf32>) -> tensor<*xf32>
  func.return %r : tensor<*xf32>
}

// -----

func.func @f(%a: tensor<1x3xf32>) -> tensor<*xf32> {
  // CHECK: relay.squeeze: cannot squeeze axis 1 of size 3 (shape [1, 3]); it must have size 1
  %r = relay.squeeze %a {axis = array<i64: 1>} : (tensor<1x3xf32>) -> tensor<*xf32>
  func.return %r : tensor<*xf32>
}

// -----

func.func @f(%a: tensor<2x3xf32>, %b: tensor<2x3xi32>) -> tensor<*xf32> {
  // CHECK: relay.concatenate: data[1] has element type i32 but data[0] has f32 (relay does not promote dtypes)
  %r = relay.concatenate %a, %b : (tensor<2x3xf32>, tensor<2x3xi32>) -> tensor<*xf32>
  func.return %r : tensor<*xf32>
}

// -----

func.func @f(%a: tensor<2x3xf32>, %b: tensor<3x3xf32>) -> tensor<*xf32> {
  // CHECK: relay.concatenate: concatenate needs equal dims on axis 0, got [2, 3]
  %r = relay.concatenate %a, %b {axis = 1 : i64} : (tensor<2x3xf32>, tensor<3x3xf32>) -> tensor<*xf32>
  func.return %r : tensor<*xf32>
}

// -----

func.func @f(%a: tensor<2x3xf32>, %b: tensor<2x4xf32>) -> tensor<*xf32> {
  // CHECK: relay.stack: stack needs equal dims on axis 1, got [3, 4]
  %r = relay.stack %a, %b {axis = 0 : i64} : (tensor<2x3xf32>, tensor<2x4xf32>) -> tensor<*xf32>
  func.return %r : tensor<*xf32>
}

// -----

func.func @f(%a: tensor<6x4xf32>) -> tensor<*xf32> {
  // CHECK: relay.split: 4 sections do not divide the split axis of size 6
  %r:4 = relay.split %a {indices_or_sections = 4 : i64} : (tensor<6x4xf32>) -> (tensor<*xf32>, tensor<*xf32>, tensor<*xf32>, tensor<*xf32>)
  func.return %r#0 : tensor<*xf32>
}

// -----

func.func @f(%a: tensor<6x4xf32>) -> tensor<3x4xf32> {
  // CHECK: relay.split: expected 2 results, got 3
  %r:3 = relay.split %a {indices_or_sections = 2 : i64} : (tensor<6x4xf32>) -> (tensor<3x4xf32>, tensor<3x4xf32>, tensor<3x4xf32>)
  func.return %r#0 : tensor<3x4xf32>
}

// -----

func.func @f(%a: tensor<4x5xf32>) -> tensor<*xf32> {
  // CHECK: relay.strided_slice: strides [0, 1] contain a zero stride
  %r = relay.strided_slice %a {begin = array<i64: 0>, end = array<i64: 2>, strides = array<i64: 0>} : (tensor<4x5xf32>) -> tensor<*xf32>
  func.return %r : tensor<*xf32>
}

// -----

func.func @f(%a: tensor<4x5xf32>) -> tensor<*xf32> {
  // CHECK: relay.strided_slice: begin 3 and end 1 (clamped to 3 and 1) are invalid for axis 0 of size 4 with stride 1
  %r = relay.strided_slice %a {begin = array<i64: 3>, end = array<i64: 1>} : (tensor<4x5xf32>) -> tensor<*xf32>
  func.return %r : tensor<*xf32>
}

// -----

func.func @f(%a: tensor<4x5xf32>, %i: tensor<3xf32>) -> tensor<*xf32> {
  // CHECK: relay.take: indices must be an integer tensor, got tensor<3xf32>
  %r = relay.take %a, %i {axis = 0 : i64} : (tensor<4x5xf32>, tensor<3xf32>) -> tensor<*xf32>
  func.return %r : tensor<*xf32>
}

// -----

func.func @f(%a: tensor<4x5xf32>, %i: tensor<3xi32>) -> tensor<*xf32> {
  // CHECK: relay.take: mode must be "clip", "wrap" or "fast", got "raise"
  %r = relay.take %a, %i {axis = 0 : i64, mode = "raise"} : (tensor<4x5xf32>, tensor<3xi32>) -> tensor<*xf32>
  func.return %r : tensor<*xf32>
}

// -----

func.func @f(%a: tensor<4x5xf32>, %i: tensor<4x6xi32>) -> tensor<*xf32> {
  // CHECK: relay.gather: indices dim 1 is 6 but data dim 1 is 5 (only the axis 0 may differ)
  %r = relay.gather %a, %i {axis = 0 : i64} : (tensor<4x5xf32>, tensor<4x6xi32>) -> tensor<*xf32>
  func.return %r : tensor<*xf32>
}

// -----

func.func @f(%a: tensor<4x5xf32>, %i: tensor<3x2xi32>) -> tensor<*xf32> {
  // CHECK: relay.gather_nd: indices address 3 dims after 0 batch dims but data has rank 2
  %r = relay.gather_nd %a, %i : (tensor<4x5xf32>, tensor<3x2xi32>) -> tensor<*xf32>
  func.return %r : tensor<*xf32>
}

// -----

func.func @f(%a: tensor<3xf32>) -> tensor<*xf32> {
  // CHECK: relay.broadcast_to: shape [3] does not broadcast to [2, 4]
  %r = relay.broadcast_to %a {shape = array<i64: 2, 4>} : (tensor<3xf32>) -> tensor<*xf32>
  func.return %r : tensor<*xf32>
}

// -----

func.func @f(%a: tensor<3x2xf32>, %b: tensor<3x4xf32>) -> tensor<*xf32> {
  // CHECK: relay.broadcast_to_like: shape [3, 2] does not broadcast to [3, 4]
  %r = relay.broadcast_to_like %a, %b : (tensor<3x2xf32>, tensor<3x4xf32>) -> tensor<*xf32>
  func.return %r : tensor<*xf32>
}

// -----

func.func @f(%a: tensor<3x4xf32>, %b: tensor<4xf16>) -> tensor<*xf16> {
  // CHECK: relay.collapse_sum_like: like has element type f16 but data has f32 (relay does not promote dtypes)
  %r = relay.collapse_sum_like %a, %b : (tensor<3x4xf32>, tensor<4xf16>) -> tensor<*xf16>
  func.return %r : tensor<*xf16>
}

// -----

func.func @f(%a: tensor<3x4xf32>) -> tensor<*xf32> {
  // CHECK: relay.tile: reps [2, 0] must all be > 0
  %r = relay.tile %a {reps = array<i64: 2, 0>} : (tensor<3x4xf32>) -> tensor<*xf32>
  func.return %r : tensor<*xf32>
}

// -----

func.func @f(%a: tensor<3x4xf32>) -> tensor<*xf32> {
  // CHECK: relay.repeat: repeats must be >= 1, got 0
  %r = relay.repeat %a {repeats = 0 : i64, axis = 0 : i64} : (tensor<3x4xf32>) -> tensor<*xf32>
  func.return %r : tensor<*xf32>
}

// -----

func.func @f(%a: tensor<3x4xf32>) -> tensor<*xf32> {
  // CHECK: relay.reverse: axis -3 is out of range for rank 2
  %r = relay.reverse %a {axis = -3 : i64} : (tensor<3x4xf32>) -> tensor<*xf32>
  func.return %r : tensor<*xf32>
}

// -----

func.func @f(%a: tensor<1x12x4x4xf32>) -> tensor<*xf32> {
  // CHECK: relay.layout_transform: axis C of size 12 cannot be split by 8 for layout 'NCHW8c'
  %r = relay.layout_transform %a {src_layout = "NCHW", dst_layout = "NCHW8c"} : (tensor<1x12x4x4xf32>) -> tensor<*xf32>
  func.return %r : tensor<*xf32>
}

// -----

func.func @f(%a: tensor<1x12x4x4xf32>) -> tensor<*xf32> {
  // CHECK: relay.layout_transform: invalid layout 'NHW4c': sub-axis '4c' has no primal axis 'C'
  %r = relay.layout_transform %a {src_layout = "NCHW", dst_layout = "NHW4c"} : (tensor<1x12x4x4xf32>) -> tensor<*xf32>
  func.return %r : tensor<*xf32>
}

// -----

func.func @f(%a: tensor<1x12x4x4xf32>) -> tensor<*xf32> {
  // CHECK: relay.layout_transform: cannot convert layout 'NCHW' to 'NCDHW': their primal axes differ (NCHW vs NCDHW)
  %r = relay.layout_transform %a {src_layout = "NCHW", dst_layout = "NCDHW"} : (tensor<1x12x4x4xf32>) -> tensor<*xf32>
  func.return %r : tensor<*xf32>
}

// -----

func.func @f(%a: tensor<2x3xf32>) -> tensor<*xf32> {
  // CHECK: relay.shape_of: dtype must be an integer or float type, got i1
  %r = relay.shape_of %a {dtype = i1} : (tensor<2x3xf32>) -> tensor<*xi1>
  func.return %r : tensor<*xi1>
}

// -----

func.func @f(%i: tensor<2xi32>, %v: tensor<f32>) -> tensor<*xf32> {
  // CHECK: relay.one_hot: depth must be > 0, got 0
  %r = relay.one_hot %i, %v, %v {depth = 0 : i64, dtype = f32} : (tensor<2xi32>, tensor<f32>, tensor<f32>) -> tensor<*xf32>
  func.return %r : tensor<*xf32>
}

// -----

func.func @f(%i: tensor<2xi32>, %v: tensor<1xf32>) -> tensor<*xf32> {
  // CHECK: relay.one_hot: on_value must be a 0-d tensor, got tensor<1xf32>
  %r = relay.one_hot %i, %v, %v {depth = 3 : i64, dtype = f32} : (tensor<2xi32>, tensor<1xf32>, tensor<1xf32>) -> tensor<*xf32>
  func.return %r : tensor<*xf32>
}

// -----

func.func @f(%a: tensor<2x3x4xf32>) -> tensor<*xf32> {
  // CHECK: relay.collapse_sum_to: {{.*}}[2, 3]{{.*}}[2, 3, 4]
  %r = relay.collapse_sum_to %a {shape = array<i64: 2, 3>} : (tensor<2x3x4xf32>) -> tensor<*xf32>
  func.return %r : tensor<*xf32>
}

// -----

func.func @f(%a: tensor<2x3xf32>) -> tensor<2xi32> {
  // CHECK: relay.ndarray_size: {{.*}}tensor<2xi32>
  %r = relay.ndarray_size %a : (tensor<2x3xf32>) -> tensor<2xi32>
  func.return %r : tensor<2xi32>
}
