// RUN: xrelay-opt %s -p relay-to-kernels | filecheck %s

// A register-tiled float32 convolution carries its sums as vectors of a channel
// block: the loops over the taps and the input channels have vector<8xf32>
// iter_args, each step loads a block's weights as one vector, broadcasts each
// pixel's input and issues one vector FMA per pixel; the tile is stored as
// vectors. The plain conv2d (weights repacked, tiles staged) does the same with
// its partial block of 4 channels. A float16 convolution, whose values widen to
// f32 registers, keeps scalar sums.
func.func @main(%x: tensor<1x2x4x6x8xf32>, %w: tensor<2x2x3x3x8x8xf32>, %p: tensor<1x3x5x5xf32>, %q: tensor<4x3x3x3xf32>, %h: tensor<1x2x4x6x8xf16>, %hw: tensor<2x2x3x3x8x8xf16>) -> (tensor<1x2x4x6x8xf32>, tensor<1x4x5x5xf32>, tensor<1x2x4x6x8xf16>) {
  %0 = relay.nn.contrib_conv2d_NCHWc %x, %w {padding = array<i64: 1, 1, 1, 1>, data_layout = "NCHW8c", kernel_layout = "OIHW8i8o", out_layout = "NCHW8c"} : (tensor<1x2x4x6x8xf32>, tensor<2x2x3x3x8x8xf32>) -> tensor<1x2x4x6x8xf32>
  %1 = relay.nn.conv2d %p, %q {padding = array<i64: 1, 1, 1, 1>} : (tensor<1x3x5x5xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x5x5xf32>
  %2 = relay.nn.contrib_conv2d_NCHWc %h, %hw {padding = array<i64: 1, 1, 1, 1>, data_layout = "NCHW8c", kernel_layout = "OIHW8i8o", out_layout = "NCHW8c"} : (tensor<1x2x4x6x8xf16>, tensor<2x2x3x3x8x8xf16>) -> tensor<1x2x4x6x8xf16>
  func.return %0, %1, %2 : tensor<1x2x4x6x8xf32>, tensor<1x4x5x5xf32>, tensor<1x2x4x6x8xf16>
}

// CHECK:       func.func @k0_nn_contrib_conv2d_NCHWc(
// CHECK-NOT:   math.fma {{.*}} : f32
// CHECK:         scf.for {{.*}} iter_args({{.*}}) -> (vector<8xf32>, {{.*}}index
// CHECK:           scf.for {{.*}} iter_args({{.*}}) -> (vector<8xf32>
// CHECK:             %[[IN:.*]] = vector.broadcast %{{.*}} : f32 to vector<8xf32>
// CHECK:             %[[W:.*]] = vector.load %{{.*}}[%{{.*}}] : memref<2304xf32>, vector<8xf32>
// CHECK-NEXT:        math.fma %[[IN]], %[[W]], %{{.*}} : vector<8xf32>
// CHECK-NOT:   math.fma {{.*}} : f32
// CHECK:         vector.store %{{.*}}, %{{.*}}[%{{.*}}] : memref<384xf32>, vector<8xf32>
// CHECK-NOT:   math.fma {{.*}} : f32
// CHECK:       func.func @k1_nn_conv2d(
// CHECK-NOT:   math.fma {{.*}} : f32
// CHECK:         scf.for {{.*}} iter_args({{.*}}) -> (vector<4xf32>
// CHECK:           vector.load %{{.*}}[%{{.*}}] : memref<{{[0-9]+}}xf32>, vector<4xf32>
// CHECK-NEXT:      math.fma %{{.*}}, %{{.*}}, %{{.*}} : vector<4xf32>
// CHECK-NOT:   math.fma {{.*}} : f32
// CHECK:         vector.store %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}] : memref<25x{{[0-9]+}}xf32>, vector<4xf32>
// CHECK:       func.func @k2_nn_contrib_conv2d_NCHWc(
// CHECK-NOT:   vector<8xf32>
// CHECK:         math.fma %{{.*}}, %{{.*}}, %{{.*}} : f32
// CHECK-NOT:   vector<8xf32>
// CHECK:       func.func @main(
