// RUN: XRELAY_ROUNDTRIP
// RUN: XRELAY_GENERIC_ROUNDTRIP

// CHECK-LABEL: func.func @scans
// CHECK-GENERIC-LABEL: "func.func"() <{sym_name = "scans"
func.func @scans(%a: tensor<2x3x4xf32>, %n: tensor<5xi32>) -> tensor<24xf32> {
  // CHECK-NEXT: %0 = relay.cumsum %a : (tensor<2x3x4xf32>) -> tensor<24xf32>
  // CHECK-GENERIC: %0 = "relay.cumsum"(
  %0 = relay.cumsum %a : (tensor<2x3x4xf32>) -> tensor<24xf32>
  // CHECK-NEXT: %1 = relay.cumsum %a {axis = -2 : i64, exclusive = true} : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  // CHECK-GENERIC: %1 = "relay.cumsum"(
  %1 = relay.cumsum %a {axis = -2 : i64, exclusive = true} : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  // CHECK-NEXT: %2 = relay.cumsum %n {axis = 0 : i64, dtype = i64} : (tensor<5xi32>) -> tensor<5xi64>
  // CHECK-GENERIC: %2 = "relay.cumsum"(
  %2 = relay.cumsum %n {axis = 0 : i64, dtype = i64} : (tensor<5xi32>) -> tensor<5xi64>
  // CHECK-NEXT: %3 = relay.cumprod %a {axis = 2 : i64} : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  // CHECK-GENERIC: %3 = "relay.cumprod"(
  %3 = relay.cumprod %a {axis = 2 : i64} : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  func.return %0 : tensor<24xf32>
}

// CHECK-LABEL: func.func @select
// CHECK-GENERIC-LABEL: "func.func"() <{sym_name = "select"
func.func @select(%a: tensor<2x3x4xf32>) -> tensor<2x3x1xf32> {
  // CHECK-NEXT: %0 = relay.topk %a {ret_type = "values"} : (tensor<2x3x4xf32>) -> tensor<2x3x1xf32>
  // CHECK-GENERIC: %0 = "relay.topk"(
  %0 = relay.topk %a {ret_type = "values"} : (tensor<2x3x4xf32>) -> tensor<2x3x1xf32>
  // CHECK-NEXT: %1, %2 = relay.topk %a {k = 2 : i64, axis = 0 : i64, is_ascend = true, dtype = i64} : (tensor<2x3x4xf32>) -> (tensor<2x3x4xf32>, tensor<2x3x4xi64>)
  // CHECK-GENERIC: %1, %2 = "relay.topk"(
  %1, %2 = relay.topk %a {k = 2 : i64, axis = 0 : i64, is_ascend = true, dtype = i64} : (tensor<2x3x4xf32>) -> (tensor<2x3x4xf32>, tensor<2x3x4xi64>)
  // CHECK-NEXT: %3 = relay.topk %a {k = 0 : i64, ret_type = "indices"} : (tensor<2x3x4xf32>) -> tensor<2x3x4xi32>
  // CHECK-GENERIC: %3 = "relay.topk"(
  %3 = relay.topk %a {k = 0 : i64, ret_type = "indices"} : (tensor<2x3x4xf32>) -> tensor<2x3x4xi32>
  // CHECK-NEXT: %4 = relay.argsort %a {axis = 1 : i64, is_ascend = false, dtype = i64} : (tensor<2x3x4xf32>) -> tensor<2x3x4xi64>
  // CHECK-GENERIC: %4 = "relay.argsort"(
  %4 = relay.argsort %a {axis = 1 : i64, is_ascend = false, dtype = i64} : (tensor<2x3x4xf32>) -> tensor<2x3x4xi64>
  // CHECK-NEXT: %5 = relay.argsort %a : (tensor<2x3x4xf32>) -> tensor<2x3x4xi32>
  %5 = relay.argsort %a : (tensor<2x3x4xf32>) -> tensor<2x3x4xi32>
  func.return %0 : tensor<2x3x1xf32>
}

// CHECK-LABEL: func.func @contract
// CHECK-GENERIC-LABEL: "func.func"() <{sym_name = "contract"
func.func @contract(%a: tensor<2x3x4xf32>, %b: tensor<2x4x5xf32>, %m: tensor<4x4xi32>) -> tensor<2x3x5xf32> {
  // CHECK-NEXT: %0 = relay.einsum %a, %b {equation = "bij,bjk->bik"} : (tensor<2x3x4xf32>, tensor<2x4x5xf32>) -> tensor<2x3x5xf32>
  // CHECK-GENERIC: %0 = "relay.einsum"(
  %0 = relay.einsum %a, %b {equation = "bij,bjk->bik"} : (tensor<2x3x4xf32>, tensor<2x4x5xf32>) -> tensor<2x3x5xf32>
  // CHECK-NEXT: %1 = relay.einsum %m {equation = "ii"} : (tensor<4x4xi32>) -> tensor<i32>
  // CHECK-GENERIC: %1 = "relay.einsum"(
  %1 = relay.einsum %m {equation = "ii"} : (tensor<4x4xi32>) -> tensor<i32>
  // CHECK-NEXT: %2 = relay.einsum %a, %b {equation = "...ij,...jk"} : (tensor<2x3x4xf32>, tensor<2x4x5xf32>) -> tensor<2x3x5xf32>
  // CHECK-GENERIC: %2 = "relay.einsum"(
  %2 = relay.einsum %a, %b {equation = "...ij,...jk"} : (tensor<2x3x4xf32>, tensor<2x4x5xf32>) -> tensor<2x3x5xf32>
  func.return %0 : tensor<2x3x5xf32>
}
