// RUN: XRELAY_ROUNDTRIP
// RUN: XRELAY_GENERIC_ROUNDTRIP

// slice_like: the leading part of the data on the listed axes (all of shape_like's
// axes without them); shape_like's dtype may differ.
// CHECK-LABEL: func.func @slices
// CHECK-GENERIC-LABEL: "func.func"() <{sym_name = "slices"
func.func @slices(%x: tensor<2x5x4xf32>, %l: tensor<1x3xi8>) -> tensor<1x3x4xf32> {
  // CHECK-NEXT: %0 = relay.slice_like %x, %l {axes = array<i64: 0, -2>} : (tensor<2x5x4xf32>, tensor<1x3xi8>) -> tensor<1x3x4xf32>
  // CHECK-GENERIC: %0 = "relay.slice_like"(%x, %l) <{axes = array<i64: 0, -2>}>
  %0 = relay.slice_like %x, %l {axes = array<i64: 0, -2>} : (tensor<2x5x4xf32>, tensor<1x3xi8>) -> tensor<1x3x4xf32>
  // CHECK-NEXT: %1 = relay.slice_like %x, %l : (tensor<2x5x4xf32>, tensor<1x3xi8>) -> tensor<1x3x4xf32>
  %1 = relay.slice_like %x, %l : (tensor<2x5x4xf32>, tensor<1x3xi8>) -> tensor<1x3x4xf32>
  func.return %0 : tensor<1x3x4xf32>
}
