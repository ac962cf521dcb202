// RUN: XRELAY_ROUNDTRIP
// RUN: XRELAY_GENERIC_ROUNDTRIP

// CHECK-LABEL: func.func @binary_add
// CHECK-GENERIC-LABEL: "func.func"() <{sym_name = "binary_add"
func.func @binary_add(%a: tensor<2x3xf32>, %b: tensor<3xf32>) -> tensor<2x3xf32> {
  // CHECK-NEXT: %r = relay.add %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  // CHECK-GENERIC: %r = "relay.add"(%a, %b) : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %r = relay.add %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  func.return %r : tensor<2x3xf32>
}

// CHECK-LABEL: func.func @binary_subtract
// CHECK-GENERIC-LABEL: "func.func"() <{sym_name = "binary_subtract"
func.func @binary_subtract(%a: tensor<2x3xf32>, %b: tensor<3xf32>) -> tensor<2x3xf32> {
  // CHECK-NEXT: %r = relay.subtract %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  // CHECK-GENERIC: %r = "relay.subtract"(%a, %b) : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %r = relay.subtract %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  func.return %r : tensor<2x3xf32>
}

// CHECK-LABEL: func.func @binary_multiply
// CHECK-GENERIC-LABEL: "func.func"() <{sym_name = "binary_multiply"
func.func @binary_multiply(%a: tensor<2x3xf32>, %b: tensor<3xf32>) -> tensor<2x3xf32> {
  // CHECK-NEXT: %r = relay.multiply %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  // CHECK-GENERIC: %r = "relay.multiply"(%a, %b) : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %r = relay.multiply %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  func.return %r : tensor<2x3xf32>
}

// CHECK-LABEL: func.func @binary_divide
// CHECK-GENERIC-LABEL: "func.func"() <{sym_name = "binary_divide"
func.func @binary_divide(%a: tensor<2x3xf32>, %b: tensor<3xf32>) -> tensor<2x3xf32> {
  // CHECK-NEXT: %r = relay.divide %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  // CHECK-GENERIC: %r = "relay.divide"(%a, %b) : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %r = relay.divide %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  func.return %r : tensor<2x3xf32>
}

// CHECK-LABEL: func.func @binary_power
// CHECK-GENERIC-LABEL: "func.func"() <{sym_name = "binary_power"
func.func @binary_power(%a: tensor<2x3xf32>, %b: tensor<3xf32>) -> tensor<2x3xf32> {
  // CHECK-NEXT: %r = relay.power %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  // CHECK-GENERIC: %r = "relay.power"(%a, %b) : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %r = relay.power %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  func.return %r : tensor<2x3xf32>
}

// CHECK-LABEL: func.func @binary_maximum
// CHECK-GENERIC-LABEL: "func.func"() <{sym_name = "binary_maximum"
func.func @binary_maximum(%a: tensor<2x3xf32>, %b: tensor<3xf32>) -> tensor<2x3xf32> {
  // CHECK-NEXT: %r = relay.maximum %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  // CHECK-GENERIC: %r = "relay.maximum"(%a, %b) : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %r = relay.maximum %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  func.return %r : tensor<2x3xf32>
}

// CHECK-LABEL: func.func @binary_minimum
// CHECK-GENERIC-LABEL: "func.func"() <{sym_name = "binary_minimum"
func.func @binary_minimum(%a: tensor<2x3xf32>, %b: tensor<3xf32>) -> tensor<2x3xf32> {
  // CHECK-NEXT: %r = relay.minimum %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  // CHECK-GENERIC: %r = "relay.minimum"(%a, %b) : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %r = relay.minimum %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  func.return %r : tensor<2x3xf32>
}

// CHECK-LABEL: func.func @binary_floor_divide
// CHECK-GENERIC-LABEL: "func.func"() <{sym_name = "binary_floor_divide"
func.func @binary_floor_divide(%a: tensor<2x3xf32>, %b: tensor<3xf32>) -> tensor<2x3xf32> {
  // CHECK-NEXT: %r = relay.floor_divide %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  // CHECK-GENERIC: %r = "relay.floor_divide"(%a, %b) : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %r = relay.floor_divide %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  func.return %r : tensor<2x3xf32>
}

// CHECK-LABEL: func.func @binary_floor_mod
// CHECK-GENERIC-LABEL: "func.func"() <{sym_name = "binary_floor_mod"
func.func @binary_floor_mod(%a: tensor<2x3xf32>, %b: tensor<3xf32>) -> tensor<2x3xf32> {
  // CHECK-NEXT: %r = relay.floor_mod %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  // CHECK-GENERIC: %r = "relay.floor_mod"(%a, %b) : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %r = relay.floor_mod %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  func.return %r : tensor<2x3xf32>
}

// CHECK-LABEL: func.func @binary_mod
// CHECK-GENERIC-LABEL: "func.func"() <{sym_name = "binary_mod"
func.func @binary_mod(%a: tensor<2x3xf32>, %b: tensor<3xf32>) -> tensor<2x3xf32> {
  // CHECK-NEXT: %r = relay.mod %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  // CHECK-GENERIC: %r = "relay.mod"(%a, %b) : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %r = relay.mod %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  func.return %r : tensor<2x3xf32>
}

// CHECK-LABEL: func.func @compare_equal
// CHECK-GENERIC-LABEL: "func.func"() <{sym_name = "compare_equal"
func.func @compare_equal(%a: tensor<2x1xi32>, %b: tensor<3xi32>) -> tensor<2x3xi1> {
  // CHECK-NEXT: %r = relay.equal %a, %b : (tensor<2x1xi32>, tensor<3xi32>) -> tensor<2x3xi1>
  // CHECK-GENERIC: "relay.equal"(%a, %b)
  %r = relay.equal %a, %b : (tensor<2x1xi32>, tensor<3xi32>) -> tensor<2x3xi1>
  func.return %r : tensor<2x3xi1>
}

// CHECK-LABEL: func.func @compare_not_equal
// CHECK-GENERIC-LABEL: "func.func"() <{sym_name = "compare_not_equal"
func.func @compare_not_equal(%a: tensor<2x1xi32>, %b: tensor<3xi32>) -> tensor<2x3xi1> {
  // CHECK-NEXT: %r = relay.not_equal %a, %b : (tensor<2x1xi32>, tensor<3xi32>) -> tensor<2x3xi1>
  // CHECK-GENERIC: "relay.not_equal"(%a, %b)
  %r = relay.not_equal %a, %b : (tensor<2x1xi32>, tensor<3xi32>) -> tensor<2x3xi1>
  func.return %r : tensor<2x3xi1>
}

// CHECK-LABEL: func.func @compare_less
// CHECK-GENERIC-LABEL: "func.func"() <{sym_name = "compare_less"
func.func @compare_less(%a: tensor<2x1xi32>, %b: tensor<3xi32>) -> tensor<2x3xi1> {
  // CHECK-NEXT: %r = relay.less %a, %b : (tensor<2x1xi32>, tensor<3xi32>) -> tensor<2x3xi1>
  // CHECK-GENERIC: "relay.less"(%a, %b)
  %r = relay.less %a, %b : (tensor<2x1xi32>, tensor<3xi32>) -> tensor<2x3xi1>
  func.return %r : tensor<2x3xi1>
}

// CHECK-LABEL: func.func @compare_less_equal
// CHECK-GENERIC-LABEL: "func.func"() <{sym_name = "compare_less_equal"
func.func @compare_less_equal(%a: tensor<2x1xi32>, %b: tensor<3xi32>) -> tensor<2x3xi1> {
  // CHECK-NEXT: %r = relay.less_equal %a, %b : (tensor<2x1xi32>, tensor<3xi32>) -> tensor<2x3xi1>
  // CHECK-GENERIC: "relay.less_equal"(%a, %b)
  %r = relay.less_equal %a, %b : (tensor<2x1xi32>, tensor<3xi32>) -> tensor<2x3xi1>
  func.return %r : tensor<2x3xi1>
}

// CHECK-LABEL: func.func @compare_greater
// CHECK-GENERIC-LABEL: "func.func"() <{sym_name = "compare_greater"
func.func @compare_greater(%a: tensor<2x1xi32>, %b: tensor<3xi32>) -> tensor<2x3xi1> {
  // CHECK-NEXT: %r = relay.greater %a, %b : (tensor<2x1xi32>, tensor<3xi32>) -> tensor<2x3xi1>
  // CHECK-GENERIC: "relay.greater"(%a, %b)
  %r = relay.greater %a, %b : (tensor<2x1xi32>, tensor<3xi32>) -> tensor<2x3xi1>
  func.return %r : tensor<2x3xi1>
}

// CHECK-LABEL: func.func @compare_greater_equal
// CHECK-GENERIC-LABEL: "func.func"() <{sym_name = "compare_greater_equal"
func.func @compare_greater_equal(%a: tensor<2x1xi32>, %b: tensor<3xi32>) -> tensor<2x3xi1> {
  // CHECK-NEXT: %r = relay.greater_equal %a, %b : (tensor<2x1xi32>, tensor<3xi32>) -> tensor<2x3xi1>
  // CHECK-GENERIC: "relay.greater_equal"(%a, %b)
  %r = relay.greater_equal %a, %b : (tensor<2x1xi32>, tensor<3xi32>) -> tensor<2x3xi1>
  func.return %r : tensor<2x3xi1>
}

// CHECK-LABEL: func.func @logical_and
// CHECK-GENERIC-LABEL: "func.func"() <{sym_name = "logical_and"
func.func @logical_and(%a: tensor<4xi1>, %b: tensor<4xi1>) -> tensor<4xi1> {
  // CHECK-NEXT: %r = relay.logical_and %a, %b : (tensor<4xi1>, tensor<4xi1>) -> tensor<4xi1>
  // CHECK-GENERIC: "relay.logical_and"(%a, %b)
  %r = relay.logical_and %a, %b : (tensor<4xi1>, tensor<4xi1>) -> tensor<4xi1>
  func.return %r : tensor<4xi1>
}

// CHECK-LABEL: func.func @logical_or
// CHECK-GENERIC-LABEL: "func.func"() <{sym_name = "logical_or"
func.func @logical_or(%a: tensor<4xi1>, %b: tensor<4xi1>) -> tensor<4xi1> {
  // CHECK-NEXT: %r = relay.logical_or %a, %b : (tensor<4xi1>, tensor<4xi1>) -> tensor<4xi1>
  // CHECK-GENERIC: "relay.logical_or"(%a, %b)
  %r = relay.logical_or %a, %b : (tensor<4xi1>, tensor<4xi1>) -> tensor<4xi1>
  func.return %r : tensor<4xi1>
}

// CHECK-LABEL: func.func @logical_not
// CHECK-GENERIC-LABEL: "func.func"() <{sym_name = "logical_not"
func.func @logical_not(%a: tensor<4xi1>) -> tensor<4xi1> {
  // CHECK-NEXT: %r = relay.logical_not %a : (tensor<4xi1>) -> tensor<4xi1>
  // CHECK-GENERIC: "relay.logical_not"(%a)
  %r = relay.logical_not %a : (tensor<4xi1>) -> tensor<4xi1>
  func.return %r : tensor<4xi1>
}

// CHECK-LABEL: func.func @unary_exp
// CHECK-GENERIC-LABEL: "func.func"() <{sym_name = "unary_exp"
func.func @unary_exp(%a: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // CHECK-NEXT: %r = relay.exp %a : (tensor<2x3xf32>) -> tensor<2x3xf32>
  // CHECK-GENERIC: "relay.exp"(%a)
  %r = relay.exp %a : (tensor<2x3xf32>) -> tensor<2x3xf32>
  func.return %r : tensor<2x3xf32>
}

// CHECK-LABEL: func.func @unary_fast_exp
// CHECK-GENERIC-LABEL: "func.func"() <{sym_name = "unary_fast_exp"
func.func @unary_fast_exp(%a: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // CHECK-NEXT: %r = relay.fast_exp %a : (tensor<2x3xf32>) -> tensor<2x3xf32>
  // CHECK-GENERIC: "relay.fast_exp"(%a)
  %r = relay.fast_exp %a : (tensor<2x3xf32>) -> tensor<2x3xf32>
  func.return %r : tensor<2x3xf32>
}

// CHECK-LABEL: func.func @unary_log
// CHECK-GENERIC-LABEL: "func.func"() <{sym_name = "unary_log"
func.func @unary_log(%a: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // CHECK-NEXT: %r = relay.log %a : (tensor<2x3xf32>) -> tensor<2x3xf32>
  // CHECK-GENERIC: "relay.log"(%a)
  %r = relay.log %a : (tensor<2x3xf32>) -> tensor<2x3xf32>
  func.return %r : tensor<2x3xf32>
}

// CHECK-LABEL: func.func @unary_sqrt
// CHECK-GENERIC-LABEL: "func.func"() <{sym_name = "unary_sqrt"
func.func @unary_sqrt(%a: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // CHECK-NEXT: %r = relay.sqrt %a : (tensor<2x3xf32>) -> tensor<2x3xf32>
  // CHECK-GENERIC: "relay.sqrt"(%a)
  %r = relay.sqrt %a : (tensor<2x3xf32>) -> tensor<2x3xf32>
  func.return %r : tensor<2x3xf32>
}

// CHECK-LABEL: func.func @unary_rsqrt
// CHECK-GENERIC-LABEL: "func.func"() <{sym_name = "unary_rsqrt"
func.func @unary_rsqrt(%a: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // CHECK-NEXT: %r = relay.rsqrt %a : (tensor<2x3xf32>) -> tensor<2x3xf32>
  // CHECK-GENERIC: "relay.rsqrt"(%a)
  %r = relay.rsqrt %a : (tensor<2x3xf32>) -> tensor<2x3xf32>
  func.return %r : tensor<2x3xf32>
}

// CHECK-LABEL: func.func @unary_sigmoid
// CHECK-GENERIC-LABEL: "func.func"() <{sym_name = "unary_sigmoid"
func.func @unary_sigmoid(%a: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // CHECK-NEXT: %r = relay.sigmoid %a : (tensor<2x3xf32>) -> tensor<2x3xf32>
  // CHECK-GENERIC: "relay.sigmoid"(%a)
  %r = relay.sigmoid %a : (tensor<2x3xf32>) -> tensor<2x3xf32>
  func.return %r : tensor<2x3xf32>
}

// CHECK-LABEL: func.func @unary_tanh
// CHECK-GENERIC-LABEL: "func.func"() <{sym_name = "unary_tanh"
func.func @unary_tanh(%a: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // CHECK-NEXT: %r = relay.tanh %a : (tensor<2x3xf32>) -> tensor<2x3xf32>
  // CHECK-GENERIC: "relay.tanh"(%a)
  %r = relay.tanh %a : (tensor<2x3xf32>) -> tensor<2x3xf32>
  func.return %r : tensor<2x3xf32>
}

// CHECK-LABEL: func.func @unary_fast_tanh
// CHECK-GENERIC-LABEL: "func.func"() <{sym_name = "unary_fast_tanh"
func.func @unary_fast_tanh(%a: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // CHECK-NEXT: %r = relay.fast_tanh %a : (tensor<2x3xf32>) -> tensor<2x3xf32>
  // CHECK-GENERIC: "relay.fast_tanh"(%a)
  %r = relay.fast_tanh %a : (tensor<2x3xf32>) -> tensor<2x3xf32>
  func.return %r : tensor<2x3xf32>
}

// CHECK-LABEL: func.func @unary_erf
// CHECK-GENERIC-LABEL: "func.func"() <{sym_name = "unary_erf"
func.func @unary_erf(%a: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // CHECK-NEXT: %r = relay.erf %a : (tensor<2x3xf32>) -> tensor<2x3xf32>
  // CHECK-GENERIC: "relay.erf"(%a)
  %r = relay.erf %a : (tensor<2x3xf32>) -> tensor<2x3xf32>
  func.return %r : tensor<2x3xf32>
}

// CHECK-LABEL: func.func @unary_fast_erf
// CHECK-GENERIC-LABEL: "func.func"() <{sym_name = "unary_fast_erf"
func.func @unary_fast_erf(%a: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // CHECK-NEXT: %r = relay.fast_erf %a : (tensor<2x3xf32>) -> tensor<2x3xf32>
  // CHECK-GENERIC: "relay.fast_erf"(%a)
  %r = relay.fast_erf %a : (tensor<2x3xf32>) -> tensor<2x3xf32>
  func.return %r : tensor<2x3xf32>
}

// CHECK-LABEL: func.func @unary_sin
// CHECK-GENERIC-LABEL: "func.func"() <{sym_name = "unary_sin"
func.func @unary_sin(%a: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // CHECK-NEXT: %r = relay.sin %a : (tensor<2x3xf32>) -> tensor<2x3xf32>
  // CHECK-GENERIC: "relay.sin"(%a)
  %r = relay.sin %a : (tensor<2x3xf32>) -> tensor<2x3xf32>
  func.return %r : tensor<2x3xf32>
}

// CHECK-LABEL: func.func @unary_cos
// CHECK-GENERIC-LABEL: "func.func"() <{sym_name = "unary_cos"
func.func @unary_cos(%a: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // CHECK-NEXT: %r = relay.cos %a : (tensor<2x3xf32>) -> tensor<2x3xf32>
  // CHECK-GENERIC: "relay.cos"(%a)
  %r = relay.cos %a : (tensor<2x3xf32>) -> tensor<2x3xf32>
  func.return %r : tensor<2x3xf32>
}

// CHECK-LABEL: func.func @unary_acos
// CHECK-GENERIC-LABEL: "func.func"() <{sym_name = "unary_acos"
func.func @unary_acos(%a: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // CHECK-NEXT: %r = relay.acos %a : (tensor<2x3xf32>) -> tensor<2x3xf32>
  // CHECK-GENERIC: "relay.acos"(%a)
  %r = relay.acos %a : (tensor<2x3xf32>) -> tensor<2x3xf32>
  func.return %r : tensor<2x3xf32>
}

// CHECK-LABEL: func.func @unary_asin
// CHECK-GENERIC-LABEL: "func.func"() <{sym_name = "unary_asin"
func.func @unary_asin(%a: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // CHECK-NEXT: %r = relay.asin %a : (tensor<2x3xf32>) -> tensor<2x3xf32>
  // CHECK-GENERIC: "relay.asin"(%a)
  %r = relay.asin %a : (tensor<2x3xf32>) -> tensor<2x3xf32>
  func.return %r : tensor<2x3xf32>
}

// CHECK-LABEL: func.func @unary_atan
// CHECK-GENERIC-LABEL: "func.func"() <{sym_name = "unary_atan"
func.func @unary_atan(%a: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // CHECK-NEXT: %r = relay.atan %a : (tensor<2x3xf32>) -> tensor<2x3xf32>
  // CHECK-GENERIC: "relay.atan"(%a)
  %r = relay.atan %a : (tensor<2x3xf32>) -> tensor<2x3xf32>
  func.return %r : tensor<2x3xf32>
}

// CHECK-LABEL: func.func @unary_acosh
// CHECK-GENERIC-LABEL: "func.func"() <{sym_name = "unary_acosh"
func.func @unary_acosh(%a: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // CHECK-NEXT: %r = relay.acosh %a : (tensor<2x3xf32>) -> tensor<2x3xf32>
  // CHECK-GENERIC: "relay.acosh"(%a)
  %r = relay.acosh %a : (tensor<2x3xf32>) -> tensor<2x3xf32>
  func.return %r : tensor<2x3xf32>
}

// CHECK-LABEL: func.func @unary_asinh
// CHECK-GENERIC-LABEL: "func.func"() <{sym_name = "unary_asinh"
func.func @unary_asinh(%a: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // CHECK-NEXT: %r = relay.asinh %a : (tensor<2x3xf32>) -> tensor<2x3xf32>
  // CHECK-GENERIC: "relay.asinh"(%a)
  %r = relay.asinh %a : (tensor<2x3xf32>) -> tensor<2x3xf32>
  func.return %r : tensor<2x3xf32>
}

// CHECK-LABEL: func.func @unary_atanh
// CHECK-GENERIC-LABEL: "func.func"() <{sym_name = "unary_atanh"
func.func @unary_atanh(%a: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // CHECK-NEXT: %r = relay.atanh %a : (tensor<2x3xf32>) -> tensor<2x3xf32>
  // CHECK-GENERIC: "relay.atanh"(%a)
  %r = relay.atanh %a : (tensor<2x3xf32>) -> tensor<2x3xf32>
  func.return %r : tensor<2x3xf32>
}

// CHECK-LABEL: func.func @unary_negative
// CHECK-GENERIC-LABEL: "func.func"() <{sym_name = "unary_negative"
func.func @unary_negative(%a: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // CHECK-NEXT: %r = relay.negative %a : (tensor<2x3xf32>) -> tensor<2x3xf32>
  // CHECK-GENERIC: "relay.negative"(%a)
  %r = relay.negative %a : (tensor<2x3xf32>) -> tensor<2x3xf32>
  func.return %r : tensor<2x3xf32>
}

// CHECK-LABEL: func.func @unary_abs
// CHECK-GENERIC-LABEL: "func.func"() <{sym_name = "unary_abs"
func.func @unary_abs(%a: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // CHECK-NEXT: %r = relay.abs %a : (tensor<2x3xf32>) -> tensor<2x3xf32>
  // CHECK-GENERIC: "relay.abs"(%a)
  %r = relay.abs %a : (tensor<2x3xf32>) -> tensor<2x3xf32>
  func.return %r : tensor<2x3xf32>
}

// CHECK-LABEL: func.func @unary_sign
// CHECK-GENERIC-LABEL: "func.func"() <{sym_name = "unary_sign"
func.func @unary_sign(%a: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // CHECK-NEXT: %r = relay.sign %a : (tensor<2x3xf32>) -> tensor<2x3xf32>
  // CHECK-GENERIC: "relay.sign"(%a)
  %r = relay.sign %a : (tensor<2x3xf32>) -> tensor<2x3xf32>
  func.return %r : tensor<2x3xf32>
}

// CHECK-LABEL: func.func @unary_floor
// CHECK-GENERIC-LABEL: "func.func"() <{sym_name = "unary_floor"
func.func @unary_floor(%a: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // CHECK-NEXT: %r = relay.floor %a : (tensor<2x3xf32>) -> tensor<2x3xf32>
  // CHECK-GENERIC: "relay.floor"(%a)
  %r = relay.floor %a : (tensor<2x3xf32>) -> tensor<2x3xf32>
  func.return %r : tensor<2x3xf32>
}

// CHECK-LABEL: func.func @unary_ceil
// CHECK-GENERIC-LABEL: "func.func"() <{sym_name = "unary_ceil"
func.func @unary_ceil(%a: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // CHECK-NEXT: %r = relay.ceil %a : (tensor<2x3xf32>) -> tensor<2x3xf32>
  // CHECK-GENERIC: "relay.ceil"(%a)
  %r = relay.ceil %a : (tensor<2x3xf32>) -> tensor<2x3xf32>
  func.return %r : tensor<2x3xf32>
}

// CHECK-LABEL: func.func @unary_round
// CHECK-GENERIC-LABEL: "func.func"() <{sym_name = "unary_round"
func.func @unary_round(%a: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // CHECK-NEXT: %r = relay.round %a : (tensor<2x3xf32>) -> tensor<2x3xf32>
  // CHECK-GENERIC: "relay.round"(%a)
  %r = relay.round %a : (tensor<2x3xf32>) -> tensor<2x3xf32>
  func.return %r : tensor<2x3xf32>
}

// CHECK-LABEL: func.func @unary_trunc
// CHECK-GENERIC-LABEL: "func.func"() <{sym_name = "unary_trunc"
func.func @unary_trunc(%a: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // CHECK-NEXT: %r = relay.trunc %a : (tensor<2x3xf32>) -> tensor<2x3xf32>
  // CHECK-GENERIC: "relay.trunc"(%a)
  %r = relay.trunc %a : (tensor<2x3xf32>) -> tensor<2x3xf32>
  func.return %r : tensor<2x3xf32>
}

// CHECK-LABEL: func.func @unary_copy
// CHECK-GENERIC-LABEL: "func.func"() <{sym_name = "unary_copy"
func.func @unary_copy(%a: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // CHECK-NEXT: %r = relay.copy %a : (tensor<2x3xf32>) -> tensor<2x3xf32>
  // CHECK-GENERIC: "relay.copy"(%a)
  %r = relay.copy %a : (tensor<2x3xf32>) -> tensor<2x3xf32>
  func.return %r : tensor<2x3xf32>
}

// CHECK-LABEL: func.func @unary_nn_relu
// CHECK-GENERIC-LABEL: "func.func"() <{sym_name = "unary_nn_relu"
func.func @unary_nn_relu(%a: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // CHECK-NEXT: %r = relay.nn.relu %a : (tensor<2x3xf32>) -> tensor<2x3xf32>
  // CHECK-GENERIC: "relay.nn.relu"(%a)
  %r = relay.nn.relu %a : (tensor<2x3xf32>) -> tensor<2x3xf32>
  func.return %r : tensor<2x3xf32>
}

// CHECK-LABEL: func.func @leaky_relu
// CHECK-GENERIC-LABEL: "func.func"() <{sym_name = "leaky_relu"
func.func @leaky_relu(%a: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // CHECK-NEXT: %r = relay.nn.leaky_relu %a {alpha = 2.000000e-01 : f64} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  // CHECK-GENERIC: "relay.nn.leaky_relu"(%a) <{alpha = 2.000000e-01 : f64}>
  %r = relay.nn.leaky_relu %a {alpha = 2.000000e-01 : f64} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  func.return %r : tensor<2x3xf32>
}

// CHECK-LABEL: func.func @leaky_relu_default
// CHECK-GENERIC-LABEL: "func.func"() <{sym_name = "leaky_relu_default"
func.func @leaky_relu_default(%a: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // CHECK-NEXT: %r = relay.nn.leaky_relu %a : (tensor<2x3xf32>) -> tensor<2x3xf32>
  // CHECK-GENERIC: "relay.nn.leaky_relu"(%a) <{alpha = 1.000000e-02 : f64}> : (
  %r = relay.nn.leaky_relu %a : (tensor<2x3xf32>) -> tensor<2x3xf32>
  func.return %r : tensor<2x3xf32>
}

// CHECK-LABEL: func.func @clip
// CHECK-GENERIC-LABEL: "func.func"() <{sym_name = "clip"
func.func @clip(%a: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // CHECK-NEXT: %r = relay.clip %a {a_min = -1.000000e+00 : f64, a_max = 6.000000e+00 : f64} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  // CHECK-GENERIC: "relay.clip"(%a) <{a_min = -1.000000e+00 : f64, a_max = 6.000000e+00 : f64}>
  %r = relay.clip %a {a_min = -1.000000e+00 : f64, a_max = 6.000000e+00 : f64} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  func.return %r : tensor<2x3xf32>
}

// CHECK-LABEL: func.func @cast
// CHECK-GENERIC-LABEL: "func.func"() <{sym_name = "cast"
func.func @cast(%a: tensor<2x3xf32>) -> tensor<2x3xi8> {
  // CHECK-NEXT: %r = relay.cast %a {dtype = i8} : (tensor<2x3xf32>) -> tensor<2x3xi8>
  // CHECK-GENERIC: "relay.cast"(%a) <{dtype = i8}>
  %r = relay.cast %a {dtype = i8} : (tensor<2x3xf32>) -> tensor<2x3xi8>
  func.return %r : tensor<2x3xi8>
}

// CHECK-LABEL: func.func @cast_like
// CHECK-GENERIC-LABEL: "func.func"() <{sym_name = "cast_like"
func.func @cast_like(%a: tensor<2x3xf32>, %b: tensor<1xf16>) -> tensor<2x3xf16> {
  // CHECK-NEXT: %r = relay.cast_like %a, %b : (tensor<2x3xf32>, tensor<1xf16>) -> tensor<2x3xf16>
  // CHECK-GENERIC: "relay.cast_like"(%a, %b)
  %r = relay.cast_like %a, %b : (tensor<2x3xf32>, tensor<1xf16>) -> tensor<2x3xf16>
  func.return %r : tensor<2x3xf16>
}

// CHECK-LABEL: func.func @reinterpret
// CHECK-GENERIC-LABEL: "func.func"() <{sym_name = "reinterpret"
func.func @reinterpret(%a: tensor<2x3xf32>, %b: tensor<4xi1>, %c: tensor<f16>) -> (tensor<2x3xi32>, tensor<4xui8>, tensor<i16>) {
  // CHECK-NEXT: %r = relay.reinterpret %a {dtype = i32} : (tensor<2x3xf32>) -> tensor<2x3xi32>
  // CHECK-NEXT: %s = relay.reinterpret %b {dtype = ui8} : (tensor<4xi1>) -> tensor<4xui8>
  // CHECK-NEXT: %t = relay.reinterpret %c {dtype = i16} : (tensor<f16>) -> tensor<i16>
  // CHECK-GENERIC: "relay.reinterpret"(%a) <{dtype = i32}>
  %r = relay.reinterpret %a {dtype = i32} : (tensor<2x3xf32>) -> tensor<2x3xi32>
  %s = relay.reinterpret %b {dtype = ui8} : (tensor<4xi1>) -> tensor<4xui8>
  %t = relay.reinterpret %c {dtype = i16} : (tensor<f16>) -> tensor<i16>
  func.return %r, %s, %t : tensor<2x3xi32>, tensor<4xui8>, tensor<i16>
}

// CHECK-LABEL: func.func @where
// CHECK-GENERIC-LABEL: "func.func"() <{sym_name = "where"
func.func @where(%c: tensor<2x1xi1>, %a: tensor<2x3xf32>, %b: tensor<3xf32>) -> tensor<2x3xf32> {
  // CHECK-NEXT: %r = relay.where %c, %a, %b : (tensor<2x1xi1>, tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  // CHECK-GENERIC: "relay.where"(%c, %a, %b)
  %r = relay.where %c, %a, %b : (tensor<2x1xi1>, tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  func.return %r : tensor<2x3xf32>
}

// CHECK-LABEL: func.func @prelu
// CHECK-GENERIC-LABEL: "func.func"() <{sym_name = "prelu"
func.func @prelu(%a: tensor<1x2x3xf32>, %s: tensor<3xf32>) -> tensor<1x2x3xf32> {
  // CHECK-NEXT: %r = relay.nn.prelu %a, %s {axis = 2 : i64} : (tensor<1x2x3xf32>, tensor<3xf32>) -> tensor<1x2x3xf32>
  // CHECK-GENERIC: "relay.nn.prelu"(%a, %s) <{axis = 2 : i64}>
  %r = relay.nn.prelu %a, %s {axis = 2 : i64} : (tensor<1x2x3xf32>, tensor<3xf32>) -> tensor<1x2x3xf32>
  func.return %r : tensor<1x2x3xf32>
}

// CHECK-LABEL: func.func @bias_add
// CHECK-GENERIC-LABEL: "func.func"() <{sym_name = "bias_add"
func.func @bias_add(%a: tensor<1x2x3xf32>, %s: tensor<2xf32>) -> tensor<1x2x3xf32> {
  // CHECK-NEXT: %r = relay.nn.bias_add %a, %s : (tensor<1x2x3xf32>, tensor<2xf32>) -> tensor<1x2x3xf32>
  // CHECK-GENERIC: "relay.nn.bias_add"(%a, %s) <{axis = 1 : i64}> : (
  %r = relay.nn.bias_add %a, %s : (tensor<1x2x3xf32>, tensor<2xf32>) -> tensor<1x2x3xf32>
  func.return %r : tensor<1x2x3xf32>
}

// CHECK-LABEL: func.func @zeros
// CHECK-GENERIC-LABEL: "func.func"() <{sym_name = "zeros"
func.func @zeros() -> tensor<2x3xf32> {
  // CHECK-NEXT: %r = relay.zeros {shape = array<i64: 2, 3>, dtype = f32} : tensor<2x3xf32>
  // CHECK-GENERIC: "relay.zeros"() <{shape = array<i64: 2, 3>, dtype = f32}>
  %r = relay.zeros {shape = array<i64: 2, 3>, dtype = f32} : tensor<2x3xf32>
  func.return %r : tensor<2x3xf32>
}

// CHECK-LABEL: func.func @ones
// CHECK-GENERIC-LABEL: "func.func"() <{sym_name = "ones"
func.func @ones() -> tensor<2x3xf32> {
  // CHECK-NEXT: %r = relay.ones {shape = array<i64: 2, 3>, dtype = f32} : tensor<2x3xf32>
  // CHECK-GENERIC: "relay.ones"() <{shape = array<i64: 2, 3>, dtype = f32}>
  %r = relay.ones {shape = array<i64: 2, 3>, dtype = f32} : tensor<2x3xf32>
  func.return %r : tensor<2x3xf32>
}

// CHECK-LABEL: func.func @full
// CHECK-GENERIC-LABEL: "func.func"() <{sym_name = "full"
func.func @full(%v: tensor<f32>) -> tensor<2x3xf32> {
  // CHECK-NEXT: %r = relay.full %v {shape = array<i64: 2, 3>} : (tensor<f32>) -> tensor<2x3xf32>
  // CHECK-GENERIC: "relay.full"(%v) <{shape = array<i64: 2, 3>}>
  %r = relay.full %v {shape = array<i64: 2, 3>} : (tensor<f32>) -> tensor<2x3xf32>
  func.return %r : tensor<2x3xf32>
}

// CHECK-LABEL: func.func @full_dtype
// CHECK-GENERIC-LABEL: "func.func"() <{sym_name = "full_dtype"
func.func @full_dtype(%v: tensor<f32>) -> tensor<2x3xi32> {
  // CHECK-NEXT: %r = relay.full %v {shape = array<i64: 2, 3>, dtype = i32} : (tensor<f32>) -> tensor<2x3xi32>
  // CHECK-GENERIC: "relay.full"(%v) <{shape = array<i64: 2, 3>, dtype = i32}>
  %r = relay.full %v {shape = array<i64: 2, 3>, dtype = i32} : (tensor<f32>) -> tensor<2x3xi32>
  func.return %r : tensor<2x3xi32>
}

// CHECK-LABEL: func.func @zeros_like
// CHECK-GENERIC-LABEL: "func.func"() <{sym_name = "zeros_like"
func.func @zeros_like(%a: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // CHECK-NEXT: %r = relay.zeros_like %a : (tensor<2x3xf32>) -> tensor<2x3xf32>
  // CHECK-GENERIC: "relay.zeros_like"(%a)
  %r = relay.zeros_like %a : (tensor<2x3xf32>) -> tensor<2x3xf32>
  func.return %r : tensor<2x3xf32>
}

// CHECK-LABEL: func.func @ones_like
// CHECK-GENERIC-LABEL: "func.func"() <{sym_name = "ones_like"
func.func @ones_like(%a: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // CHECK-NEXT: %r = relay.ones_like %a : (tensor<2x3xf32>) -> tensor<2x3xf32>
  // CHECK-GENERIC: "relay.ones_like"(%a)
  %r = relay.ones_like %a : (tensor<2x3xf32>) -> tensor<2x3xf32>
  func.return %r : tensor<2x3xf32>
}

// CHECK-LABEL: func.func @full_like
// CHECK-GENERIC-LABEL: "func.func"() <{sym_name = "full_like"
func.func @full_like(%a: tensor<2x3xf32>, %v: tensor<f32>) -> tensor<2x3xf32> {
  // CHECK-NEXT: %r = relay.full_like %a, %v : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
  // CHECK-GENERIC: "relay.full_like"(%a, %v)
  %r = relay.full_like %a, %v : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
  func.return %r : tensor<2x3xf32>
}

// CHECK-LABEL: func.func @incomplete_result
// CHECK-GENERIC-LABEL: "func.func"() <{sym_name = "incomplete_result"
func.func @incomplete_result(%a: tensor<2x3xf32>, %b: tensor<3xf32>) -> tensor<*xf32> {
  // CHECK-NEXT: %r = relay.add %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<*xf32>
  // CHECK-GENERIC: "relay.add"(%a, %b) : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<*xf32>
  %r = relay.add %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<*xf32>
  func.return %r : tensor<*xf32>
}
