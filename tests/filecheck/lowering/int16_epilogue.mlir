// REQUIRES: x86
// RUN: xrelay-opt %s -p relay-to-kernels | filecheck %s

// An int16 convolution (pmaddwd pair products) followed by a requantize to 8 bits
// in int16 (bias, scale, round, clip, cast): the convolution writes the kernel's
// int16 output itself, applying the requantize as its epilogue while the sums are
// hot. Each tile's int32 sums are staged in the iteration's slice of a small
// scratch buffer ([iterations, tile, 16] int32), and one loop over the tile reads
// them back, applies the epilogue and stores int16; no int32 buffer of the whole
// output exists. The scale (a scalar constant of a quantized kernel) is an argument,
// a one-element weight loaded once before the loops, so that layers differing only
// in their scales share the kernel.
func.func private @fused_requantized_conv(%p0: tensor<1x1x4x6x16xi16>, %p1: tensor<1x1x3x3x16x16xi16>, %p2: tensor<1x1x1x1x16xi32>) -> tensor<1x1x4x6x16xi16> attributes {relay.primitive} {
  %0 = relay.nn.contrib_conv2d_NCHWc %p0, %p1 {padding = array<i64: 1, 1, 1, 1>, data_layout = "NCHW16c", kernel_layout = "OIHW16i16o", out_layout = "NCHW16c", out_dtype = i32} : (tensor<1x1x4x6x16xi16>, tensor<1x1x3x3x16x16xi16>) -> tensor<1x1x4x6x16xi32>
  %1 = relay.add %0, %p2 : (tensor<1x1x4x6x16xi32>, tensor<1x1x1x1x16xi32>) -> tensor<1x1x4x6x16xi32>
  %2 = relay.cast %1 {dtype = f32} : (tensor<1x1x4x6x16xi32>) -> tensor<1x1x4x6x16xf32>
  %s = relay.constant dense<0.01> : tensor<f32>
  %3 = relay.multiply %2, %s : (tensor<1x1x4x6x16xf32>, tensor<f32>) -> tensor<1x1x4x6x16xf32>
  %4 = relay.round %3 : (tensor<1x1x4x6x16xf32>) -> tensor<1x1x4x6x16xf32>
  %5 = relay.clip %4 {a_min = 0.0 : f64, a_max = 255.0 : f64} : (tensor<1x1x4x6x16xf32>) -> tensor<1x1x4x6x16xf32>
  %6 = relay.cast %5 {dtype = i16} : (tensor<1x1x4x6x16xf32>) -> tensor<1x1x4x6x16xi16>
  func.return %6 : tensor<1x1x4x6x16xi16>
}
func.func @main(%x: tensor<1x1x4x6x16xi16>, %w: tensor<1x1x3x3x16x16xi16>, %b: tensor<1x1x1x1x16xi32>) -> tensor<1x1x4x6x16xi16> {
  %0 = func.call @fused_requantized_conv(%x, %w, %b) : (tensor<1x1x4x6x16xi16>, tensor<1x1x3x3x16x16xi16>, tensor<1x1x1x1x16xi32>) -> tensor<1x1x4x6x16xi16>
  func.return %0 : tensor<1x1x4x6x16xi16>
}

// CHECK:       func.func @k0_fused_requantized_conv(%0: memref<1x1x4x6x16xi16> {{.*}}, %1: memref<1x1x3x3x16x16xi16> {{.*}}, %2: memref<1x1x1x1x16xi32> {{.*}}, %3: memref<f32> {{.*}}, %4: memref<1x1x4x6x16xi16> {{.*}}, %5: memref<[[SLOTS:[0-9]+]]x[[TILE:[0-9]+]]x16xi32> {{.*}}, %tid: index
// CHECK-NOT:   memref<1x1x4x6x16xi32>
// CHECK-NOT:   scf.for
// CHECK:         %[[SCALE:.*]] = memref.load %3[] : memref<f32>
// CHECK:         llvm.call_intrinsic "llvm.x86.{{.*}}pmadd{{.*}}"
// CHECK:         vector.store %{{.*}}, %5[%{{.*}}, %{{.*}}, %{{.*}}] : memref<[[SLOTS]]x[[TILE]]x16xi32>, vector<{{[0-9]+}}xi32>
// CHECK:         scf.for
// CHECK-NEXT:      scf.for
// CHECK-NEXT:        %[[S:.*]] = memref.load %5[%{{.*}}, %{{.*}}, %{{.*}}] : memref<[[SLOTS]]x[[TILE]]x16xi32>
// CHECK:             arith.sitofp
// CHECK:             arith.mulf %{{.*}}, %[[SCALE]]
// CHECK:             arith.fptosi
// CHECK:             memref.store %{{.*}}, %4[%{{.*}}] : memref<1x1x4x6x16xi16>
// CHECK:       func.func @main(
