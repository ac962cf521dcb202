// RUN: xrelay-opt %s -p alter-op-layout --split-input-file | filecheck %s
// RUN: xrelay-opt %s -p 'alter-op-layout{target="cuda"}' --split-input-file | filecheck %s --check-prefix=GPU

// conv2d becomes contrib_conv2d_NCHWc (8 input channels: NCHW8c; 16 output channels:
// OIHW8i16o kernel, NCHW16c result); the constant weight gets a layout_transform that
// FoldConstant folds later; the result goes back to NCHW.
// CHECK-LABEL: func.func @conv_const_weight
// CHECK-NEXT:    %w = relay.constant dense<5.000000e-01> : tensor<16x8x3x3xf32>
// CHECK-NEXT:    %[[X:.*]] = relay.layout_transform %x {src_layout = "NCHW", dst_layout = "NCHW8c"} : (tensor<1x8x6x6xf32>) -> tensor<1x1x6x6x8xf32>
// CHECK-NEXT:    %[[W:.*]] = relay.layout_transform %w {src_layout = "OIHW", dst_layout = "OIHW8i16o"} : (tensor<16x8x3x3xf32>) -> tensor<1x1x3x3x8x16xf32>
// CHECK-NEXT:    %[[C:.*]] = relay.nn.contrib_conv2d_NCHWc %[[X]], %[[W]] {padding = array<i64: 1, 1, 1, 1>, kernel_layout = "OIHW8i16o", out_layout = "NCHW16c"} : (tensor<1x1x6x6x8xf32>, tensor<1x1x3x3x8x16xf32>) -> tensor<1x1x6x6x16xf32>
// CHECK-NEXT:    %[[O:.*]] = relay.layout_transform %[[C]] {src_layout = "NCHW16c", dst_layout = "NCHW"} : (tensor<1x1x6x6x16xf32>) -> tensor<1x16x6x6xf32>
// CHECK-NEXT:    func.return %[[O]] : tensor<1x16x6x6xf32>
// GPU-LABEL: func.func @conv_const_weight
// GPU-NEXT:    relay.constant
// GPU-NEXT:    relay.nn.conv2d %x, %w
// GPU-NOT:     layout_transform
func.func @conv_const_weight(%x: tensor<1x8x6x6xf32>) -> tensor<1x16x6x6xf32> {
  %w = relay.constant dense<0.5> : tensor<16x8x3x3xf32>
  %0 = relay.nn.conv2d %x, %w {padding = array<i64: 1, 1, 1, 1>} : (tensor<1x8x6x6xf32>, tensor<16x8x3x3xf32>) -> tensor<1x16x6x6xf32>
  func.return %0 : tensor<1x16x6x6xf32>
}

// -----

// conv -> bias add -> relu -> conv -> residual add: the blocked layout flows through
// (no transform between the convolutions); the [C, 1, 1] bias is expanded and blocked.
// CHECK-LABEL: func.func @conv_chain
// CHECK-NEXT:    %[[X:.*]] = relay.layout_transform %x {src_layout = "NCHW", dst_layout = "NCHW8c"}
// CHECK-NEXT:    %[[W1:.*]] = relay.layout_transform %w1 {src_layout = "OIHW", dst_layout = "OIHW8i16o"}
// CHECK-NEXT:    %[[C1:.*]] = relay.nn.contrib_conv2d_NCHWc %[[X]], %[[W1]] {{.*}} -> tensor<1x1x6x6x16xf32>
// CHECK-NEXT:    %[[E:.*]] = relay.expand_dims %b {axis = 0 : i64} : (tensor<16x1x1xf32>) -> tensor<1x16x1x1xf32>
// CHECK-NEXT:    %[[B:.*]] = relay.layout_transform %[[E]] {src_layout = "NCHW", dst_layout = "NCHW16c"} : (tensor<1x16x1x1xf32>) -> tensor<1x1x1x1x16xf32>
// CHECK-NEXT:    %[[A:.*]] = relay.add %[[C1]], %[[B]] : (tensor<1x1x6x6x16xf32>, tensor<1x1x1x1x16xf32>) -> tensor<1x1x6x6x16xf32>
// CHECK-NEXT:    %[[R:.*]] = relay.nn.relu %[[A]] : (tensor<1x1x6x6x16xf32>) -> tensor<1x1x6x6x16xf32>
// CHECK-NEXT:    %[[W2:.*]] = relay.layout_transform %w2 {src_layout = "OIHW", dst_layout = "OIHW16i16o"}
// CHECK-NEXT:    %[[C2:.*]] = relay.nn.contrib_conv2d_NCHWc %[[R]], %[[W2]] {kernel_layout = "OIHW16i16o", data_layout = "NCHW16c", out_layout = "NCHW16c"}
// CHECK-NEXT:    %[[S:.*]] = relay.add %[[C2]], %[[R]] : (tensor<1x1x6x6x16xf32>, tensor<1x1x6x6x16xf32>) -> tensor<1x1x6x6x16xf32>
// CHECK-NEXT:    %[[O:.*]] = relay.layout_transform %[[S]] {src_layout = "NCHW16c", dst_layout = "NCHW"}
// CHECK-NEXT:    func.return %[[O]]
func.func @conv_chain(%x: tensor<1x8x6x6xf32>, %w1: tensor<16x8x3x3xf32>, %b: tensor<16x1x1xf32>, %w2: tensor<16x16x1x1xf32>) -> tensor<1x16x6x6xf32> {
  %0 = relay.nn.conv2d %x, %w1 {padding = array<i64: 1, 1, 1, 1>} : (tensor<1x8x6x6xf32>, tensor<16x8x3x3xf32>) -> tensor<1x16x6x6xf32>
  %1 = relay.add %0, %b : (tensor<1x16x6x6xf32>, tensor<16x1x1xf32>) -> tensor<1x16x6x6xf32>
  %2 = relay.nn.relu %1 : (tensor<1x16x6x6xf32>) -> tensor<1x16x6x6xf32>
  %3 = relay.nn.conv2d %2, %w2 : (tensor<1x16x6x6xf32>, tensor<16x16x1x1xf32>) -> tensor<1x16x6x6xf32>
  %4 = relay.add %3, %2 : (tensor<1x16x6x6xf32>, tensor<1x16x6x6xf32>) -> tensor<1x16x6x6xf32>
  func.return %4 : tensor<1x16x6x6xf32>
}

// -----

// dense becomes contrib_dense_pack with the weight packed NC8n (24 units).
// CHECK-LABEL: func.func @dense
// CHECK:         %[[W:.*]] = relay.layout_transform %w {src_layout = "NC", dst_layout = "NC8n"} : (tensor<24x32xf32>) -> tensor<3x32x8xf32>
// CHECK-NEXT:    %[[D:.*]] = relay.nn.contrib_dense_pack %x, %[[W]] {weight_layout = "NC8n"} : (tensor<2x32xf32>, tensor<3x32x8xf32>) -> tensor<2x24xf32>
// CHECK-NEXT:    func.return %[[D]]
func.func @dense(%x: tensor<2x32xf32>) -> tensor<2x24xf32> {
  %w = relay.constant dense<0.25> : tensor<24x32xf32>
  %0 = relay.nn.dense %x, %w : (tensor<2x32xf32>, tensor<24x32xf32>) -> tensor<2x24xf32>
  func.return %0 : tensor<2x24xf32>
}

// -----

// A dense on 3-D data (ONNX MatMul on [batch, seq, features]) is packed too; the
// leading dims stay (no reshape), and the bias add after it keeps its layout.
// CHECK-LABEL: func.func @dense_3d
// CHECK:         %[[W:.*]] = relay.layout_transform %w {src_layout = "NC", dst_layout = "NC8n"} : (tensor<24x32xf32>) -> tensor<3x32x8xf32>
// CHECK-NEXT:    %[[D:.*]] = relay.nn.contrib_dense_pack %x, %[[W]] {weight_layout = "NC8n"} : (tensor<2x5x32xf32>, tensor<3x32x8xf32>) -> tensor<2x5x24xf32>
// CHECK-NEXT:    %[[A:.*]] = relay.add %[[D]], %b : (tensor<2x5x24xf32>, tensor<24xf32>) -> tensor<2x5x24xf32>
// CHECK-NEXT:    func.return %[[A]]
// GPU-LABEL: func.func @dense_3d
// GPU:         relay.nn.dense %x, %w
func.func @dense_3d(%x: tensor<2x5x32xf32>, %b: tensor<24xf32>) -> tensor<2x5x24xf32> {
  %w = relay.constant dense<0.25> : tensor<24x32xf32>
  %0 = relay.nn.dense %x, %w : (tensor<2x5x32xf32>, tensor<24x32xf32>) -> tensor<2x5x24xf32>
  %1 = relay.add %0, %b : (tensor<2x5x24xf32>, tensor<24xf32>) -> tensor<2x5x24xf32>
  func.return %1 : tensor<2x5x24xf32>
}

// -----

// nn.matmul with a matrix B packs like a dense: B [K, N] goes CN -> NC8n (FoldConstant
// folds the transform of a constant later); with transpose_a it stays.
// CHECK-LABEL: func.func @matmul
// CHECK:         %[[W:.*]] = relay.layout_transform %w {src_layout = "CN", dst_layout = "NC8n"} : (tensor<32x24xf32>) -> tensor<3x32x8xf32>
// CHECK-NEXT:    %[[D:.*]] = relay.nn.contrib_dense_pack %x, %[[W]] {weight_layout = "NC8n"} : (tensor<2x5x32xf32>, tensor<3x32x8xf32>) -> tensor<2x5x24xf32>
// CHECK-NEXT:    %[[T:.*]] = relay.nn.contrib_dense_pack %x, %wt {weight_layout = "NC8n"}
// CHECK-NEXT:    %[[M:.*]] = relay.nn.matmul %y, %w {transpose_a = true}
// CHECK-NEXT:    func.return %[[D]], %[[T]], %[[M]]
// GPU-LABEL: func.func @matmul
// GPU-NOT:     contrib_dense_pack
func.func @matmul(%x: tensor<2x5x32xf32>, %y: tensor<32x4xf32>, %wt: tensor<3x32x8xf32>) -> (tensor<2x5x24xf32>, tensor<2x5x24xf32>, tensor<4x24xf32>) {
  %w = relay.constant dense<0.25> : tensor<32x24xf32>
  %0 = relay.nn.matmul %x, %w : (tensor<2x5x32xf32>, tensor<32x24xf32>) -> tensor<2x5x24xf32>
  %t = relay.layout_transform %wt {src_layout = "NC8n", dst_layout = "NC"} : (tensor<3x32x8xf32>) -> tensor<24x32xf32>
  %1 = relay.nn.matmul %x, %t {transpose_b = true} : (tensor<2x5x32xf32>, tensor<24x32xf32>) -> tensor<2x5x24xf32>
  %2 = relay.nn.matmul %y, %w {transpose_a = true} : (tensor<32x4xf32>, tensor<32x24xf32>) -> tensor<4x24xf32>
  func.return %0, %1, %2 : tensor<2x5x24xf32>, tensor<2x5x24xf32>, tensor<4x24xf32>
}

// -----

// A reduction over C adapts (both parts of the split axis are reduced); the pool
// takes the blocked layout (channels pooled on their own), its result goes back to
// NCHW at the return.
// CHECK-LABEL: func.func @sum_and_pool
// CHECK:         %[[C:.*]] = relay.nn.contrib_conv2d_NCHWc {{.*}} -> tensor<1x1x4x4x8xf32>
// CHECK-NEXT:    %[[S:.*]] = relay.sum %[[C]] {axis = array<i64: 1, 4>} : (tensor<1x1x4x4x8xf32>) -> tensor<1x4x4xf32>
// CHECK-NEXT:    %[[P:.*]] = relay.nn.max_pool2d %[[C]] {pool_size = array<i64: 2, 2>, strides = array<i64: 2, 2>, layout = "NCHW8c"} : (tensor<1x1x4x4x8xf32>) -> tensor<1x1x2x2x8xf32>
// CHECK-NEXT:    %[[T:.*]] = relay.layout_transform %[[P]] {src_layout = "NCHW8c", dst_layout = "NCHW"} : (tensor<1x1x2x2x8xf32>) -> tensor<1x8x2x2xf32>
// CHECK-NEXT:    func.return %[[S]], %[[T]]
func.func @sum_and_pool(%x: tensor<1x8x4x4xf32>, %w: tensor<8x8x1x1xf32>) -> (tensor<1x4x4xf32>, tensor<1x8x2x2xf32>) {
  %0 = relay.nn.conv2d %x, %w : (tensor<1x8x4x4xf32>, tensor<8x8x1x1xf32>) -> tensor<1x8x4x4xf32>
  %1 = relay.sum %0 {axis = array<i64: 1>} : (tensor<1x8x4x4xf32>) -> tensor<1x4x4xf32>
  %2 = relay.nn.max_pool2d %0 {pool_size = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<1x8x4x4xf32>) -> tensor<1x8x2x2xf32>
  func.return %1, %2 : tensor<1x4x4xf32>, tensor<1x8x2x2xf32>
}

// -----

// A global pool keeps the blocked layout of its producer (every channel pooled on its
// own): no transform before it, the pooled [1, 1, 1, 1, 8] goes on blocked into the
// next convolution (an SE gate's squeeze).
// CHECK-LABEL: func.func @global_pool_blocked
// CHECK:         %[[C:.*]] = relay.nn.contrib_conv2d_NCHWc {{.*}} -> tensor<1x1x4x4x8xf32>
// CHECK-NEXT:    %[[P:.*]] = relay.nn.global_avg_pool2d %[[C]] {layout = "NCHW8c"} : (tensor<1x1x4x4x8xf32>) -> tensor<1x1x1x1x8xf32>
// CHECK-NEXT:    %[[M:.*]] = relay.nn.global_max_pool2d %[[C]] {layout = "NCHW8c"} : (tensor<1x1x4x4x8xf32>) -> tensor<1x1x1x1x8xf32>
// CHECK-NOT:     layout_transform %[[C]]
// CHECK:         relay.nn.contrib_conv2d_NCHWc %[[P]]
func.func @global_pool_blocked(%x: tensor<1x8x4x4xf32>, %w: tensor<8x8x1x1xf32>) -> (tensor<1x8x1x1xf32>, tensor<1x8x1x1xf32>) {
  %0 = relay.nn.conv2d %x, %w : (tensor<1x8x4x4xf32>, tensor<8x8x1x1xf32>) -> tensor<1x8x4x4xf32>
  %1 = relay.nn.global_avg_pool2d %0 : (tensor<1x8x4x4xf32>) -> tensor<1x8x1x1xf32>
  %2 = relay.nn.global_max_pool2d %0 : (tensor<1x8x4x4xf32>) -> tensor<1x8x1x1xf32>
  %3 = relay.nn.conv2d %1, %w : (tensor<1x8x1x1xf32>, tensor<8x8x1x1xf32>) -> tensor<1x8x1x1xf32>
  func.return %3, %2 : tensor<1x8x1x1xf32>, tensor<1x8x1x1xf32>
}

// -----

// Does not fire: channels without a block > 1 (3 -> 5), a grouped convolution whose
// groups have 2 channels (below the smallest group block on AVX2 and AVX-512 hosts),
// an NHWC convolution, a dense with 7 units, a dense on a vector.
// CHECK-LABEL: func.func @not_altered
// CHECK-NEXT:    %0 = relay.nn.conv2d %x, %w : (tensor<1x3x6x6xf32>, tensor<5x3x3x3xf32>) -> tensor<1x5x4x4xf32>
// CHECK-NEXT:    %1 = relay.nn.conv2d %y, %wg {groups = 4 : i64}
// CHECK-NEXT:    %2 = relay.nn.conv2d %z, %wz {data_layout = "NHWC", kernel_layout = "HWIO"}
// CHECK-NEXT:    %3 = relay.nn.dense %d, %wd
// CHECK-NEXT:    %4 = relay.nn.dense %v, %wv
// CHECK-NEXT:    func.return %0, %1, %2, %3, %4
func.func @not_altered(%x: tensor<1x3x6x6xf32>, %w: tensor<5x3x3x3xf32>, %y: tensor<1x8x6x6xf32>, %wg: tensor<8x2x3x3xf32>, %z: tensor<1x6x6x8xf32>, %wz: tensor<3x3x8x8xf32>, %d: tensor<2x8xf32>, %wd: tensor<7x8xf32>, %v: tensor<8xf32>, %wv: tensor<16x8xf32>) -> (tensor<1x5x4x4xf32>, tensor<1x8x4x4xf32>, tensor<1x4x4x8xf32>, tensor<2x7xf32>, tensor<16xf32>) {
  %0 = relay.nn.conv2d %x, %w : (tensor<1x3x6x6xf32>, tensor<5x3x3x3xf32>) -> tensor<1x5x4x4xf32>
  %1 = relay.nn.conv2d %y, %wg {groups = 4 : i64} : (tensor<1x8x6x6xf32>, tensor<8x2x3x3xf32>) -> tensor<1x8x4x4xf32>
  %2 = relay.nn.conv2d %z, %wz {data_layout = "NHWC", kernel_layout = "HWIO"} : (tensor<1x6x6x8xf32>, tensor<3x3x8x8xf32>) -> tensor<1x4x4x8xf32>
  %3 = relay.nn.dense %d, %wd : (tensor<2x8xf32>, tensor<7x8xf32>) -> tensor<2x7xf32>
  %4 = relay.nn.dense %v, %wv : (tensor<8xf32>, tensor<16x8xf32>) -> tensor<16xf32>
  func.return %0, %1, %2, %3, %4 : tensor<1x5x4x4xf32>, tensor<1x8x4x4xf32>, tensor<1x4x4x8xf32>, tensor<2x7xf32>, tensor<16xf32>
}

// -----

// ShuffleNet's 58 channels take blocks of 2, narrower than half of any host's
// vector lanes: on a 16 x 16 map the convolutions (1x1 and depthwise) stay plain;
// on a pooled 1 x 1 map (an SE gate's squeeze) the narrow block is kept.
// CHECK-LABEL: func.func @narrow_blocks
// CHECK-NOT:     layout_transform %x
// CHECK:         %[[C:.*]] = relay.nn.conv2d %x, %w : (tensor<1x58x16x16xf32>, tensor<58x58x1x1xf32>) -> tensor<1x58x16x16xf32>
// CHECK-NEXT:    %[[D:.*]] = relay.nn.conv2d %[[C]], %dw {padding = array<i64: 1, 1, 1, 1>, groups = 58 : i64}
// CHECK:         relay.nn.contrib_conv2d_NCHWc {{.*}} -> tensor<1x29x1x1x2xf32>
func.func @narrow_blocks(%x: tensor<1x58x16x16xf32>, %g: tensor<1x64x1x1xf32>) -> (tensor<1x58x16x16xf32>, tensor<1x58x1x1xf32>) {
  %w = relay.constant dense<0.5> : tensor<58x58x1x1xf32>
  %dw = relay.constant dense<0.25> : tensor<58x1x3x3xf32>
  %sq = relay.constant dense<0.125> : tensor<58x64x1x1xf32>
  %0 = relay.nn.conv2d %x, %w : (tensor<1x58x16x16xf32>, tensor<58x58x1x1xf32>) -> tensor<1x58x16x16xf32>
  %1 = relay.nn.conv2d %0, %dw {padding = array<i64: 1, 1, 1, 1>, groups = 58 : i64} : (tensor<1x58x16x16xf32>, tensor<58x1x3x3xf32>) -> tensor<1x58x16x16xf32>
  %2 = relay.nn.conv2d %g, %sq : (tensor<1x64x1x1xf32>, tensor<58x64x1x1xf32>) -> tensor<1x58x1x1xf32>
  func.return %1, %2 : tensor<1x58x16x16xf32>, tensor<1x58x1x1xf32>
}
