// RUN: env XRELAY_TILE_ROWS=3 xrelay-opt %s -p relay-to-kernels | filecheck %s

// A row of 7 outputs cut by tiles of at most 3 pixels runs one tile of 3, then two
// tiles of 2 (tiling.row_pieces): no tile overlaps another, so the row is summed
// in passes over 2 of the 4 input-channel blocks at a time (their weights fit
// CONV_CHUNK_BYTES), each tile loading the sums the pass before it stored. (With
// an overlapping last tile, a pass would add its sums twice to the outputs both
// tiles write, and the row took one pass over every block.) One output block of
// 8 channels: one block a tile on any host.
func.func @main(%x: tensor<1x4x5x7x8xf32>, %w: tensor<1x4x3x3x8x8xf32>) -> tensor<1x1x5x7x8xf32> {
  %0 = relay.nn.contrib_conv2d_NCHWc %x, %w {padding = array<i64: 1, 1, 1, 1>, data_layout = "NCHW8c", kernel_layout = "OIHW8i8o", out_layout = "NCHW8c"} : (tensor<1x4x5x7x8xf32>, tensor<1x4x3x3x8x8xf32>) -> tensor<1x1x5x7x8xf32>
  func.return %0 : tensor<1x1x5x7x8xf32>
}

// CHECK:       func.func @k0_nn_contrib_conv2d_NCHWc(
// CHECK-DAG:     %[[C2:.*]] = arith.constant 2 : index
// CHECK-DAG:     %[[C3:.*]] = arith.constant 3 : index
// CHECK-DAG:     %[[C4:.*]] = arith.constant 4 : index
// CHECK-DAG:     %[[C7:.*]] = arith.constant 7 : index
// the outputs are zeroed, then one pass per 2 input blocks
// CHECK:         memref.store %{{.*}} : memref<1x1x5x7x8xf32>
// CHECK:         scf.for %{{.*}} = %{{.*}} to %[[C4]] step %[[C2]] {
// the tile of 3 pixels (columns 0-2) starts from the sums stored so far
// CHECK:           vector.load %{{.*}} : memref<280xf32>, vector<8xf32>
// CHECK:           vector.load %{{.*}} : memref<280xf32>, vector<8xf32>
// CHECK:           vector.load %{{.*}} : memref<280xf32>, vector<8xf32>
// CHECK-NEXT:      arith.subi
// CHECK:           scf.for {{.*}} -> (vector<8xf32>, vector<8xf32>, vector<8xf32>, index, index, index) {
// CHECK:           vector.store %{{.*}} : memref<280xf32>, vector<8xf32>
// then the tiles of 2 pixels, columns 3-4 and 5-6
// CHECK:           scf.for %{{.*}} = %[[C3]] to %[[C7]] step %[[C2]] {
// CHECK:             vector.load %{{.*}} : memref<280xf32>, vector<8xf32>
// CHECK:             vector.load %{{.*}} : memref<280xf32>, vector<8xf32>
// CHECK:             scf.for {{.*}} -> (vector<8xf32>, vector<8xf32>, index, index, index) {
// no third tile size, no tile of more than 3 pixels
// CHECK-NOT:     -> (vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>
// CHECK-NOT:     scf.for %{{.*}} = %{{.*}} to %[[C7]] step %[[C3]]
// CHECK:       func.func @main(
