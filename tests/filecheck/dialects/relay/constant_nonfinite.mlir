// Non-finite floats in small constants print as exact hex bytes in the custom format.
// (Only the custom format: xDSL 0.74's generic printer writes them as hex integers inside
// a list, which its parser reads back as numbers.)
// RUN: xrelay-opt %s | xrelay-opt | filecheck %s

// CHECK: %0 = relay.constant dense<"0x0000C07F000080FF"> : tensor<2xf32>
func.func @f() -> tensor<2xf32> {
  %0 = relay.constant dense<"0x0000C07F000080FF"> : tensor<2xf32>
  func.return %0 : tensor<2xf32>
}
