// RUN: XRELAY_ROUNDTRIP
// RUN: XRELAY_GENERIC_ROUNDTRIP

// CHECK-LABEL: func.func @batch_norm
// CHECK-GENERIC-LABEL: "func.func"() <{sym_name = "batch_norm"
func.func @batch_norm(%x: tensor<2x3x4x4xf32>, %g: tensor<3xf32>, %b: tensor<3xf32>, %m: tensor<3xf32>, %v: tensor<3xf32>, %y: tensor<2x4x4x3xf32>) -> tensor<2x3x4x4xf32> {
  // CHECK: %0, %1, %2 = relay.nn.batch_norm %x, %g, %b, %m, %v : (tensor<2x3x4x4xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> (tensor<2x3x4x4xf32>, tensor<3xf32>, tensor<3xf32>)
  // CHECK-GENERIC: %0, %1, %2 = "relay.nn.batch_norm"(%x, %g, %b, %m, %v) <{axis = 1 : i64, epsilon = 1.000000e-05 : f64, center = true, scale = true}> : (tensor<2x3x4x4xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> (tensor<2x3x4x4xf32>, tensor<3xf32>, tensor<3xf32>)
  %0, %1, %2 = relay.nn.batch_norm %x, %g, %b, %m, %v : (tensor<2x3x4x4xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> (tensor<2x3x4x4xf32>, tensor<3xf32>, tensor<3xf32>)
  // CHECK: %3, %4, %5 = relay.nn.batch_norm %y, %g, %b, %m, %v {axis = -1 : i64, epsilon = 1.000000e-03 : f64, center = false, scale = false} : (tensor<2x4x4x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> (tensor<2x4x4x3xf32>, tensor<3xf32>, tensor<3xf32>)
  // CHECK-GENERIC: "relay.nn.batch_norm"(%y, %g, %b, %m, %v) <{axis = -1 : i64, epsilon = 1.000000e-03 : f64, center = false, scale = false}>
  %3, %4, %5 = relay.nn.batch_norm %y, %g, %b, %m, %v {axis = -1 : i64, epsilon = 1.0e-03 : f64, center = false, scale = false} : (tensor<2x4x4x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> (tensor<2x4x4x3xf32>, tensor<3xf32>, tensor<3xf32>)
  // an incomplete (unranked) result type is accepted
  // CHECK: %6, %7, %8 = relay.nn.batch_norm %x, %g, %b, %m, %v : (tensor<2x3x4x4xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> (tensor<*xf32>, tensor<3xf32>, tensor<*xf32>)
  %6, %7, %8 = relay.nn.batch_norm %x, %g, %b, %m, %v : (tensor<2x3x4x4xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> (tensor<*xf32>, tensor<3xf32>, tensor<*xf32>)
  func.return %0 : tensor<2x3x4x4xf32>
}

// -----

// CHECK-LABEL: func.func @layer_norm
func.func @layer_norm(%x: tensor<2x5xf32>, %g: tensor<5xf32>, %h: tensor<2xf32>) -> tensor<2x5xf32> {
  // CHECK: %0 = relay.nn.layer_norm %x, %g, %g : (tensor<2x5xf32>, tensor<5xf32>, tensor<5xf32>) -> tensor<2x5xf32>
  // CHECK-GENERIC: %0 = "relay.nn.layer_norm"(%x, %g, %g) <{axis = -1 : i64, epsilon = 1.000000e-05 : f64, center = true, scale = true}> : (tensor<2x5xf32>, tensor<5xf32>, tensor<5xf32>) -> tensor<2x5xf32>
  %0 = relay.nn.layer_norm %x, %g, %g : (tensor<2x5xf32>, tensor<5xf32>, tensor<5xf32>) -> tensor<2x5xf32>
  // CHECK: %1 = relay.nn.layer_norm %x, %h, %h {axis = 0 : i64, epsilon = 1.000000e-06 : f64, scale = false} : (tensor<2x5xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<2x5xf32>
  // CHECK-GENERIC: "relay.nn.layer_norm"(%x, %h, %h) <{axis = 0 : i64, epsilon = 1.000000e-06 : f64, scale = false
  %1 = relay.nn.layer_norm %x, %h, %h {axis = 0 : i64, epsilon = 1.0e-06 : f64, scale = false} : (tensor<2x5xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<2x5xf32>
  func.return %0 : tensor<2x5xf32>
}

// -----

// CHECK-LABEL: func.func @group_norm
func.func @group_norm(%x: tensor<2x6x4x4xf32>, %g: tensor<6xf32>, %y: tensor<2x4x6xf64>, %h: tensor<6xf64>) -> tensor<2x6x4x4xf32> {
  // CHECK: %0 = relay.nn.group_norm %x, %g, %g {num_groups = 3 : i64} : (tensor<2x6x4x4xf32>, tensor<6xf32>, tensor<6xf32>) -> tensor<2x6x4x4xf32>
  // CHECK-GENERIC: %0 = "relay.nn.group_norm"(%x, %g, %g) <{num_groups = 3 : i64
  %0 = relay.nn.group_norm %x, %g, %g {num_groups = 3 : i64} : (tensor<2x6x4x4xf32>, tensor<6xf32>, tensor<6xf32>) -> tensor<2x6x4x4xf32>
  // CHECK: %1 = relay.nn.group_norm %y, %h, %h {num_groups = 2 : i64, axis = -1 : i64, center = false} : (tensor<2x4x6xf64>, tensor<6xf64>, tensor<6xf64>) -> tensor<2x4x6xf64>
  %1 = relay.nn.group_norm %y, %h, %h {num_groups = 2 : i64, axis = -1 : i64, center = false} : (tensor<2x4x6xf64>, tensor<6xf64>, tensor<6xf64>) -> tensor<2x4x6xf64>
  func.return %0 : tensor<2x6x4x4xf32>
}

// -----

// CHECK-LABEL: func.func @instance_norm
func.func @instance_norm(%x: tensor<2x3x4x4xf32>, %g: tensor<3xf32>, %y: tensor<2x4x4x3xf32>) -> tensor<2x3x4x4xf32> {
  // CHECK: %0 = relay.nn.instance_norm %x, %g, %g : (tensor<2x3x4x4xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<2x3x4x4xf32>
  // CHECK-GENERIC: %0 = "relay.nn.instance_norm"(%x, %g, %g) <{axis = 1 : i64
  %0 = relay.nn.instance_norm %x, %g, %g : (tensor<2x3x4x4xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<2x3x4x4xf32>
  // CHECK: %1 = relay.nn.instance_norm %y, %g, %g {axis = 3 : i64, epsilon = 1.000000e-03 : f64} : (tensor<2x4x4x3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<2x4x4x3xf32>
  %1 = relay.nn.instance_norm %y, %g, %g {axis = 3 : i64, epsilon = 1.0e-03 : f64} : (tensor<2x4x4x3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<2x4x4x3xf32>
  func.return %0 : tensor<2x3x4x4xf32>
}

// -----

// CHECK-LABEL: func.func @l2_normalize
func.func @l2_normalize(%x: tensor<2x3x4xf32>) -> tensor<2x3x4xf32> {
  // CHECK: %0 = relay.nn.l2_normalize %x {eps = 1.000000e-10 : f64} : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  // CHECK-GENERIC: %0 = "relay.nn.l2_normalize"(%x) <{eps = 1.000000e-10 : f64}> : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  %0 = relay.nn.l2_normalize %x {eps = 1.0e-10 : f64} : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  // CHECK: %1 = relay.nn.l2_normalize %x {eps = 1.000000e-05 : f64, axis = array<i64: 1, -1>} : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  // CHECK-GENERIC: "relay.nn.l2_normalize"(%x) <{eps = 1.000000e-05 : f64, axis = array<i64: 1, -1>}>
  %1 = relay.nn.l2_normalize %x {eps = 1.0e-05 : f64, axis = array<i64: 1, -1>} : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  func.return %0 : tensor<2x3x4xf32>
}

// -----

// CHECK-LABEL: func.func @lrn
func.func @lrn(%x: tensor<2x6x4x4xf32>) -> tensor<2x6x4x4xf32> {
  // CHECK: %0 = relay.nn.lrn %x : (tensor<2x6x4x4xf32>) -> tensor<2x6x4x4xf32>
  // CHECK-GENERIC: %0 = "relay.nn.lrn"(%x) <{size = 5 : i64, axis = 1 : i64, bias = 2.000000e+00 : f64, alpha = 1.000000e-05 : f64, beta = 7.500000e-01 : f64}>
  %0 = relay.nn.lrn %x : (tensor<2x6x4x4xf32>) -> tensor<2x6x4x4xf32>
  // CHECK: %1 = relay.nn.lrn %x {size = 3 : i64, axis = -1 : i64, bias = 1.000000e+00 : f64, alpha = 1.000000e-04 : f64, beta = 5.000000e-01 : f64} : (tensor<2x6x4x4xf32>) -> tensor<2x6x4x4xf32>
  %1 = relay.nn.lrn %x {size = 3 : i64, axis = -1 : i64, bias = 1.0 : f64, alpha = 1.0e-04 : f64, beta = 0.5 : f64} : (tensor<2x6x4x4xf32>) -> tensor<2x6x4x4xf32>
  func.return %0 : tensor<2x6x4x4xf32>
}
