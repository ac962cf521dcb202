// RUN: xrelay-opt %s --split-input-file --verify-diagnostics | filecheck %s

func.func @f(%x: tensor<1x2x8x8x8xf32>, %w: tensor<2x2x3x3x8x8xf32>) {
  // CHECK: relay.nn.contrib_conv2d_NCHWc: data_layout 'NHWC8c' is not supported (expected NCHW{c}c, e.g. NCHW8c)
  %r = relay.nn.contrib_conv2d_NCHWc %x, %w {data_layout = "NHWC8c"} : (tensor<1x2x8x8x8xf32>, tensor<2x2x3x3x8x8xf32>) -> tensor<*xf32>
  func.return
}

// -----

func.func @f(%x: tensor<1x2x8x8x8xf32>, %w: tensor<2x4x3x3x4x8xf32>) {
  // CHECK: relay.nn.contrib_conv2d_NCHWc: kernel_layout 'OIHW4i8o' does not fit data_layout 'NCHW8c' (expected OIHW8i{o}o, or OIHW{o}o without groups)
  %r = relay.nn.contrib_conv2d_NCHWc %x, %w {kernel_layout = "OIHW4i8o"} : (tensor<1x2x8x8x8xf32>, tensor<2x4x3x3x4x8xf32>) -> tensor<*xf32>
  func.return
}

// -----

func.func @f(%x: tensor<1x2x8x8x8xf32>, %w: tensor<2x2x3x3x8x8xf32>) {
  // CHECK: relay.nn.contrib_conv2d_NCHWc: out_layout 'NCHW16c' does not fit kernel_layout 'OIHW8i8o' (expected NCHW8c)
  %r = relay.nn.contrib_conv2d_NCHWc %x, %w {out_layout = "NCHW16c"} : (tensor<1x2x8x8x8xf32>, tensor<2x2x3x3x8x8xf32>) -> tensor<*xf32>
  func.return
}

// -----

func.func @f(%x: tensor<1x2x8x8x4xf32>, %w: tensor<2x2x3x3x8x8xf32>) {
  // CHECK: relay.nn.contrib_conv2d_NCHWc: data dimension 4 of sub-axis '8c' differs from its block 8 (layout 'NCHW8c', shape [1, 2, 8, 8, 4])
  %r = relay.nn.contrib_conv2d_NCHWc %x, %w : (tensor<1x2x8x8x4xf32>, tensor<2x2x3x3x8x8xf32>) -> tensor<*xf32>
  func.return
}

// -----

func.func @f(%x: tensor<1x2x8x8x8xf32>, %w: tensor<2x1x3x3x8x8xf32>) {
  // CHECK: relay.nn.contrib_conv2d_NCHWc: data has 16 input channels but the weight takes 8 per group with groups=1 (needs 16 == 8 * 1)
  %r = relay.nn.contrib_conv2d_NCHWc %x, %w : (tensor<1x2x8x8x8xf32>, tensor<2x1x3x3x8x8xf32>) -> tensor<*xf32>
  func.return
}

// -----

func.func @f(%x: tensor<1x2x8x8x8xf32>, %w: tensor<2x1x3x3x8x8xf32>) {
  // CHECK: relay.nn.contrib_conv2d_NCHWc: data has 16 input channels but the weight takes 8 per group with groups=3 (needs 16 == 8 * 3)
  %r = relay.nn.contrib_conv2d_NCHWc %x, %w {groups = 3 : i64} : (tensor<1x2x8x8x8xf32>, tensor<2x1x3x3x8x8xf32>) -> tensor<*xf32>
  func.return
}

// -----

func.func @f(%x: tensor<1x2x8x8x8xf32>, %w: tensor<2x2x3x3x8x8xf32>) {
  // CHECK: relay.nn.contrib_conv2d_NCHWc: result #0 has type tensor<1x2x8x8x8xf32> but the type relation gives tensor<1x2x6x6x8xf32>
  %r = relay.nn.contrib_conv2d_NCHWc %x, %w : (tensor<1x2x8x8x8xf32>, tensor<2x2x3x3x8x8xf32>) -> tensor<1x2x8x8x8xf32>
  func.return
}

// -----

func.func @f(%x: tensor<4x32xf32>, %w: tensor<2x32x8xf32>) {
  // CHECK: relay.nn.contrib_dense_pack: weight_layout 'CN8n' is not supported (expected NC{n}n, e.g. NC16n)
  %r = relay.nn.contrib_dense_pack %x, %w {weight_layout = "CN8n"} : (tensor<4x32xf32>, tensor<2x32x8xf32>) -> tensor<*xf32>
  func.return
}

// -----

func.func @f(%x: tensor<4x32xf32>, %w: tensor<2x32x8xf32>) {
  // CHECK: relay.nn.contrib_dense_pack: weight must be [units/4, K, 4] for weight_layout 'NC4n', got [2, 32, 8]
  %r = relay.nn.contrib_dense_pack %x, %w {weight_layout = "NC4n"} : (tensor<4x32xf32>, tensor<2x32x8xf32>) -> tensor<*xf32>
  func.return
}

// -----

func.func @f(%x: tensor<4x16xf32>, %w: tensor<2x32x8xf32>) {
  // CHECK: relay.nn.contrib_dense_pack: data's last dimension 16 does not match the weight's K 32
  %r = relay.nn.contrib_dense_pack %x, %w {weight_layout = "NC8n"} : (tensor<4x16xf32>, tensor<2x32x8xf32>) -> tensor<*xf32>
  func.return
}

// -----

func.func @f(%x: tensor<32xf32>, %w: tensor<2x32x8xf32>) {
  // CHECK: relay.nn.contrib_dense_pack: data must be [..., M, K] (rank 2 or more), got [32]
  %r = relay.nn.contrib_dense_pack %x, %w {weight_layout = "NC8n"} : (tensor<32xf32>, tensor<2x32x8xf32>) -> tensor<*xf32>
  func.return
}

// -----

func.func @f(%x: tensor<4x32xf32>, %w: tensor<2x32x8xf32>) {
  // CHECK: relay.nn.contrib_dense_pack: units=8 but the weight gives 16 output units
  %r = relay.nn.contrib_dense_pack %x, %w {weight_layout = "NC8n", units = 8 : i64} : (tensor<4x32xf32>, tensor<2x32x8xf32>) -> tensor<*xf32>
  func.return
}

// -----

func.func @f(%x: tensor<4x32xf32>, %w: tensor<2x32x8xf32>) {
  // CHECK: property 'weight_layout' expected in operation 'relay.nn.contrib_dense_pack'
  %r = relay.nn.contrib_dense_pack %x, %w : (tensor<4x32xf32>, tensor<2x32x8xf32>) -> tensor<*xf32>
  func.return
}

// -----

func.func @f(%x: tensor<1x2x8x8x4xf32>, %w: tensor<4x4x3x3x4xf32>) {
  // CHECK: relay.nn.contrib_conv2d_NCHWc: kernel_layout 'OIHW4o' does not fit data_layout 'NCHW4c' (expected OIHW4i{o}o, or OIHW{o}o without groups)
  %r = relay.nn.contrib_conv2d_NCHWc %x, %w {groups = 2 : i64, data_layout = "NCHW4c", kernel_layout = "OIHW4o"} : (tensor<1x2x8x8x4xf32>, tensor<4x4x3x3x4xf32>) -> tensor<*xf32>
  func.return
}
