// With Graphviz installed, .svg and .png paths are rendered pictures.
// REQUIRES: dot
// RUN: rm -rf %t && mkdir -p %t
// RUN: xrelay-opt %s -p 'fuse-ops,view-graph{path="%t/g.svg"}' -o /dev/null
// RUN: filecheck %s < %t/g.svg
// RUN: xrelay-opt %s -p 'view-graph{path="%t/g.png"}' -o /dev/null
// RUN: head -c 4 %t/g.png | tail -c 3 | filecheck %s --check-prefix=PNG

// CHECK: <svg
// CHECK: fused_nn_conv2d_nn_relu
// CHECK: nn.conv2d
// PNG: PNG

func.func @main(%x: tensor<1x3x8x8xf32>) -> tensor<1x4x8x8xf32> {
  %w = relay.constant dense<0.5> : tensor<4x3x3x3xf32>
  %0 = relay.nn.conv2d %x, %w {padding = array<i64: 1, 1, 1, 1>, channels = 4 : i64, kernel_size = array<i64: 3, 3>} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x8x8xf32>
  %1 = relay.nn.relu %0 : (tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  func.return %1 : tensor<1x4x8x8xf32>
}
