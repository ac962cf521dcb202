// RUN: xrelay-opt %s --split-input-file --verify-diagnostics | filecheck %s

func.func @f(%x: tensor<1x3x4x5xf32>) -> tensor<1x3x8x8xf32> {
  // CHECK: relay.image.resize2d: method 'cubic' is not supported (nearest_neighbor or linear)
  %r = relay.image.resize2d %x {size = array<i64: 8, 8>, method = "cubic"} : (tensor<1x3x4x5xf32>) -> tensor<1x3x8x8xf32>
  func.return %r : tensor<1x3x8x8xf32>
}

// -----

func.func @f(%x: tensor<1x3x4x5xi8>) -> tensor<1x3x8x8xi8> {
  // CHECK: relay.image.resize2d: linear resizing needs float data, got tensor<1x3x4x5xi8>
  %r = relay.image.resize2d %x {size = array<i64: 8, 8>} : (tensor<1x3x4x5xi8>) -> tensor<1x3x8x8xi8>
  func.return %r : tensor<1x3x8x8xi8>
}

// -----

func.func @f(%x: tensor<1x3x4x5x2xf32>) -> tensor<1x3x4x5x2xf32> {
  // CHECK: relay.image.resize2d: layout 'NCHW2h' must have an unsplit H axis
  %r = relay.image.resize2d %x {size = array<i64: 4, 5>, layout = "NCHW2h"} : (tensor<1x3x4x5x2xf32>) -> tensor<1x3x4x5x2xf32>
  func.return %r : tensor<1x3x4x5x2xf32>
}

// -----

func.func @f(%x: tensor<1x3x4x5xf32>) -> tensor<1x3x8x8xf32> {
  // CHECK: relay.image.resize2d: unknown coordinate_transformation_mode 'middle'
  %r = relay.image.resize2d %x {size = array<i64: 8, 8>, coordinate_transformation_mode = "middle"} : (tensor<1x3x4x5xf32>) -> tensor<1x3x8x8xf32>
  func.return %r : tensor<1x3x8x8xf32>
}

// -----

func.func @f(%x: tensor<1x3x4x5xf32>) -> tensor<1x3x8x10xf32> {
  // CHECK: relay.nn.upsampling: scale_h and scale_w must be positive, got -2.0 and 2.0
  %r = relay.nn.upsampling %x {scale_h = -2.000000e+00 : f64, scale_w = 2.000000e+00 : f64} : (tensor<1x3x4x5xf32>) -> tensor<1x3x8x10xf32>
  func.return %r : tensor<1x3x8x10xf32>
}

// -----

func.func @f(%x: tensor<1x3x4x5x2xf32>) -> tensor<1x3x8x8x2xf32> {
  // CHECK: relay.image.resize2d: layout 'NCHW' has 4 axes but the data has rank 5
  %r = relay.image.resize2d %x {size = array<i64: 8, 8>} : (tensor<1x3x4x5x2xf32>) -> tensor<1x3x8x8x2xf32>
  func.return %r : tensor<1x3x8x8x2xf32>
}
