// RUN: xrelay-opt %s -p simplify-inference --split-input-file | filecheck %s

// Relay's test_simplify_batchnorm: data * s + t with s = 1/sqrt(var + eps) * gamma
// and t = -mean * s + beta, both expanded to broadcast along axis 1 of a rank-4
// tensor.
// CHECK-LABEL: func.func @batch_norm
// CHECK-NEXT:    %[[EPS:.*]] = relay.constant dense<1.000000e-03> : tensor<f32>
// CHECK-NEXT:    %[[VE:.*]] = relay.add %var, %[[EPS]] : (tensor<3xf32>, tensor<f32>) -> tensor<3xf32>
// CHECK-NEXT:    %[[ONE:.*]] = relay.constant dense<1.000000e+00> : tensor<f32>
// CHECK-NEXT:    %[[SQ:.*]] = relay.sqrt %[[VE]]
// CHECK-NEXT:    %[[INV:.*]] = relay.divide %[[ONE]], %[[SQ]] : (tensor<f32>, tensor<3xf32>) -> tensor<3xf32>
// CHECK-NEXT:    %[[S:.*]] = relay.multiply %[[INV]], %gamma
// CHECK-NEXT:    %[[NM:.*]] = relay.negative %mean
// CHECK-NEXT:    %[[T0:.*]] = relay.multiply %[[NM]], %[[S]]
// CHECK-NEXT:    %[[T:.*]] = relay.add %[[T0]], %beta
// CHECK-NEXT:    %[[SE:.*]] = relay.expand_dims %[[S]] {axis = 1 : i64, num_newaxis = 2 : i64} : (tensor<3xf32>) -> tensor<3x1x1xf32>
// CHECK-NEXT:    %[[Y:.*]] = relay.multiply %x, %[[SE]] : (tensor<1x3x4x4xf32>, tensor<3x1x1xf32>) -> tensor<1x3x4x4xf32>
// CHECK-NEXT:    %[[TE:.*]] = relay.expand_dims %[[T]] {axis = 1 : i64, num_newaxis = 2 : i64}
// CHECK-NEXT:    %[[OUT:.*]] = relay.add %[[Y]], %[[TE]] : (tensor<1x3x4x4xf32>, tensor<3x1x1xf32>) -> tensor<1x3x4x4xf32>
// CHECK-NEXT:    func.return %[[OUT]] : tensor<1x3x4x4xf32>
// CHECK-NOT:   relay.nn.batch_norm
func.func @batch_norm(%x: tensor<1x3x4x4xf32>, %gamma: tensor<3xf32>, %beta: tensor<3xf32>, %mean: tensor<3xf32>, %var: tensor<3xf32>) -> tensor<1x3x4x4xf32> {
  %0, %1, %2 = relay.nn.batch_norm %x, %gamma, %beta, %mean, %var {epsilon = 1.0e-03 : f64} : (tensor<1x3x4x4xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> (tensor<1x3x4x4xf32>, tensor<3xf32>, tensor<3xf32>)
  func.return %0 : tensor<1x3x4x4xf32>
}

// -----

// The channel axis is last: no expand_dims; scale=false / center=false drop
// gamma / beta.
// CHECK-LABEL: func.func @batch_norm_last_axis
// CHECK-SAME:    -> tensor<2x5xf32> {
// CHECK-NOT:     relay.expand_dims
// CHECK-NOT:     %gamma
// CHECK-NOT:     %beta
// CHECK:         relay.multiply %x, %{{.*}} : (tensor<2x5xf32>, tensor<5xf32>) -> tensor<2x5xf32>
// CHECK-NOT:     relay.nn.batch_norm
func.func @batch_norm_last_axis(%x: tensor<2x5xf32>, %gamma: tensor<5xf32>, %beta: tensor<5xf32>, %mean: tensor<5xf32>, %var: tensor<5xf32>) -> tensor<2x5xf32> {
  %0, %1, %2 = relay.nn.batch_norm %x, %gamma, %beta, %mean, %var {axis = -1 : i64, scale = false, center = false} : (tensor<2x5xf32>, tensor<5xf32>, tensor<5xf32>, tensor<5xf32>, tensor<5xf32>) -> (tensor<2x5xf32>, tensor<5xf32>, tensor<5xf32>)
  func.return %0 : tensor<2x5xf32>
}

// -----

// Results 1 and 2 used: result 0 is rewritten, the op stays for the others.
// CHECK-LABEL: func.func @batch_norm_stats_used
// CHECK:         %[[OUT:.*]] = relay.add %{{.*}} : (tensor<1x2xf32>, tensor<2xf32>) -> tensor<1x2xf32>
// CHECK-NEXT:    %{{.*}}, %[[M:.*]], %{{.*}} = relay.nn.batch_norm
// CHECK-NEXT:    func.return %[[OUT]], %[[M]]
func.func @batch_norm_stats_used(%x: tensor<1x2xf32>, %g: tensor<2xf32>, %b: tensor<2xf32>, %m: tensor<2xf32>, %v: tensor<2xf32>) -> (tensor<1x2xf32>, tensor<2xf32>) {
  %0, %1, %2 = relay.nn.batch_norm %x, %g, %b, %m, %v : (tensor<1x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> (tensor<1x2xf32>, tensor<2xf32>, tensor<2xf32>)
  func.return %0, %1 : tensor<1x2xf32>, tensor<2xf32>
}

// -----

// Dropout's output is its input.
// CHECK-LABEL: func.func @dropout
// CHECK-NEXT:    %[[R:.*]] = relay.nn.relu %x
// CHECK-NEXT:    func.return %[[R]]
func.func @dropout(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0, %1 = relay.nn.dropout %x : (tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>)
  %2 = relay.nn.relu %0 : (tensor<2x3xf32>) -> tensor<2x3xf32>
  func.return %2 : tensor<2x3xf32>
}

// -----

// layer_norm: statistics over the last axis, gamma and beta without expand_dims.
// CHECK-LABEL: func.func @layer_norm
// CHECK-NEXT:    %[[MEAN:.*]] = relay.mean %x {axis = array<i64: 2>, keepdims = true} : (tensor<2x3x4xf32>) -> tensor<2x3x1xf32>
// CHECK-NEXT:    %[[VAR:.*]] = relay.variance %x, %[[MEAN]] {axis = array<i64: 2>, keepdims = true} : (tensor<2x3x4xf32>, tensor<2x3x1xf32>) -> tensor<2x3x1xf32>
// CHECK-NEXT:    %[[EPS:.*]] = relay.constant dense<1.000000e-05> : tensor<f32>
// CHECK-NEXT:    %[[VE:.*]] = relay.add %[[VAR]], %[[EPS]]
// CHECK-NEXT:    %[[DEN:.*]] = relay.sqrt %[[VE]]
// CHECK-NEXT:    %[[C:.*]] = relay.subtract %x, %[[MEAN]]
// CHECK-NEXT:    %[[N:.*]] = relay.divide %[[C]], %[[DEN]]
// CHECK-NEXT:    %[[G:.*]] = relay.multiply %[[N]], %gamma : (tensor<2x3x4xf32>, tensor<4xf32>) -> tensor<2x3x4xf32>
// CHECK-NEXT:    %[[B:.*]] = relay.add %[[G]], %beta : (tensor<2x3x4xf32>, tensor<4xf32>) -> tensor<2x3x4xf32>
// CHECK-NEXT:    func.return %[[B]]
func.func @layer_norm(%x: tensor<2x3x4xf32>, %gamma: tensor<4xf32>, %beta: tensor<4xf32>) -> tensor<2x3x4xf32> {
  %0 = relay.nn.layer_norm %x, %gamma, %beta : (tensor<2x3x4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<2x3x4xf32>
  func.return %0 : tensor<2x3x4xf32>
}

// -----

// group_norm: reshape C into (groups, C/groups), normalise over it and H, W,
// reshape back, then gamma/beta along axis 1.
// CHECK-LABEL: func.func @group_norm
// CHECK-NEXT:    %[[R:.*]] = relay.reshape %x {newshape = array<i64: 1, 2, 2, 3, 3>} : (tensor<1x4x3x3xf32>) -> tensor<1x2x2x3x3xf32>
// CHECK-NEXT:    relay.mean %[[R]] {axis = array<i64: 2, 3, 4>, keepdims = true}
// CHECK:         relay.reshape %{{.*}} {newshape = array<i64: 1, 4, 3, 3>} : (tensor<1x2x2x3x3xf32>) -> tensor<1x4x3x3xf32>
// CHECK-NEXT:    relay.expand_dims %gamma {axis = 1 : i64, num_newaxis = 2 : i64}
// CHECK:         relay.expand_dims %beta {axis = 1 : i64, num_newaxis = 2 : i64}
// CHECK-NOT:     relay.nn.group_norm
func.func @group_norm(%x: tensor<1x4x3x3xf32>, %gamma: tensor<4xf32>, %beta: tensor<4xf32>) -> tensor<1x4x3x3xf32> {
  %0 = relay.nn.group_norm %x, %gamma, %beta {num_groups = 2 : i64} : (tensor<1x4x3x3xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<1x4x3x3xf32>
  func.return %0 : tensor<1x4x3x3xf32>
}

// -----

// instance_norm: statistics over every axis but the batch and channel axes.
// CHECK-LABEL: func.func @instance_norm
// CHECK-NEXT:    relay.mean %x {axis = array<i64: 2, 3>, keepdims = true}
// CHECK-NOT:     relay.nn.instance_norm
func.func @instance_norm(%x: tensor<2x4x3x3xf32>, %gamma: tensor<4xf32>, %beta: tensor<4xf32>) -> tensor<2x4x3x3xf32> {
  %0 = relay.nn.instance_norm %x, %gamma, %beta : (tensor<2x4x3x3xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<2x4x3x3xf32>
  func.return %0 : tensor<2x4x3x3xf32>
}

// -----

// l2_normalize: x / sqrt(max(sum(x * x), eps)).
// CHECK-LABEL: func.func @l2_normalize
// CHECK-NEXT:    %[[SQ:.*]] = relay.multiply %x, %x
// CHECK-NEXT:    %[[SUM:.*]] = relay.sum %[[SQ]] {axis = array<i64: 1>, keepdims = true} : (tensor<2x3xf32>) -> tensor<2x1xf32>
// CHECK-NEXT:    %[[EPS:.*]] = relay.constant dense<1.000000e-03> : tensor<f32>
// CHECK-NEXT:    %[[MAX:.*]] = relay.maximum %[[SUM]], %[[EPS]]
// CHECK-NEXT:    %[[ROOT:.*]] = relay.sqrt %[[MAX]]
// CHECK-NEXT:    %[[OUT:.*]] = relay.divide %x, %[[ROOT]] : (tensor<2x3xf32>, tensor<2x1xf32>) -> tensor<2x3xf32>
// CHECK-NEXT:    func.return %[[OUT]]
func.func @l2_normalize(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = relay.nn.l2_normalize %x {eps = 1.0e-03 : f64, axis = array<i64: 1>} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  func.return %0 : tensor<2x3xf32>
}

// -----

// Does not fire: other ops, a dropout whose output is unused, a group_norm on a
// dynamic shape.
// CHECK-LABEL: func.func @untouched
// CHECK-NEXT:    %0 = relay.nn.softmax %x
// CHECK-NEXT:    %1, %2 = relay.nn.dropout %x
// CHECK-NEXT:    %3 = relay.nn.group_norm %y, %g, %g {num_groups = 2 : i64}
// CHECK-NEXT:    func.return %0, %2, %3
func.func @untouched(%x: tensor<2x3xf32>, %y: tensor<?x4xf32>, %g: tensor<4xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>, tensor<?x4xf32>) {
  %0 = relay.nn.softmax %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %1, %2 = relay.nn.dropout %x : (tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>)
  %3 = relay.nn.group_norm %y, %g, %g {num_groups = 2 : i64} : (tensor<?x4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<?x4xf32>
  func.return %0, %2, %3 : tensor<2x3xf32>, tensor<2x3xf32>, tensor<?x4xf32>
}
