// RUN: xrelay-opt %s -p simplify-expr-post-alter-op --split-input-file | filecheck %s

// The subset kept after AlterOpLayout: identities, reshapes, casts, clips.

// CHECK-LABEL: func.func @kept_rewrites
// CHECK-NEXT:    %[[R:.*]] = relay.reshape %x {newshape = array<i64: 4, 3>} : (tensor<2x6xf32>) -> tensor<4x3xf32>
// CHECK-NEXT:    %[[C:.*]] = relay.cast %[[R]] {dtype = f64} : (tensor<4x3xf32>) -> tensor<4x3xf64>
// CHECK-NEXT:    func.return %[[C]]
func.func @kept_rewrites(%x: tensor<2x6xf32>) -> tensor<4x3xf64> {
  %zero = relay.constant dense<0.0> : tensor<f32>
  %0 = relay.add %x, %zero : (tensor<2x6xf32>, tensor<f32>) -> tensor<2x6xf32>
  %1 = relay.reshape %0 {newshape = array<i64: 12>} : (tensor<2x6xf32>) -> tensor<12xf32>
  %2 = relay.reshape %1 {newshape = array<i64: 4, 3>} : (tensor<12xf32>) -> tensor<4x3xf32>
  %3 = relay.cast %2 {dtype = f32} : (tensor<4x3xf32>) -> tensor<4x3xf32>
  %4 = relay.cast %3 {dtype = f64} : (tensor<4x3xf32>) -> tensor<4x3xf64>
  %5 = relay.clip %4 {a_min = -2.0e308 : f64, a_max = 2.0e308 : f64} : (tensor<4x3xf64>) -> tensor<4x3xf64>
  func.return %5 : tensor<4x3xf64>
}

// -----

// CHECK-LABEL: func.func @clip_cast_chain
// CHECK-NEXT:    %[[C:.*]] = relay.clip %x {a_min = -1.000000e+01 : f64, a_max = 1.000000e+01 : f64} : (tensor<4xi32>) -> tensor<4xi32>
// CHECK-NEXT:    %[[R:.*]] = relay.cast %[[C]] {dtype = i64} : (tensor<4xi32>) -> tensor<4xi64>
// CHECK-NEXT:    func.return %[[R]]
func.func @clip_cast_chain(%x: tensor<4xi32>) -> tensor<4xi64> {
  %0 = relay.clip %x {a_min = -10.0 : f64, a_max = 10.0 : f64} : (tensor<4xi32>) -> tensor<4xi32>
  %1 = relay.cast %0 {dtype = i8} : (tensor<4xi32>) -> tensor<4xi8>
  %2 = relay.cast %1 {dtype = i64} : (tensor<4xi8>) -> tensor<4xi64>
  func.return %2 : tensor<4xi64>
}

// -----

// Not part of the subset: x + x, transposes and *_like ops stay.
// CHECK-LABEL: func.func @not_in_subset
// CHECK-NEXT:    relay.add %x, %x
// CHECK-NEXT:    relay.transpose
// CHECK-NEXT:    relay.transpose
// CHECK-NEXT:    relay.zeros_like
// CHECK-NEXT:    func.return
func.func @not_in_subset(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = relay.add %x, %x : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %1 = relay.transpose %0 : (tensor<2x3xf32>) -> tensor<3x2xf32>
  %2 = relay.transpose %1 : (tensor<3x2xf32>) -> tensor<2x3xf32>
  %3 = relay.zeros_like %2 : (tensor<2x3xf32>) -> tensor<2x3xf32>
  func.return %3 : tensor<2x3xf32>
}
