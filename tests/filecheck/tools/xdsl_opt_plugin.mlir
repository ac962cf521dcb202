// The xdsl.universe plugin: stock xdsl-opt knows the relay dialect and every xrelay
// pass (by pipeline name, with its options), and gives the same result as xrelay-opt.

// RUN: xrelay-opt %s -p 'infer-type,fold-constant,fuse-ops{fuse-opt-level=1},canonicalize' > %t.xrelay
// RUN: xdsl-opt %s -p 'infer-type,fold-constant,fuse-ops{fuse-opt-level=1},canonicalize' > %t.xdsl
// RUN: diff %t.xrelay %t.xdsl
// RUN: filecheck %s --input-file %t.xdsl

// CHECK:      func.func private @fused_multiply_add_nn_relu(%p0: tensor<2x3xf32>, %p1: tensor<3xf32>) -> tensor<2x3xf32> attributes {relay.primitive}
// CHECK:      func.func @main(%x: tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT:   %{{.*}} = relay.constant dense<[2.000000e+00, 4.000000e+00, 6.000000e+00]> : tensor<3xf32>
// CHECK-NEXT:   %{{.*}} = func.call @fused_multiply_add_nn_relu(%x, %{{.*}})

// xdsl-opt lists them among its passes (on one line: argparse wraps names at hyphens):
// RUN: env COLUMNS=10000 xdsl-opt --help | filecheck %s --check-prefix=HELP
// HELP: infer-type
// HELP: relay-optimize

func.func @main(%x: tensor<2x3xf32>) -> tensor<*xf32> {
  %a = relay.constant dense<[1.0, 2.0, 3.0]> : tensor<3xf32>
  %w = relay.add %a, %a : (tensor<3xf32>, tensor<3xf32>) -> tensor<*xf32>
  %0 = relay.multiply %x, %w : (tensor<2x3xf32>, tensor<*xf32>) -> tensor<*xf32>
  %1 = relay.add %0, %w : (tensor<*xf32>, tensor<*xf32>) -> tensor<*xf32>
  %2 = relay.nn.relu %1 : (tensor<*xf32>) -> tensor<*xf32>
  func.return %2 : tensor<*xf32>
}
