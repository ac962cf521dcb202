// RUN: XRELAY_ROUNDTRIP
// RUN: XRELAY_GENERIC_ROUNDTRIP

// CHECK-LABEL: func.func @annotations
// CHECK-GENERIC-LABEL: "func.func"() <{sym_name = "annotations"
func.func @annotations(%a: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // CHECK-NEXT: %0 = relay.annotation.stop_fusion %a : (tensor<2x3xf32>) -> tensor<2x3xf32>
  // CHECK-GENERIC: %0 = "relay.annotation.stop_fusion"(
  %0 = relay.annotation.stop_fusion %a : (tensor<2x3xf32>) -> tensor<2x3xf32>
  func.return %0 : tensor<2x3xf32>
}
