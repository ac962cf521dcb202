// RUN: xrelay-opt %s --split-input-file --verify-diagnostics | filecheck %s

func.func @f(%x: tensor<1x4x6x6xf32>, %o: tensor<1x9x6x6xf32>, %w: tensor<8x4x3x3xf32>) -> tensor<1x8x6x6xf32> {
  // CHECK: relay.nn.deformable_conv2d: offset must have shape [1, 18, 6, 6], got [1, 9, 6, 6]
  %0 = relay.nn.deformable_conv2d %x, %o, %w {padding = array<i64: 1, 1, 1, 1>} : (tensor<1x4x6x6xf32>, tensor<1x9x6x6xf32>, tensor<8x4x3x3xf32>) -> tensor<1x8x6x6xf32>
  func.return %0 : tensor<1x8x6x6xf32>
}

// -----

func.func @f(%x: tensor<1x4x6x6xf32>, %o: tensor<1x54x4x4xf32>, %w: tensor<8x4x3x3xf32>) -> tensor<1x8x4x4xf32> {
  // CHECK: relay.nn.deformable_conv2d: the 4 channels are not divisible by deformable_groups=3
  %0 = relay.nn.deformable_conv2d %x, %o, %w {deformable_groups = 3 : i64} : (tensor<1x4x6x6xf32>, tensor<1x54x4x4xf32>, tensor<8x4x3x3xf32>) -> tensor<1x8x4x4xf32>
  func.return %0 : tensor<1x8x4x4xf32>
}

// -----

func.func @f(%x: tensor<1x4x6x6xf32>, %o: tensor<1x18x4x4xf32>, %w: tensor<8x4x3x3xf32>) -> tensor<1x8x4x4xf32> {
  // CHECK: relay.nn.deformable_conv2d: data_layout 'NCHW4c' is not supported (expected a permutation of 'NCHW')
  %0 = relay.nn.deformable_conv2d %x, %o, %w {data_layout = "NCHW4c"} : (tensor<1x4x6x6xf32>, tensor<1x18x4x4xf32>, tensor<8x4x3x3xf32>) -> tensor<1x8x4x4xf32>
  func.return %0 : tensor<1x8x4x4xf32>
}
