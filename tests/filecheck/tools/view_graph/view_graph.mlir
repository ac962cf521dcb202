// The dataflow graph as DOT: ops with their non-default attributes, constants folded
// into their users, shapes on edges, fused kernels (relay.primitive) as clusters.
// RUN: xrelay-opt %s -p view-graph -o /dev/null 2>&1 | filecheck %s --check-prefix=PLAIN
// RUN: rm -rf %t && mkdir -p %t
// RUN: xrelay-opt %s -p 'fuse-ops,view-graph{path="%t/g.dot"}' | filecheck %s --check-prefix=IR
// RUN: filecheck %s --check-prefix=FUSED < %t/g.dot
// RUN: echo '{"fused_nn_conv2d_nn_bias_add_nn_relu": 3.0, "fused_nn_max_pool2d_add": 1.5}' > %t/times.json
// RUN: xrelay-opt %s -p 'fuse-ops,view-graph{times="%t/times.json"}' -o /dev/null 2>&1 | filecheck %s --check-prefix=TIMES

// PLAIN: digraph "main" {
// PLAIN: [[X:n[0-9]+]] [label="%x\n1x3x8x8xf32", shape=ellipse
// PLAIN: [[CONV:n[0-9]+]] [label="nn.conv2d\nchannels=4\nkernel_size=3,3\npadding=1,1,1,1\nw: 4x3x3x3xf32"];
// PLAIN: [[BIAS:n[0-9]+]] [label="nn.bias_add\nb: 4xf32"];
// PLAIN: [[RELU:n[0-9]+]] [label="nn.relu"];
// PLAIN: [[POOL:n[0-9]+]] [label="nn.max_pool2d\npadding=1,1,1,1\npool_size=3,3"];
// PLAIN: [[ADD:n[0-9]+]] [label="add"];
// PLAIN: [[RET:n[0-9]+]] [label="return", shape=ellipse
// PLAIN-NOT: constant
// PLAIN-NOT: cluster
// PLAIN: [[X]] -> [[CONV]] [label="1x3x8x8xf32"];
// PLAIN: [[CONV]] -> [[BIAS]] [label="1x4x8x8xf32"];
// PLAIN: [[BIAS]] -> [[RELU]] [label="1x4x8x8xf32"];
// PLAIN: [[RELU]] -> [[POOL]] [label="1x4x8x8xf32"];
// PLAIN: [[POOL]] -> [[ADD]] [label="1x4x8x8xf32"];
// PLAIN: [[RELU]] -> [[ADD]] [label="1x4x8x8xf32"];
// PLAIN: [[ADD]] -> [[RET]] [label="1x4x8x8xf32"];
// PLAIN-NEXT: }

// The pass leaves the IR alone.
// IR: func.call @fused_nn_conv2d_nn_bias_add_nn_relu

// FUSED: [[X:n[0-9]+]] [label="%x\n1x3x8x8xf32", shape=ellipse
// FUSED: subgraph cluster_{{[0-9]+}} {
// FUSED-NEXT: label="fused_nn_conv2d_nn_bias_add_nn_relu";
// FUSED: [[CONV:n[0-9]+]] [label="nn.conv2d
// FUSED: [[RELU:n[0-9]+]] [label="nn.relu"];
// FUSED-NEXT: }
// FUSED-NEXT: subgraph cluster_{{[0-9]+}} {
// FUSED-NEXT: label="fused_nn_max_pool2d_add";
// FUSED: [[POOL:n[0-9]+]] [label="nn.max_pool2d
// FUSED: [[ADD:n[0-9]+]] [label="add"];
// FUSED-NEXT: }
// The kernels' parameters stand for the call's operands: edges cross the clusters.
// FUSED: [[X]] -> [[CONV]] [label="1x3x8x8xf32"];
// FUSED: [[RELU]] -> [[POOL]] [label="1x4x8x8xf32"];
// FUSED: [[RELU]] -> [[ADD]] [label="1x4x8x8xf32"];

// Kernel times colour the clusters (slowest: salmon red) and label them.
// TIMES: label="fused_nn_conv2d_nn_bias_add_nn_relu\n3.000 ms";
// TIMES-NEXT: fillcolor="0.000 0.650 1.000";
// TIMES: label="fused_nn_max_pool2d_add\n1.500 ms";
// TIMES-NEXT: fillcolor="0.083 0.400 1.000";

func.func @main(%x: tensor<1x3x8x8xf32>) -> tensor<1x4x8x8xf32> {
  %w = relay.constant dense<0.5> : tensor<4x3x3x3xf32>
  %b = relay.constant dense<0.1> : tensor<4xf32>
  %0 = relay.nn.conv2d %x, %w {padding = array<i64: 1, 1, 1, 1>, channels = 4 : i64, kernel_size = array<i64: 3, 3>} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x8x8xf32>
  %1 = relay.nn.bias_add %0, %b : (tensor<1x4x8x8xf32>, tensor<4xf32>) -> tensor<1x4x8x8xf32>
  %2 = relay.nn.relu %1 : (tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  %3 = relay.nn.max_pool2d %2 {pool_size = array<i64: 3, 3>, padding = array<i64: 1, 1, 1, 1>} : (tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  %4 = relay.add %3, %2 : (tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  func.return %4 : tensor<1x4x8x8xf32>
}
