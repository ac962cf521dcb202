// RUN: xrelay-opt %s -p relay-to-kernels --split-input-file | filecheck %s
// RUN: xrelay-opt %s -p relay-lower-to-llvm --split-input-file | filecheck %s --check-prefix=LLVM
// RUN: xrelay-opt %s -p relay-lower-to-llvm -t llvm --split-input-file | filecheck %s --check-prefix=IR

// A dense whose weight stays plain [N, K] (7 outputs: no block divides them) runs
// on vectors along K: per output a vector of sums carried through the k loop
// (vector loads of a data row and a weight row, a vector FMA), its lanes added
// once (vector.reduction), then the last k after the whole vectors (19 is not a
// multiple of the lanes) one scalar FMA at a time; each output stored once.
func.func @main(%x: tensor<2x19xf32>, %w: tensor<7x19xf32>) -> tensor<2x7xf32> {
  %0 = relay.nn.dense %x, %w : (tensor<2x19xf32>, tensor<7x19xf32>) -> tensor<2x7xf32>
  func.return %0 : tensor<2x7xf32>
}

// CHECK:       func.func @k0_nn_dense
// CHECK:         vector.broadcast %{{.*}} : f32 to vector<[[L:[0-9]+]]xf32>
// CHECK:         scf.for {{.*}} iter_args
// CHECK:           vector.load %{{.*}}[%{{.*}}] : memref<38xf32>, vector<[[L]]xf32>
// CHECK:           vector.load %{{.*}}[%{{.*}}] : memref<133xf32>, vector<[[L]]xf32>
// CHECK:           math.fma %{{.*}}, %{{.*}}, %{{.*}} : vector<[[L]]xf32>
// CHECK:         vector.reduction <add>, %{{.*}}, %{{.*}} : vector<[[L]]xf32> into f32
// CHECK:         scf.for {{.*}} iter_args
// CHECK:           memref.load %{{.*}}[%{{.*}}] : memref<38xf32>
// CHECK:           math.fma %{{.*}}, %{{.*}}, %{{.*}} : f32
// CHECK:         memref.store %{{.*}}, %{{.*}}[%{{.*}}] : memref<14xf32>
// CHECK-NOT:     vector.store

// Lowered: the lanes added pairwise by halves (shuffles and vector adds down to
// one lane), that lane onto the accumulator.
// LLVM:        llvm.func @k0_nn_dense
// LLVM:          llvm.load %{{.*}} {alignment = 4 : i64} : !llvm.ptr -> vector<{{[0-9]+}}xf32>
// LLVM:          llvm.shufflevector
// LLVM:          llvm.fadd %{{.*}}, %{{.*}} : vector<{{[0-9]+}}xf32>
// LLVM:          "llvm.intr.vector.reduce.fadd"(%{{.*}}, %{{.*}}) {{.*}} : (f32, vector<1xf32>) -> f32

// IR:          call float @"llvm.vector.reduce.fadd.v1f32"(float

// -----

// Integer operands keep one dot product per output (no vectors).
func.func @main(%x: tensor<2x19xi32>, %w: tensor<7x19xi32>) -> tensor<2x7xi32> {
  %0 = relay.nn.dense %x, %w : (tensor<2x19xi32>, tensor<7x19xi32>) -> tensor<2x7xi32>
  func.return %0 : tensor<2x7xi32>
}

// CHECK:       func.func @k0_nn_dense
// CHECK-NOT:     vector
// CHECK:         arith.muli
// CHECK-NOT:     vector
// LLVM:        llvm.func @k0_nn_dense
// LLVM-NOT:      llvm.intr.vector.reduce

// -----

// One query row against 5 keys (y given as [B, N, K]): y is read along K by the
// dot-product tiles; it is not copied into [B, K, N] (no scalar copy loop before
// the vector loads).
func.func @main(%q: tensor<2x1x16xf32>, %k: tensor<2x5x16xf32>) -> tensor<2x1x5xf32> {
  %0 = relay.nn.batch_matmul %q, %k : (tensor<2x1x16xf32>, tensor<2x5x16xf32>) -> tensor<2x1x5xf32>
  func.return %0 : tensor<2x1x5xf32>
}

// CHECK:       func.func @k0_nn_batch_matmul
// CHECK-NOT:     memref.store
// CHECK:         vector.load %{{.*}}[%{{.*}}] : memref<32xf32>, vector<[[L2:[0-9]+]]xf32>
// CHECK:         vector.load %{{.*}}[%{{.*}}] : memref<160xf32>, vector<[[L2]]xf32>
// CHECK:         vector.reduction <add>
// CHECK:         memref.store %{{.*}}, %{{.*}}[%{{.*}}] : memref<10xf32>
// LLVM:        llvm.func @k0_nn_batch_matmul
// LLVM:          "llvm.intr.vector.reduce.fadd"
