// RUN: XRELAY_ROUNDTRIP
// RUN: XRELAY_GENERIC_ROUNDTRIP

// CHECK-LABEL: func.func @grid_samples
// CHECK-GENERIC-LABEL: "func.func"() <{sym_name = "grid_samples"
func.func @grid_samples(%x: tensor<2x3x5x7xf32>, %g: tensor<2x2x4x6xf32>, %v: tensor<1x2x3x4x5xf64>, %h: tensor<1x3x2x3x4xf64>) -> tensor<2x3x4x6xf32> {
  // CHECK-NEXT: %0 = relay.image.grid_sample %x, %g : (tensor<2x3x5x7xf32>, tensor<2x2x4x6xf32>) -> tensor<2x3x4x6xf32>
  // CHECK-GENERIC: %0 = "relay.image.grid_sample"(
  %0 = relay.image.grid_sample %x, %g : (tensor<2x3x5x7xf32>, tensor<2x2x4x6xf32>) -> tensor<2x3x4x6xf32>
  // CHECK-NEXT: %1 = relay.image.grid_sample %x, %g {method = "bicubic", padding_mode = "reflection", align_corners = false} : (tensor<2x3x5x7xf32>, tensor<2x2x4x6xf32>) -> tensor<2x3x4x6xf32>
  // CHECK-GENERIC: %1 = "relay.image.grid_sample"(
  %1 = relay.image.grid_sample %x, %g {method = "bicubic", padding_mode = "reflection", align_corners = false} : (tensor<2x3x5x7xf32>, tensor<2x2x4x6xf32>) -> tensor<2x3x4x6xf32>
  // CHECK-NEXT: %2 = relay.image.grid_sample %v, %h {method = "nearest", layout = "NCDHW", padding_mode = "border"} : (tensor<1x2x3x4x5xf64>, tensor<1x3x2x3x4xf64>) -> tensor<1x2x2x3x4xf64>
  // CHECK-GENERIC: %2 = "relay.image.grid_sample"(
  %2 = relay.image.grid_sample %v, %h {method = "nearest", layout = "NCDHW", padding_mode = "border"} : (tensor<1x2x3x4x5xf64>, tensor<1x3x2x3x4xf64>) -> tensor<1x2x2x3x4xf64>
  func.return %0 : tensor<2x3x4x6xf32>
}
