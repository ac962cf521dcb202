// RUN: xrelay-opt %s -p "relay-optimize{opt-level=3}" | filecheck %s --check-prefix=O3
// RUN: xrelay-opt %s -p "relay-optimize{opt-level=1}" | filecheck %s --check-prefix=O1
// RUN: xrelay-opt %s -p "relay-optimize{opt-level=0}" | filecheck %s --check-prefix=O0
// RUN: xrelay-opt %s -p relay-optimize | filecheck %s --check-prefix=O2

// A ResNet-style conv + batch_norm + relu with constant weights.
//
// opt_level 3: no batch_norm, the scale is folded into the conv weights (no
// multiply left), AlterOpLayout blocks the conv for the CPU (the 3 input channels
// as one block, NCHW3c, as Relay's x86 fallback does) and the conv is fused with
// its bias add and relu.
// O3-NOT:     relay.nn.batch_norm
// O3-NOT:     relay.multiply
// O3:         func.func private @[[K:[a-zA-Z0-9_]+]](%{{[a-z0-9_]+}}: tensor<1x1x8x8x3xf32>, {{.*}}) -> tensor<1x1x8x8x4xf32> attributes {relay.primitive} {
// O3-NEXT:      relay.nn.contrib_conv2d_NCHWc {{.*}}data_layout = "NCHW3c", out_layout = "NCHW4c"
// O3-NEXT:      relay.add
// O3-NEXT:      relay.nn.relu
// O3-NEXT:      func.return
// O3-NOT:     relay.nn.batch_norm
// O3-NOT:     relay.multiply
// O3-NOT:     func.func @unused
// O3-NOT:     func.func @helper
// O3-LABEL:   func.func @main
// O3:           func.call @[[K]](
// O3-NOT:       func.call @helper
//
// opt_level 1: SimplifyInference but no constant folding; the unused function is
// removed, the inline one is inlined and deleted.
// O1-NOT:     relay.nn.batch_norm
// O1-NOT:     func.func @unused
// O1-NOT:     func.func @helper
// O1:         relay.{{r?}}sqrt
//
// opt_level 0: SimplifyInference (opt 0) runs, RemoveUnusedFunctions (opt 1) does
// not; Inline runs at every level.
// O0-NOT:     relay.nn.batch_norm
// O0-NOT:     func.func @helper
// O0:         func.func @unused
//
// opt_level 2 (the default): the batch_norm statistics fold into constants.
// O2-NOT:     relay.nn.batch_norm
// O2-NOT:     relay.sqrt
// O2-NOT:     relay.rsqrt
// O2-NOT:     func.func @helper
// O2:         func.func @main
func.func @helper(%y: tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32> attributes {relay.inline} {
  %0 = relay.negative %y : (tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  func.return %0 : tensor<1x4x8x8xf32>
}
func.func @main(%x: tensor<1x3x8x8xf32>) -> tensor<1x4x8x8xf32> {
  %w = relay.constant dense<0.5> : tensor<4x3x3x3xf32>
  %g = relay.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
  %b = relay.constant dense<[0.1, 0.2, 0.3, 0.4]> : tensor<4xf32>
  %m = relay.constant dense<[0.0, 1.0, 0.0, 1.0]> : tensor<4xf32>
  %v = relay.constant dense<[1.0, 1.0, 2.0, 2.0]> : tensor<4xf32>
  %0 = relay.nn.conv2d %x, %w {padding = array<i64: 1, 1, 1, 1>, channels = 4 : i64, kernel_size = array<i64: 3, 3>} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x8x8xf32>
  %1, %2, %3 = relay.nn.batch_norm %0, %g, %b, %m, %v : (tensor<1x4x8x8xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<1x4x8x8xf32>, tensor<4xf32>, tensor<4xf32>)
  %4 = relay.nn.relu %1 : (tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  %5 = func.call @helper(%4) : (tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  func.return %5 : tensor<1x4x8x8xf32>
}
func.func @unused(%x: tensor<2xf32>) -> tensor<2xf32> {
  func.return %x : tensor<2xf32>
}
