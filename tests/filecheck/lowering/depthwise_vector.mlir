// RUN: xrelay-opt %s -p relay-to-kernels | filecheck %s
// RUN: xrelay-opt %s -p relay-lower-to-llvm | filecheck %s --check-prefix=LLVM
// RUN: xrelay-opt %s -p relay-lower-to-llvm -t llvm | filecheck %s --check-prefix=IR

// A depthwise NCHW8c convolution computes on vectors of a channel block: the sums
// start as a broadcast zero, the weights of a tap and each pixel's inputs are one
// vector.load each, the kernel rows are an scf loop (the columns written out), each
// tap is one vector FMA per pixel. Lowered: element-aligned vector loads and
// stores, the broadcast an insertelement + shufflevector, llvm.fma.v8f32.
func.func @main(%x: tensor<1x1x5x6x8xf32>, %w: tensor<1x1x3x3x1x8xf32>) -> tensor<1x1x5x6x8xf32> {
  %0 = relay.nn.contrib_conv2d_NCHWc %x, %w {padding = array<i64: 1, 1, 1, 1>, groups = 8 : i64, data_layout = "NCHW8c", kernel_layout = "OIHW1i8o", out_layout = "NCHW8c"} : (tensor<1x1x5x6x8xf32>, tensor<1x1x3x3x1x8xf32>) -> tensor<1x1x5x6x8xf32>
  func.return %0 : tensor<1x1x5x6x8xf32>
}

// CHECK:       func.func @k0_{{.*}}contrib_conv2d_NCHWc
// CHECK:         vector.broadcast %{{.*}} : f32 to vector<8xf32>
// CHECK:         scf.for {{.*}} iter_args
// CHECK-NOT:       scf.for
// CHECK:             vector.load %{{.*}}[%{{.*}}] : memref<72xf32>, vector<8xf32>
// CHECK:             vector.load %{{.*}}[%{{.*}}] : memref<240xf32>, vector<8xf32>
// CHECK:             arith.select %{{.*}}, %{{.*}}, %{{.*}} : vector<8xf32>
// CHECK:             math.fma %{{.*}}, %{{.*}}, %{{.*}} : vector<8xf32>
// CHECK:         vector.store %{{.*}}, %{{.*}}[%{{.*}}] : memref<240xf32>, vector<8xf32>

// LLVM:        llvm.func @k0_
// LLVM:          llvm.insertelement
// LLVM:          llvm.shufflevector
// LLVM:          llvm.load %{{.*}} {alignment = 4 : i64} : !llvm.ptr -> vector<8xf32>
// LLVM:          llvm.call_intrinsic "llvm.fma.v8f32"
// LLVM:          llvm.store %{{.*}}, %{{.*}} {alignment = 4 : i64} : vector<8xf32>, !llvm.ptr

// IR:          load <8 x float>, ptr %{{.*}}, align 4
// IR:          call <8 x float> @"llvm.fma.v8f32"(
// IR:          store <8 x float> %{{.*}}, ptr %{{.*}}, align 4
