// RUN: xrelay-opt %s --split-input-file --verify-diagnostics | filecheck %s

func.func @f(%x: tensor<1x3x5x7xi32>, %g: tensor<1x2x4x6xi32>) -> tensor<1x3x4x6xi32> {
  // CHECK: relay.image.grid_sample: data must be a float tensor, got tensor<1x3x5x7xi32>
  %r = relay.image.grid_sample %x, %g : (tensor<1x3x5x7xi32>, tensor<1x2x4x6xi32>) -> tensor<1x3x4x6xi32>
  func.return %r : tensor<1x3x4x6xi32>
}

// -----

func.func @f(%x: tensor<1x3x5x7xf32>, %g: tensor<1x2x4x6xf64>) -> tensor<1x3x4x6xf32> {
  // CHECK: relay.image.grid_sample: grid has element type f64 but data has f32 (relay does not promote dtypes)
  %r = relay.image.grid_sample %x, %g : (tensor<1x3x5x7xf32>, tensor<1x2x4x6xf64>) -> tensor<1x3x4x6xf32>
  func.return %r : tensor<1x3x4x6xf32>
}

// -----

func.func @f(%x: tensor<1x3x5x7xf32>, %g: tensor<1x4x6x2xf32>) -> tensor<1x3x4x6xf32> {
  // CHECK: relay.image.grid_sample: grid must be [N, 2, ?, ?] for NCHW data, got [1, 4, 6, 2]
  %r = relay.image.grid_sample %x, %g : (tensor<1x3x5x7xf32>, tensor<1x4x6x2xf32>) -> tensor<1x3x4x6xf32>
  func.return %r : tensor<1x3x4x6xf32>
}

// -----

func.func @f(%x: tensor<2x3x5x7xf32>, %g: tensor<1x2x4x6xf32>) -> tensor<2x3x4x6xf32> {
  // CHECK: relay.image.grid_sample: data and grid must have one batch size, got 2 and 1
  %r = relay.image.grid_sample %x, %g : (tensor<2x3x5x7xf32>, tensor<1x2x4x6xf32>) -> tensor<2x3x4x6xf32>
  func.return %r : tensor<2x3x4x6xf32>
}

// -----

func.func @f(%x: tensor<1x3x5x7xf32>, %g: tensor<1x2x4x6xf32>) -> tensor<1x3x4x6xf32> {
  // CHECK: relay.image.grid_sample: unknown method "area" (one of bilinear, nearest, bicubic)
  %r = relay.image.grid_sample %x, %g {method = "area"} : (tensor<1x3x5x7xf32>, tensor<1x2x4x6xf32>) -> tensor<1x3x4x6xf32>
  func.return %r : tensor<1x3x4x6xf32>
}

// -----

func.func @f(%x: tensor<1x3x5x7xf32>, %g: tensor<1x2x4x6xf32>) -> tensor<1x3x4x6xf32> {
  // CHECK: relay.image.grid_sample: unknown padding_mode "wrap" (one of zeros, border, reflection)
  %r = relay.image.grid_sample %x, %g {padding_mode = "wrap"} : (tensor<1x3x5x7xf32>, tensor<1x2x4x6xf32>) -> tensor<1x3x4x6xf32>
  func.return %r : tensor<1x3x4x6xf32>
}

// -----

func.func @f(%x: tensor<1x3x2x5x7xf32>, %g: tensor<1x3x1x4x6xf32>) -> tensor<1x3x1x4x6xf32> {
  // CHECK: relay.image.grid_sample: bicubic sampling needs NCHW data
  %r = relay.image.grid_sample %x, %g {method = "bicubic", layout = "NCDHW"} : (tensor<1x3x2x5x7xf32>, tensor<1x3x1x4x6xf32>) -> tensor<1x3x1x4x6xf32>
  func.return %r : tensor<1x3x1x4x6xf32>
}

// -----

func.func @f(%x: tensor<1x3x5x7xf32>, %g: tensor<1x2x4x6xf32>) -> tensor<1x3x4x6xf32> {
  // CHECK: relay.image.grid_sample: NCDHW data must have rank 5, got tensor<1x3x5x7xf32>
  %r = relay.image.grid_sample %x, %g {layout = "NCDHW"} : (tensor<1x3x5x7xf32>, tensor<1x2x4x6xf32>) -> tensor<1x3x4x6xf32>
  func.return %r : tensor<1x3x4x6xf32>
}

// -----

func.func @f(%x: tensor<1x3x0x7xf32>, %g: tensor<1x2x4x6xf32>) -> tensor<1x3x4x6xf32> {
  // CHECK: relay.image.grid_sample: data has an empty spatial axis: tensor<1x3x0x7xf32>
  %r = relay.image.grid_sample %x, %g : (tensor<1x3x0x7xf32>, tensor<1x2x4x6xf32>) -> tensor<1x3x4x6xf32>
  func.return %r : tensor<1x3x4x6xf32>
}

// -----

func.func @f(%x: tensor<1x3x5x7xf32>, %g: tensor<1x2x4x6xf32>) -> tensor<1x3x4x5xf32> {
  // CHECK: relay.image.grid_sample: result #0 has type tensor<1x3x4x5xf32> but the type relation
  %r = relay.image.grid_sample %x, %g : (tensor<1x3x5x7xf32>, tensor<1x2x4x6xf32>) -> tensor<1x3x4x5xf32>
  func.return %r : tensor<1x3x4x5xf32>
}
