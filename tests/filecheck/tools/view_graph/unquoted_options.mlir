// Option values need no quotes when they hold no space, comma or brace: a path
// (view-graph{path=out/g.dot}), a layout list entry (nn.conv2d=NHWC). Values that do
// hold one fail with one line saying where and how to quote.
// RUN: rm -rf %t && mkdir -p %t/out && cd %t
// RUN: xrelay-opt %s -p 'view-graph{path=out/g.dot func=main}' -o /dev/null
// RUN: filecheck %s --input-file %t/out/g.dot --check-prefix=DOT
// RUN: xrelay-opt %s -p 'view-graph{path=%t/out/abs.dot}' -o /dev/null
// RUN: filecheck %s --input-file %t/out/abs.dot --check-prefix=DOT
// RUN: xrelay-opt %s -p 'convert-layout{desired-layouts=nn.max_pool2d=NHWC}' | filecheck %s --check-prefix=LAYOUT
// RUN: not xrelay-opt %s -p 'view-graph{path=out/g dot}' 2>&1 | filecheck %s --check-prefix=SPACE
// RUN: not xrelay-opt %s -p 'view-graph{path=out/g.dot' 2>&1 | filecheck %s --check-prefix=OPEN
// RUN: not xrelay-opt %s -p 'view-graph{path=a}b}' 2>&1 | filecheck %s --check-prefix=BRACE

// DOT: digraph
// DOT: nn.relu
// LAYOUT: relay.layout_transform
// SPACE: xrelay-opt: error: invalid options for pass 'view-graph': {{.*}}'dot' has no value: quote a value that holds spaces
// OPEN: xrelay-opt: error: invalid pass pipeline: column {{[0-9]+}}: {{.*}}; quote option values that hold spaces, commas or braces: -p 'view-graph{path="my dir/g.dot"}'
// BRACE: xrelay-opt: error: invalid pass pipeline: column 19: {{.*}}; quote option values

func.func @main(%x: tensor<1x3x4x4xf32>) -> tensor<1x3x2x2xf32> {
  %0 = relay.nn.relu %x : (tensor<1x3x4x4xf32>) -> tensor<1x3x4x4xf32>
  %1 = relay.nn.max_pool2d %0 {pool_size = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<1x3x4x4xf32>) -> tensor<1x3x2x2xf32>
  func.return %1 : tensor<1x3x2x2xf32>
}
