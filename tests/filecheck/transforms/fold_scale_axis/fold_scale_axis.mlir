// RUN: xrelay-opt %s -p backward-fold-scale-axis --split-input-file | filecheck %s --check-prefix=BWD
// RUN: xrelay-opt %s -p forward-fold-scale-axis --split-input-file | filecheck %s --check-prefix=FWD
// RUN: xrelay-opt %s -p fold-scale-axis --opt-level 3 --split-input-file | filecheck %s --check-prefix=ALL

// Backward: conv -> bias_add -> relu -> multiply by a positive per-channel scale.
// BWD-LABEL: func.func @bwd_simple
// BWD:         %[[S:.*]] = relay.squeeze %s {axis = array<i64: 1, 2>} : (tensor<2x1x1xf32>) -> tensor<2xf32>
// BWD-NEXT:    %[[E:.*]] = relay.expand_dims %[[S]] {axis = 1 : i64, num_newaxis = 3 : i64} : (tensor<2xf32>) -> tensor<2x1x1x1xf32>
// BWD-NEXT:    %[[W:.*]] = relay.multiply %w, %[[E]] : (tensor<2x3x1x1xf32>, tensor<2x1x1x1xf32>) -> tensor<2x3x1x1xf32>
// BWD-NEXT:    %[[C:.*]] = relay.nn.conv2d %x, %[[W]]
// BWD-NEXT:    %[[B:.*]] = relay.multiply %b, %[[S]] : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
// BWD-NEXT:    %[[A:.*]] = relay.nn.bias_add %[[C]], %[[B]]
// BWD-NEXT:    %[[R:.*]] = relay.nn.relu %[[A]]
// BWD-NEXT:    func.return %[[R]]
// FWD-LABEL: func.func @bwd_simple
// FWD:         relay.multiply %{{.*}}, %s
// ALL-LABEL: func.func @bwd_simple
// ALL-NEXT:    %[[W:.*]] = relay.constant dense<{{\[}}{{\[}}{{\[}}[2.000000e+00]], {{\[}}[4.000000e+00]], {{\[}}[6.000000e+00]]], {{\[}}{{\[}}[1.500000e+00]], {{\[}}[1.500000e+00]], {{\[}}[1.500000e+00]]]]> : tensor<2x3x1x1xf32>
// ALL-NEXT:    %[[C:.*]] = relay.nn.conv2d %x, %[[W]]
// ALL-NEXT:    %[[B:.*]] = relay.constant dense<[2.000000e+00, -3.000000e+00]> : tensor<2xf32>
// ALL-NEXT:    %[[A:.*]] = relay.nn.bias_add %[[C]], %[[B]]
// ALL-NEXT:    %[[R:.*]] = relay.nn.relu %[[A]]
// ALL-NEXT:    func.return %[[R]]
func.func @bwd_simple(%x: tensor<1x3x4x4xf32>) -> tensor<1x2x4x4xf32> {
  %w = relay.constant dense<[[[[1.0]], [[2.0]], [[3.0]]], [[[0.5]], [[0.5]], [[0.5]]]]> : tensor<2x3x1x1xf32>
  %b = relay.constant dense<[1.0, -1.0]> : tensor<2xf32>
  %s = relay.constant dense<[[[2.0]], [[3.0]]]> : tensor<2x1x1xf32>
  %0 = relay.nn.conv2d %x, %w : (tensor<1x3x4x4xf32>, tensor<2x3x1x1xf32>) -> tensor<1x2x4x4xf32>
  %1 = relay.nn.bias_add %0, %b : (tensor<1x2x4x4xf32>, tensor<2xf32>) -> tensor<1x2x4x4xf32>
  %2 = relay.nn.relu %1 : (tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  %3 = relay.multiply %2, %s : (tensor<1x2x4x4xf32>, tensor<2x1x1xf32>) -> tensor<1x2x4x4xf32>
  func.return %3 : tensor<1x2x4x4xf32>
}

// -----

// Forward: multiply by a per-input-channel scale -> relu -> conv (NHWC / HWIO).
// FWD-LABEL: func.func @fwd_simple
// FWD:         %[[R:.*]] = relay.nn.relu %x : (tensor<1x4x4x2xf32>) -> tensor<1x4x4x2xf32>
// FWD-NEXT:    %[[E:.*]] = relay.expand_dims %s {axis = 1 : i64} : (tensor<2xf32>) -> tensor<2x1xf32>
// FWD-NEXT:    %[[W:.*]] = relay.multiply %w, %[[E]] : (tensor<1x1x2x3xf32>, tensor<2x1xf32>) -> tensor<1x1x2x3xf32>
// FWD-NEXT:    %[[C:.*]] = relay.nn.conv2d %[[R]], %[[W]] {data_layout = "NHWC", kernel_layout = "HWIO"}
// FWD-NEXT:    func.return %[[C]]
// BWD-LABEL: func.func @fwd_simple
// BWD:         relay.multiply %x, %s
// ALL-LABEL: func.func @fwd_simple
// ALL-NEXT:    %[[R:.*]] = relay.nn.relu %x
// ALL-NEXT:    %[[W:.*]] = relay.constant dense<{{\[}}{{\[}}{{\[}}[2.000000e+00, 2.000000e+00, 2.000000e+00], [5.000000e-01, 5.000000e-01, 5.000000e-01]]]]> : tensor<1x1x2x3xf32>
// ALL-NEXT:    relay.nn.conv2d %[[R]], %[[W]]
func.func @fwd_simple(%x: tensor<1x4x4x2xf32>) -> tensor<1x4x4x3xf32> {
  %w = relay.constant dense<1.0> : tensor<1x1x2x3xf32>
  %s = relay.constant dense<[2.0, 0.5]> : tensor<2xf32>
  %0 = relay.multiply %x, %s : (tensor<1x4x4x2xf32>, tensor<2xf32>) -> tensor<1x4x4x2xf32>
  %1 = relay.nn.relu %0 : (tensor<1x4x4x2xf32>) -> tensor<1x4x4x2xf32>
  %2 = relay.nn.conv2d %1, %w {data_layout = "NHWC", kernel_layout = "HWIO"} : (tensor<1x4x4x2xf32>, tensor<1x1x2x3xf32>) -> tensor<1x4x4x3xf32>
  func.return %2 : tensor<1x4x4x3xf32>
}

// -----

// Must not fold: the scale crossing the relu has a negative element.
// BWD-LABEL: func.func @bwd_relu_negative_scale
// BWD:         relay.nn.relu
// BWD-NEXT:    relay.multiply
// ALL-LABEL: func.func @bwd_relu_negative_scale
// ALL:         relay.nn.relu
// ALL-NEXT:    relay.multiply
func.func @bwd_relu_negative_scale(%x: tensor<1x3x4x4xf32>, %w: tensor<2x3x1x1xf32>) -> tensor<1x2x4x4xf32> {
  %s = relay.constant dense<[[[2.0]], [[-3.0]]]> : tensor<2x1x1xf32>
  %0 = relay.nn.conv2d %x, %w : (tensor<1x3x4x4xf32>, tensor<2x3x1x1xf32>) -> tensor<1x2x4x4xf32>
  %1 = relay.nn.relu %0 : (tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  %2 = relay.multiply %1, %s : (tensor<1x2x4x4xf32>, tensor<2x1x1xf32>) -> tensor<1x2x4x4xf32>
  func.return %2 : tensor<1x2x4x4xf32>
}

// -----

// Without a relu a negative (or non-constant) scale folds (a non-constant one
// because the weight is more than 32x smaller than the output).
// BWD-LABEL: func.func @bwd_no_relu_any_scale
// BWD:         %[[S:.*]] = relay.squeeze %s
// BWD-NEXT:    %[[E:.*]] = relay.expand_dims %[[S]]
// BWD-NEXT:    %[[W:.*]] = relay.multiply %w, %[[E]]
// BWD-NEXT:    %[[C:.*]] = relay.nn.conv2d %x, %[[W]]
// BWD-NEXT:    func.return %[[C]]
func.func @bwd_no_relu_any_scale(%x: tensor<1x3x16x16xf32>, %w: tensor<2x3x1x1xf32>, %s: tensor<1x2x1x1xf32>) -> tensor<1x2x16x16xf32> {
  %0 = relay.nn.conv2d %x, %w : (tensor<1x3x16x16xf32>, tensor<2x3x1x1xf32>) -> tensor<1x2x16x16xf32>
  %1 = relay.multiply %s, %0 : (tensor<1x2x1x1xf32>, tensor<1x2x16x16xf32>) -> tensor<1x2x16x16xf32>
  func.return %1 : tensor<1x2x16x16xf32>
}

// -----

// Must not fold: the conv output has two uses.
// BWD-LABEL: func.func @bwd_two_consumers
// BWD:         %[[C:.*]] = relay.nn.conv2d %x, %w
// BWD-NEXT:    %[[M:.*]] = relay.multiply %[[C]], %s
// BWD-NEXT:    relay.add %[[M]], %[[C]]
func.func @bwd_two_consumers(%x: tensor<1x3x4x4xf32>, %w: tensor<2x3x1x1xf32>) -> tensor<1x2x4x4xf32> {
  %s = relay.constant dense<[[[2.0]], [[3.0]]]> : tensor<2x1x1xf32>
  %0 = relay.nn.conv2d %x, %w : (tensor<1x3x4x4xf32>, tensor<2x3x1x1xf32>) -> tensor<1x2x4x4xf32>
  %1 = relay.multiply %0, %s : (tensor<1x2x4x4xf32>, tensor<2x1x1xf32>) -> tensor<1x2x4x4xf32>
  %2 = relay.add %1, %0 : (tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  func.return %2 : tensor<1x2x4x4xf32>
}

// -----

// Must not fold: a grouped (not depthwise) conv.
// BWD-LABEL: func.func @bwd_grouped_conv
// BWD:         relay.nn.conv2d %{{.*}}, %w {groups = 2 : i64}
// BWD-NEXT:    relay.multiply
// FWD-LABEL: func.func @bwd_grouped_conv
// FWD:         relay.multiply
// FWD-NEXT:    relay.nn.conv2d
func.func @bwd_grouped_conv(%x: tensor<1x4x4x4xf32>, %w: tensor<4x2x1x1xf32>) -> tensor<1x4x4x4xf32> {
  %s = relay.constant dense<[[[2.0]], [[3.0]], [[4.0]], [[5.0]]]> : tensor<4x1x1xf32>
  %0 = relay.multiply %x, %s : (tensor<1x4x4x4xf32>, tensor<4x1x1xf32>) -> tensor<1x4x4x4xf32>
  %1 = relay.nn.conv2d %0, %w {groups = 2 : i64} : (tensor<1x4x4x4xf32>, tensor<4x2x1x1xf32>) -> tensor<1x4x4x4xf32>
  %2 = relay.multiply %1, %s : (tensor<1x4x4x4xf32>, tensor<4x1x1xf32>) -> tensor<1x4x4x4xf32>
  func.return %2 : tensor<1x4x4x4xf32>
}

// -----

// A depthwise conv folds (the scale goes along O in both directions).
// FWD-LABEL: func.func @depthwise
// FWD:         %[[S:.*]] = relay.squeeze %s
// FWD:         relay.expand_dims %[[S]] {axis = 1 : i64, num_newaxis = 3 : i64}
// FWD:         relay.nn.conv2d %x, %{{.*}} {groups = 4 : i64}
// BWD-LABEL: func.func @depthwise
// BWD:         relay.multiply %x, %s
// BWD:         relay.nn.conv2d %{{.*}}, %{{.*}} {groups = 4 : i64}
// BWD-NEXT:    func.return
func.func @depthwise(%x: tensor<1x4x4x4xf32>, %w: tensor<4x1x3x3xf32>) -> tensor<1x4x2x2xf32> {
  %s = relay.constant dense<[[[2.0]], [[3.0]], [[4.0]], [[5.0]]]> : tensor<4x1x1xf32>
  %0 = relay.multiply %x, %s : (tensor<1x4x4x4xf32>, tensor<4x1x1xf32>) -> tensor<1x4x4x4xf32>
  %1 = relay.nn.conv2d %0, %w {groups = 4 : i64} : (tensor<1x4x4x4xf32>, tensor<4x1x3x3xf32>) -> tensor<1x4x2x2xf32>
  %2 = relay.multiply %1, %s : (tensor<1x4x2x2xf32>, tensor<4x1x1xf32>) -> tensor<1x4x2x2xf32>
  func.return %2 : tensor<1x4x2x2xf32>
}

// -----

// Must not fold forward: the scaled value is also returned.
// FWD-LABEL: func.func @fwd_two_consumers
// FWD:         %[[M:.*]] = relay.multiply %x, %s
// FWD-NEXT:    %[[C:.*]] = relay.nn.conv2d %[[M]], %w
// FWD-NEXT:    func.return %[[C]], %[[M]]
func.func @fwd_two_consumers(%x: tensor<1x2x4x4xf32>, %w: tensor<3x2x1x1xf32>) -> (tensor<1x3x4x4xf32>, tensor<1x2x4x4xf32>) {
  %s = relay.constant dense<[[[2.0]], [[3.0]]]> : tensor<2x1x1xf32>
  %0 = relay.multiply %x, %s : (tensor<1x2x4x4xf32>, tensor<2x1x1xf32>) -> tensor<1x2x4x4xf32>
  %1 = relay.nn.conv2d %0, %w : (tensor<1x2x4x4xf32>, tensor<3x2x1x1xf32>) -> tensor<1x3x4x4xf32>
  func.return %1, %0 : tensor<1x3x4x4xf32>, tensor<1x2x4x4xf32>
}

// -----

// Must not fold forward: a negative scale would cross the relu.
// FWD-LABEL: func.func @fwd_relu_negative_scale
// FWD:         relay.multiply %x, %s
// FWD-NEXT:    relay.nn.relu
// FWD-NEXT:    relay.nn.conv2d
func.func @fwd_relu_negative_scale(%x: tensor<1x2x4x4xf32>, %w: tensor<3x2x1x1xf32>) -> tensor<1x3x4x4xf32> {
  %s = relay.constant dense<[[[2.0]], [[-3.0]]]> : tensor<2x1x1xf32>
  %0 = relay.multiply %x, %s : (tensor<1x2x4x4xf32>, tensor<2x1x1xf32>) -> tensor<1x2x4x4xf32>
  %1 = relay.nn.relu %0 : (tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  %2 = relay.nn.conv2d %1, %w : (tensor<1x2x4x4xf32>, tensor<3x2x1x1xf32>) -> tensor<1x3x4x4xf32>
  func.return %2 : tensor<1x3x4x4xf32>
}

// -----

// Dense in both directions.
// FWD-LABEL: func.func @dense
// FWD:         %[[W:.*]] = relay.multiply %w, %a : (tensor<3x4xf32>, tensor<4xf32>) -> tensor<3x4xf32>
// FWD-NEXT:    %[[D:.*]] = relay.nn.dense %x, %[[W]]
// FWD-NEXT:    relay.multiply %[[D]], %b
// BWD-LABEL: func.func @dense
// BWD:         %[[E:.*]] = relay.expand_dims %b {axis = 1 : i64} : (tensor<3xf32>) -> tensor<3x1xf32>
// BWD-NEXT:    %[[W:.*]] = relay.multiply %w, %[[E]] : (tensor<3x4xf32>, tensor<3x1xf32>) -> tensor<3x4xf32>
// BWD-NEXT:    %[[D:.*]] = relay.nn.dense %{{.*}}, %[[W]]
// BWD-NEXT:    func.return %[[D]]
// ALL-LABEL: func.func @dense
// ALL-NEXT:    %[[W:.*]] = relay.constant
// ALL-NEXT:    %[[D:.*]] = relay.nn.dense %x, %[[W]]
// ALL-NEXT:    func.return %[[D]]
func.func @dense(%x: tensor<2x4xf32>) -> tensor<2x3xf32> {
  %w = relay.constant dense<1.0> : tensor<3x4xf32>
  %a = relay.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
  %b = relay.constant dense<[-1.0, 2.0, 3.0]> : tensor<3xf32>
  %0 = relay.multiply %x, %a : (tensor<2x4xf32>, tensor<4xf32>) -> tensor<2x4xf32>
  %1 = relay.nn.dense %0, %w : (tensor<2x4xf32>, tensor<3x4xf32>) -> tensor<2x3xf32>
  %2 = relay.multiply %1, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  func.return %2 : tensor<2x3xf32>
}

// -----

// Backward through add: both conv branches are scaled.
// BWD-LABEL: func.func @bwd_dual_conv_add
// BWD:         relay.nn.conv2d %x, %{{.*}}
// BWD:         relay.nn.conv2d %y, %{{.*}}
// BWD:         %[[A:.*]] = relay.add
// BWD-NEXT:    func.return %[[A]]
func.func @bwd_dual_conv_add(%x: tensor<1x3x4x4xf32>, %y: tensor<1x3x4x4xf32>, %w1: tensor<2x3x1x1xf32>, %w2: tensor<2x3x1x1xf32>) -> tensor<1x2x4x4xf32> {
  %s = relay.constant dense<[[[2.0]], [[3.0]]]> : tensor<2x1x1xf32>
  %0 = relay.nn.conv2d %x, %w1 : (tensor<1x3x4x4xf32>, tensor<2x3x1x1xf32>) -> tensor<1x2x4x4xf32>
  %1 = relay.nn.conv2d %y, %w2 : (tensor<1x3x4x4xf32>, tensor<2x3x1x1xf32>) -> tensor<1x2x4x4xf32>
  %2 = relay.add %0, %1 : (tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  %3 = relay.multiply %2, %s : (tensor<1x2x4x4xf32>, tensor<2x1x1xf32>) -> tensor<1x2x4x4xf32>
  func.return %3 : tensor<1x2x4x4xf32>
}

// -----

// An SE gate (computed from the data, not from constants) before a 1x1 conv whose
// weight holds 64x the data's elements: folding would multiply (and re-lay out)
// the weight on every run, so the gate stays on the activation.
// FWD-LABEL: func.func @fwd_gate_weight_larger
// FWD:         %[[G:.*]] = relay.sigmoid
// FWD-NEXT:    %[[M:.*]] = relay.multiply %x, %[[G]]
// FWD-NEXT:    relay.nn.conv2d %[[M]], %w
// FWD-NOT:     relay.multiply
// ALL-LABEL: func.func @fwd_gate_weight_larger
// ALL:         %[[M:.*]] = relay.multiply %x,
// ALL-NEXT:    relay.nn.conv2d %[[M]], %w
func.func @fwd_gate_weight_larger(%x: tensor<1x8x2x2xf32>, %w: tensor<256x8x1x1xf32>) -> tensor<1x256x2x2xf32> {
  %0 = relay.nn.global_avg_pool2d %x : (tensor<1x8x2x2xf32>) -> tensor<1x8x1x1xf32>
  %1 = relay.sigmoid %0 : (tensor<1x8x1x1xf32>) -> tensor<1x8x1x1xf32>
  %2 = relay.multiply %x, %1 : (tensor<1x8x2x2xf32>, tensor<1x8x1x1xf32>) -> tensor<1x8x2x2xf32>
  %3 = relay.nn.conv2d %2, %w : (tensor<1x8x2x2xf32>, tensor<256x8x1x1xf32>) -> tensor<1x256x2x2xf32>
  func.return %3 : tensor<1x256x2x2xf32>
}

// -----

// The same gate before a conv whose weight is 64x smaller than the data (an early
// SE block: large activation, few channels): the gate moves into the weight.
// FWD-LABEL: func.func @fwd_gate_data_larger
// FWD:         %[[G:.*]] = relay.sigmoid
// FWD:         %[[W:.*]] = relay.multiply %w,
// FWD-NEXT:    relay.nn.conv2d %x, %[[W]]
func.func @fwd_gate_data_larger(%x: tensor<1x4x64x64xf32>, %w: tensor<64x4x1x1xf32>) -> tensor<1x64x64x64xf32> {
  %0 = relay.nn.global_avg_pool2d %x : (tensor<1x4x64x64xf32>) -> tensor<1x4x1x1xf32>
  %1 = relay.sigmoid %0 : (tensor<1x4x1x1xf32>) -> tensor<1x4x1x1xf32>
  %2 = relay.multiply %x, %1 : (tensor<1x4x64x64xf32>, tensor<1x4x1x1xf32>) -> tensor<1x4x64x64xf32>
  %3 = relay.nn.conv2d %2, %w : (tensor<1x4x64x64xf32>, tensor<64x4x1x1xf32>) -> tensor<1x64x64x64xf32>
  func.return %3 : tensor<1x64x64x64xf32>
}

// -----

// SiLU on a 1x1 activation (an SE block's squeeze) before the excitation conv: the
// sigmoid is a per-channel "scale" of the data, but not worth folding into the
// 32x larger weight.
// FWD-LABEL: func.func @fwd_silu_1x1
// FWD:         %[[S:.*]] = relay.sigmoid %x
// FWD-NEXT:    %[[M:.*]] = relay.multiply %x, %[[S]]
// FWD-NEXT:    relay.nn.conv2d %[[M]], %w
func.func @fwd_silu_1x1(%x: tensor<1x8x1x1xf32>, %w: tensor<32x8x1x1xf32>) -> tensor<1x32x1x1xf32> {
  %0 = relay.sigmoid %x : (tensor<1x8x1x1xf32>) -> tensor<1x8x1x1xf32>
  %1 = relay.multiply %x, %0 : (tensor<1x8x1x1xf32>, tensor<1x8x1x1xf32>) -> tensor<1x8x1x1xf32>
  %2 = relay.nn.conv2d %1, %w : (tensor<1x8x1x1xf32>, tensor<32x8x1x1xf32>) -> tensor<1x32x1x1xf32>
  func.return %2 : tensor<1x32x1x1xf32>
}

// -----

// A constant scale is folded whatever the sizes: FoldConstant bakes the product.
// FWD-LABEL: func.func @fwd_constant_scale_large_weight
// FWD:         %[[W:.*]] = relay.multiply %w,
// FWD-NEXT:    relay.nn.conv2d %x, %[[W]]
func.func @fwd_constant_scale_large_weight(%x: tensor<1x2x1x1xf32>, %w: tensor<64x2x1x1xf32>) -> tensor<1x64x1x1xf32> {
  %s = relay.constant dense<[[[2.0]], [[3.0]]]> : tensor<2x1x1xf32>
  %0 = relay.multiply %x, %s : (tensor<1x2x1x1xf32>, tensor<2x1x1xf32>) -> tensor<1x2x1x1xf32>
  %1 = relay.nn.conv2d %0, %w : (tensor<1x2x1x1xf32>, tensor<64x2x1x1xf32>) -> tensor<1x64x1x1xf32>
  func.return %1 : tensor<1x64x1x1xf32>
}

// -----

// So is a scale computed from constants only (FoldConstant has not run here).
// FWD-LABEL: func.func @fwd_scale_computed_from_constants
// FWD:         %[[S:.*]] = relay.sigmoid %c
// FWD:         %[[W:.*]] = relay.multiply %w,
// FWD-NEXT:    relay.nn.conv2d %x, %[[W]]
func.func @fwd_scale_computed_from_constants(%x: tensor<1x2x1x1xf32>, %w: tensor<64x2x1x1xf32>) -> tensor<1x64x1x1xf32> {
  %c = relay.constant dense<[[[2.0]], [[3.0]]]> : tensor<2x1x1xf32>
  %s = relay.sigmoid %c : (tensor<2x1x1xf32>) -> tensor<2x1x1xf32>
  %0 = relay.multiply %x, %s : (tensor<1x2x1x1xf32>, tensor<2x1x1xf32>) -> tensor<1x2x1x1xf32>
  %1 = relay.nn.conv2d %0, %w : (tensor<1x2x1x1xf32>, tensor<64x2x1x1xf32>) -> tensor<1x64x1x1xf32>
  func.return %1 : tensor<1x64x1x1xf32>
}

// -----

// Backward: a computed scale after a conv is folded into a weight 32x smaller than
// the output, and left as a multiply after a conv whose weight is larger.
// BWD-LABEL: func.func @bwd_computed_scale
// BWD:         %[[W:.*]] = relay.multiply %w1,
// BWD-NEXT:    %[[C1:.*]] = relay.nn.conv2d %x, %[[W]]
// BWD:         %[[C2:.*]] = relay.nn.conv2d %{{.*}}, %w2
// BWD-NEXT:    relay.multiply %[[C2]], %s
func.func @bwd_computed_scale(%x: tensor<1x4x32x32xf32>, %w1: tensor<4x4x1x1xf32>, %w2: tensor<4x4x1x1xf32>, %s: tensor<4x1x1xf32>) -> (tensor<1x4x32x32xf32>, tensor<1x4x1x1xf32>) {
  %0 = relay.nn.conv2d %x, %w1 : (tensor<1x4x32x32xf32>, tensor<4x4x1x1xf32>) -> tensor<1x4x32x32xf32>
  %1 = relay.multiply %0, %s : (tensor<1x4x32x32xf32>, tensor<4x1x1xf32>) -> tensor<1x4x32x32xf32>
  %2 = relay.nn.global_avg_pool2d %x : (tensor<1x4x32x32xf32>) -> tensor<1x4x1x1xf32>
  %3 = relay.nn.conv2d %2, %w2 : (tensor<1x4x1x1xf32>, tensor<4x4x1x1xf32>) -> tensor<1x4x1x1xf32>
  %4 = relay.multiply %3, %s : (tensor<1x4x1x1xf32>, tensor<4x1x1xf32>) -> tensor<1x4x1x1xf32>
  func.return %1, %4 : tensor<1x4x32x32xf32>, tensor<1x4x1x1xf32>
}

// -----

// Blocked layouts: a scale on C and c of NCHW2c data folds onto I and i of an
// OIHW2i2o weight (forward), reshaped to the weight's dims there; a mixed case
// (blocked data, plain kernel) is left alone.
// FWD-LABEL: func.func @fwd_blocked
// FWD:         %[[S:.*]] = relay.squeeze %s {axis = array<i64: 0, 2, 3>} : (tensor<1x2x1x1x2xf32>) -> tensor<2x2xf32>
// FWD-NEXT:    %[[R:.*]] = relay.reshape %[[S]] {newshape = array<i64: 1, 2, 1, 1, 2, 1>} : (tensor<2x2xf32>) -> tensor<1x2x1x1x2x1xf32>
// FWD-NEXT:    %[[W:.*]] = relay.multiply %w, %[[R]]
// FWD-NEXT:    relay.nn.conv2d %x, %[[W]]
// FWD-LABEL: func.func @fwd_mixed
// FWD:         relay.multiply %x, %s
func.func @fwd_blocked(%x: tensor<1x2x4x4x2xf32>, %w: tensor<2x2x3x3x2x2xf32>) -> tensor<1x2x4x4x2xf32> {
  %s = relay.constant dense<[[[[[1.0, 2.0]]], [[[3.0, 4.0]]]]]> : tensor<1x2x1x1x2xf32>
  %0 = relay.multiply %x, %s : (tensor<1x2x4x4x2xf32>, tensor<1x2x1x1x2xf32>) -> tensor<1x2x4x4x2xf32>
  %1 = relay.nn.conv2d %0, %w {padding = array<i64: 1, 1, 1, 1>, channels = 4 : i64, kernel_size = array<i64: 3, 3>, data_layout = "NCHW2c", kernel_layout = "OIHW2i2o"} : (tensor<1x2x4x4x2xf32>, tensor<2x2x3x3x2x2xf32>) -> tensor<1x2x4x4x2xf32>
  func.return %1 : tensor<1x2x4x4x2xf32>
}
func.func @fwd_mixed(%x: tensor<1x2x4x4x2xf32>, %w: tensor<4x4x3x3xf32>) -> tensor<1x2x4x4x2xf32> {
  %s = relay.constant dense<[[[[[1.0, 2.0]]], [[[3.0, 4.0]]]]]> : tensor<1x2x1x1x2xf32>
  %0 = relay.multiply %x, %s : (tensor<1x2x4x4x2xf32>, tensor<1x2x1x1x2xf32>) -> tensor<1x2x4x4x2xf32>
  %1 = relay.nn.conv2d %0, %w {padding = array<i64: 1, 1, 1, 1>, channels = 4 : i64, kernel_size = array<i64: 3, 3>, data_layout = "NCHW2c"} : (tensor<1x2x4x4x2xf32>, tensor<4x4x3x3xf32>) -> tensor<1x2x4x4x2xf32>
  func.return %1 : tensor<1x2x4x4x2xf32>
}
