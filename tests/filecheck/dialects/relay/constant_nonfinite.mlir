// Non-finite floats in small constants print as exact hex bytes in the custom format.
// (Only the custom format: xDSL 0.74's generic printer writes them as hex integers inside
// a list, which its parser reads back as numbers.)
// RUN: xrelay-opt %s | xrelay-opt | filecheck %s

// CHECK: %0 = relay.constant dense<"0x0000C07F000080FF"> : tensor<2xf32>
func.func @f() -> tensor<2xf32> {
  %0 = relay.constant dense<"0x0000C07F000080FF"> : tensor<2xf32>
  func.return %0 : tensor<2xf32>
}

// bfloat16 constants: decimal values and non-finite bytes (NaN, -inf) read back exactly.
// CHECK: %0 = relay.constant dense<"0xC07F80FF"> : tensor<2xbf16>
// CHECK: %1 = relay.constant dense<[1.500000e+00, -7.812500e-03]> : tensor<2xbf16>
func.func @g() -> (tensor<2xbf16>, tensor<2xbf16>) {
  %0 = relay.constant dense<"0xC07F80FF"> : tensor<2xbf16>
  %1 = relay.constant dense<[1.5, -0.0078125]> : tensor<2xbf16>
  func.return %0, %1 : tensor<2xbf16>, tensor<2xbf16>
}
