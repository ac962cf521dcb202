// Malformed desired layouts are reported as one-line errors.
// RUN: not xrelay-opt %s -p 'convert-layout{desired-layouts="nn.conv2d=NHWC"}' 2>&1 | filecheck %s --check-prefix=COUNT
// RUN: not xrelay-opt %s -p 'convert-layout{desired-layouts="nn.dense=NC:NC"}' 2>&1 | filecheck %s --check-prefix=NOHOOK
// RUN: not xrelay-opt %s -p 'convert-layout{desired-layouts="nn.conv2d"}' 2>&1 | filecheck %s --check-prefix=SYNTAX
// RUN: not xrelay-opt %s -p 'convert-layout{desired-layouts="nn.conv2d=default:OIHW"}' 2>&1 | filecheck %s --check-prefix=DEFAULT
// RUN: not xrelay-opt %s -p 'convert-layout{desired-layouts="nn.conv3d=NDHWC:default"}' 2>&1 | filecheck %s --check-prefix=UNKNOWN
// RUN: not xrelay-opt %s -p 'convert-layout{desired-layouts="nn.conv2d=NHWC:OHWI2x"}' 2>&1 | filecheck %s --check-prefix=PARSE
// An op the layouts cannot apply to is reported at the op:
// RUN: xrelay-opt %s -p 'convert-layout{desired-layouts="nn.conv2d=NCWH:default"}' --verify-diagnostics | filecheck %s --check-prefix=OP

// COUNT: error: relay.nn.conv2d takes 2 desired layout(s) (data, kernel), got 1: ['NHWC']
// NOHOOK: error: relay.nn.dense has no layout conversion; ops that convert: {{.*}}relay.nn.conv2d, relay.nn.conv2d_transpose{{.*}}relay.nn.max_pool2d
// SYNTAX: error: desired-layouts entry 'nn.conv2d' is not op=layout[:layout...] (e.g. nn.conv2d=NHWC:default)
// DEFAULT: error: the desired data layout of relay.nn.conv2d cannot be 'default'
// UNKNOWN: error: desired layouts name an unknown op 'nn.conv3d'
// PARSE: error: desired kernel layout of relay.nn.conv2d: invalid layout 'OHWI2x': sub-axis '2x' has no primal axis 'X'
// OP: relay.nn.conv2d has no default kernel layout for data layout 'NCWH'; give the kernel layout

func.func @main(%x: tensor<1x8x4x4xf32>, %w: tensor<8x8x1x1xf32>) -> tensor<1x8x4x4xf32> {
  %0 = relay.nn.conv2d %x, %w : (tensor<1x8x4x4xf32>, tensor<8x8x1x1xf32>) -> tensor<1x8x4x4xf32>
  func.return %0 : tensor<1x8x4x4xf32>
}
