// RUN: xrelay-opt %s -p alter-op-layout --split-input-file | filecheck %s
// RUN: xrelay-opt %s -p 'alter-op-layout{target="cuda"}' --split-input-file | filecheck %s --check-prefix=GPU

// A dense whose units no block divides (35, as GPT-2's 50257) with a constant
// weight of at least 1 MiB: the leading 32 units (two blocks of 16) become a dense
// packed NC16n, the 3 after them a dense of their own, each with its slice of the
// weight, joined along the units axis (the last). N-D data keeps its leading dims; units and
// out_dtype are carried to both parts.
// CHECK-LABEL: func.func @ragged
// CHECK-NEXT:    %[[W0:.*]] = relay.constant dense<2.500000e-01> : tensor<32x8192xf32>
// CHECK-NEXT:    %[[P0:.*]] = relay.layout_transform %[[W0]] {src_layout = "NC", dst_layout = "NC16n"} : (tensor<32x8192xf32>) -> tensor<2x8192x16xf32>
// CHECK-NEXT:    %[[D0:.*]] = relay.nn.contrib_dense_pack %x, %[[P0]] {out_dtype = f64, units = 32 : i64, weight_layout = "NC16n"} : (tensor<2x3x8192xf32>, tensor<2x8192x16xf32>) -> tensor<2x3x32xf64>
// CHECK-NEXT:    %[[W1:.*]] = relay.constant dense<2.500000e-01> : tensor<3x8192xf32>
// CHECK-NEXT:    %[[D1:.*]] = relay.nn.dense %x, %[[W1]] {out_dtype = f64, units = 3 : i64} : (tensor<2x3x8192xf32>, tensor<3x8192xf32>) -> tensor<2x3x3xf64>
// CHECK-NEXT:    %[[C:.*]] = relay.concatenate %[[D0]], %[[D1]] {axis = 2 : i64} : (tensor<2x3x32xf64>, tensor<2x3x3xf64>) -> tensor<2x3x35xf64>
// CHECK-NEXT:    func.return %[[C]]
// GPU-LABEL: func.func @ragged
// GPU-NEXT:    relay.constant
// GPU-NEXT:    relay.nn.dense
// GPU-NEXT:    func.return
func.func @ragged(%x: tensor<2x3x8192xf32>) -> tensor<2x3x35xf64> {
  %w = relay.constant dense<0.25> : tensor<35x8192xf32>
  %0 = relay.nn.dense %x, %w {units = 35 : i64, out_dtype = f64} : (tensor<2x3x8192xf32>, tensor<35x8192xf32>) -> tensor<2x3x35xf64>
  func.return %0 : tensor<2x3x35xf64>
}

// -----

// Left alone: a weight that is not a constant (splitting it would copy it on every
// run), fewer units than a block (15), units a block divides (48: packed whole), a
// weight under 1 MiB (35 x 8: in the caches, the plain kernel keeps its epilogue).
// CHECK-LABEL: func.func @kept
// CHECK-NEXT:    %0 = relay.nn.dense %x, %w : (tensor<1x8xf32>, tensor<35x8xf32>) -> tensor<1x35xf32>
// CHECK-NEXT:    %c = relay.constant
// CHECK-NEXT:    %1 = relay.nn.dense %x, %c : (tensor<1x8xf32>, tensor<15x8xf32>) -> tensor<1x15xf32>
// CHECK-NEXT:    %c_1 = relay.constant
// CHECK-NEXT:    %2 = relay.layout_transform %c_1 {src_layout = "NC", dst_layout = "NC16n"}
// CHECK-NEXT:    %3 = relay.nn.contrib_dense_pack
// CHECK-NEXT:    %c_2 = relay.constant
// CHECK-NEXT:    %4 = relay.nn.dense %x, %c_2 : (tensor<1x8xf32>, tensor<35x8xf32>) -> tensor<1x35xf32>
// CHECK-NOT:     relay.concatenate
func.func @kept(%x: tensor<1x8xf32>, %w: tensor<35x8xf32>) -> (tensor<1x35xf32>, tensor<1x15xf32>, tensor<1x48xf32>, tensor<1x35xf32>) {
  %0 = relay.nn.dense %x, %w : (tensor<1x8xf32>, tensor<35x8xf32>) -> tensor<1x35xf32>
  %c = relay.constant dense<0.25> : tensor<15x8xf32>
  %1 = relay.nn.dense %x, %c : (tensor<1x8xf32>, tensor<15x8xf32>) -> tensor<1x15xf32>
  %c_1 = relay.constant dense<0.25> : tensor<48x8xf32>
  %2 = relay.nn.dense %x, %c_1 : (tensor<1x8xf32>, tensor<48x8xf32>) -> tensor<1x48xf32>
  %c_2 = relay.constant dense<0.25> : tensor<35x8xf32>
  %3 = relay.nn.dense %x, %c_2 : (tensor<1x8xf32>, tensor<35x8xf32>) -> tensor<1x35xf32>
  func.return %0, %1, %2, %3 : tensor<1x35xf32>, tensor<1x15xf32>, tensor<1x48xf32>, tensor<1x35xf32>
}
