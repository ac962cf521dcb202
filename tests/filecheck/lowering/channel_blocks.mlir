// RUN: xrelay-opt %s -p relay-to-kernels | filecheck %s

// Two fused blocked convolutions that differ only in their count of input-channel
// blocks (2 and 3: the bottlenecks of a dense block) share one kernel: its data
// and kernel are memref<...x?x...>, read through 1-D views whose size is computed
// from the count, an index argument after the buffers. The host passes views of
// the buffers with the count as their size, and the count. The third
// convolution, alone with its output shape, keeps its static kernel.
func.func private @fused_conv_relu(%x: tensor<1x2x3x5x8xf32>, %w: tensor<1x2x1x1x8x8xf32>) -> tensor<1x1x3x5x8xf32> attributes {relay.primitive} {
  %0 = relay.nn.contrib_conv2d_NCHWc %x, %w {data_layout = "NCHW8c", kernel_layout = "OIHW8i8o", out_layout = "NCHW8c"} : (tensor<1x2x3x5x8xf32>, tensor<1x2x1x1x8x8xf32>) -> tensor<1x1x3x5x8xf32>
  %1 = relay.nn.relu %0 : (tensor<1x1x3x5x8xf32>) -> tensor<1x1x3x5x8xf32>
  func.return %1 : tensor<1x1x3x5x8xf32>
}
func.func private @fused_conv_relu_1(%x: tensor<1x3x3x5x8xf32>, %w: tensor<1x3x1x1x8x8xf32>) -> tensor<1x1x3x5x8xf32> attributes {relay.primitive} {
  %0 = relay.nn.contrib_conv2d_NCHWc %x, %w {data_layout = "NCHW8c", kernel_layout = "OIHW8i8o", out_layout = "NCHW8c"} : (tensor<1x3x3x5x8xf32>, tensor<1x3x1x1x8x8xf32>) -> tensor<1x1x3x5x8xf32>
  %1 = relay.nn.relu %0 : (tensor<1x1x3x5x8xf32>) -> tensor<1x1x3x5x8xf32>
  func.return %1 : tensor<1x1x3x5x8xf32>
}
func.func private @fused_conv_relu_2(%x: tensor<1x3x3x5x8xf32>, %w: tensor<2x3x1x1x8x8xf32>) -> tensor<1x2x3x5x8xf32> attributes {relay.primitive} {
  %0 = relay.nn.contrib_conv2d_NCHWc %x, %w {data_layout = "NCHW8c", kernel_layout = "OIHW8i8o", out_layout = "NCHW8c"} : (tensor<1x3x3x5x8xf32>, tensor<2x3x1x1x8x8xf32>) -> tensor<1x2x3x5x8xf32>
  %1 = relay.nn.relu %0 : (tensor<1x2x3x5x8xf32>) -> tensor<1x2x3x5x8xf32>
  func.return %1 : tensor<1x2x3x5x8xf32>
}
func.func @main(%a: tensor<1x2x3x5x8xf32>, %b: tensor<1x3x3x5x8xf32>, %wa: tensor<1x2x1x1x8x8xf32>, %wb: tensor<1x3x1x1x8x8xf32>, %wc: tensor<2x3x1x1x8x8xf32>) -> (tensor<1x1x3x5x8xf32>, tensor<1x1x3x5x8xf32>, tensor<1x2x3x5x8xf32>) {
  %0 = func.call @fused_conv_relu(%a, %wa) : (tensor<1x2x3x5x8xf32>, tensor<1x2x1x1x8x8xf32>) -> tensor<1x1x3x5x8xf32>
  %1 = func.call @fused_conv_relu_1(%b, %wb) : (tensor<1x3x3x5x8xf32>, tensor<1x3x1x1x8x8xf32>) -> tensor<1x1x3x5x8xf32>
  %2 = func.call @fused_conv_relu_2(%b, %wc) : (tensor<1x3x3x5x8xf32>, tensor<2x3x1x1x8x8xf32>) -> tensor<1x2x3x5x8xf32>
  func.return %0, %1, %2 : tensor<1x1x3x5x8xf32>, tensor<1x1x3x5x8xf32>, tensor<1x2x3x5x8xf32>
}

// CHECK:       func.func @k0_fused_conv_relu(%0: memref<1x?x3x5x8xf32> {llvm.noalias}, %1: memref<1x?x1x1x8x8xf32> {llvm.noalias}, %2: memref<1x1x3x5x8xf32> {llvm.noalias}, %blocks: index, %tid: index, %nthreads: index, %team: !llvm.ptr) {
// CHECK:         %[[DSIZE:.*]] = arith.muli %blocks, %[[C120:.*]] : index
// CHECK-NEXT:    %[[DATA:.*]] = memref.reinterpret_cast %0 to offset: [0], sizes: [%[[DSIZE]]], strides: [1] : memref<1x?x3x5x8xf32> to memref<?xf32>
// CHECK:         %[[WSIZE:.*]] = arith.muli %blocks, %[[C64:.*]] : index
// CHECK-NEXT:    %[[WEIGHT:.*]] = memref.reinterpret_cast %1 to offset: [0], sizes: [%[[WSIZE]]], strides: [1] : memref<1x?x1x1x8x8xf32> to memref<?xf32>
// CHECK:         memref.load %[[DATA]][%{{.*}}] : memref<?xf32>
// CHECK:         vector.load %[[WEIGHT]][%{{.*}}] : memref<?xf32>, vector<8xf32>
// CHECK-NOT:   func.func @k{{[0-9]+}}_fused_conv_relu_1(
// CHECK:       func.func @k1_fused_conv_relu_2(%0: memref<1x3x3x5x8xf32> {llvm.noalias}, %1: memref<2x3x1x1x8x8xf32> {llvm.noalias}, %2: memref<1x2x3x5x8xf32> {llvm.noalias}, %tid: index, %nthreads: index, %team: !llvm.ptr) {
// CHECK:       func.func @main(
// CHECK:         %[[A:.*]] = memref.reinterpret_cast %a to offset: [0], sizes: [1, %[[TWO:.*]], 3, 5, 8], strides: [240, 120, 40, 8, 1] : memref<1x2x3x5x8xf32> to memref<1x?x3x5x8xf32>
// CHECK-NEXT:    %[[WA:.*]] = memref.reinterpret_cast %wa to offset: [0], sizes: [1, %[[TWO]], 1, 1, 8, 8], strides: [128, 64, 64, 64, 8, 1] : memref<1x2x1x1x8x8xf32> to memref<1x?x1x1x8x8xf32>
// CHECK-NEXT:    func.call @k0_fused_conv_relu(%[[A]], %[[WA]], %output0, %[[TWO]], %tid, %nthreads, %team)
// CHECK:         %[[B:.*]] = memref.reinterpret_cast %b to offset: [0], sizes: [1, %[[THREE:.*]], 3, 5, 8]
// CHECK-NEXT:    %[[WB:.*]] = memref.reinterpret_cast %wb to offset: [0], sizes: [1, %[[THREE]], 1, 1, 8, 8]
// CHECK-NEXT:    func.call @xrelay_barrier(%team)
// CHECK-NEXT:    func.call @k0_fused_conv_relu(%[[B]], %[[WB]], %output1, %[[THREE]], %tid, %nthreads, %team)
// CHECK:         func.call @k1_fused_conv_relu_2(%b, %wc, %output2, %tid, %nthreads, %team)
