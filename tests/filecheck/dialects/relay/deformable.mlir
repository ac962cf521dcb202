// RUN: XRELAY_ROUNDTRIP
// RUN: XRELAY_GENERIC_ROUNDTRIP

// nn.deformable_conv2d: the offset is [N, 2 * deformable_groups * KH * KW, OH, OW] in
// the data's layout.
// CHECK-LABEL: func.func @deformable
// CHECK-GENERIC-LABEL: "func.func"() <{sym_name = "deformable"
func.func @deformable(%x: tensor<1x4x6x6xf32>, %o: tensor<1x36x6x6xf32>, %w: tensor<8x2x3x3xf32>, %xh: tensor<1x6x6x4xf32>, %oh: tensor<1x6x6x18xf32>, %wh: tensor<3x3x4x8xf32>) -> tensor<1x8x6x6xf32> {
  // CHECK-NEXT: %0 = relay.nn.deformable_conv2d %x, %o, %w {padding = array<i64: 1, 1, 1, 1>, deformable_groups = 2 : i64, groups = 2 : i64} : (tensor<1x4x6x6xf32>, tensor<1x36x6x6xf32>, tensor<8x2x3x3xf32>) -> tensor<1x8x6x6xf32>
  // CHECK-GENERIC: %0 = "relay.nn.deformable_conv2d"(%x, %o, %w)
  %0 = relay.nn.deformable_conv2d %x, %o, %w {padding = array<i64: 1, 1, 1, 1>, deformable_groups = 2 : i64, groups = 2 : i64} : (tensor<1x4x6x6xf32>, tensor<1x36x6x6xf32>, tensor<8x2x3x3xf32>) -> tensor<1x8x6x6xf32>
  // CHECK-NEXT: %1 = relay.nn.deformable_conv2d %xh, %oh, %wh {padding = array<i64: 1, 1, 1, 1>, data_layout = "NHWC", kernel_layout = "HWIO"} : (tensor<1x6x6x4xf32>, tensor<1x6x6x18xf32>, tensor<3x3x4x8xf32>) -> tensor<1x6x6x8xf32>
  %1 = relay.nn.deformable_conv2d %xh, %oh, %wh {padding = array<i64: 1, 1, 1, 1>, data_layout = "NHWC", kernel_layout = "HWIO"} : (tensor<1x6x6x4xf32>, tensor<1x6x6x18xf32>, tensor<3x3x4x8xf32>) -> tensor<1x6x6x8xf32>
  func.return %0 : tensor<1x8x6x6xf32>
}
