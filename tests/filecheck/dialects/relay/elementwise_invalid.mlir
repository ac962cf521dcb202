// RUN: xrelay-opt %s --split-input-file --verify-diagnostics | filecheck %s

func.func @f(%a: tensor<2x3xf32>, %b: tensor<4xf32>) -> tensor<2x3xf32> {
  // CHECK: relay.add: shapes [2, 3] and [4] do not broadcast
  %r = relay.add %a, %b : (tensor<2x3xf32>, tensor<4xf32>) -> tensor<2x3xf32>
  func.return %r : tensor<2x3xf32>
}

// -----

func.func @f(%a: tensor<2x3xf32>, %b: tensor<3xi32>) -> tensor<2x3xf32> {
  // CHECK: relay.subtract: rhs has element type i32 but lhs has f32 (relay does not promote dtypes)
  %r = relay.subtract %a, %b : (tensor<2x3xf32>, tensor<3xi32>) -> tensor<2x3xf32>
  func.return %r : tensor<2x3xf32>
}

// -----

func.func @f(%a: tensor<2x3xf32>, %b: tensor<4xf32>) -> tensor<2x3xf32> {
  // CHECK: relay.multiply: shapes [2, 3] and [4] do not broadcast
  %r = relay.multiply %a, %b : (tensor<2x3xf32>, tensor<4xf32>) -> tensor<2x3xf32>
  func.return %r : tensor<2x3xf32>
}

// -----

func.func @f(%a: tensor<2x3xf32>, %b: tensor<3xi32>) -> tensor<2x3xf32> {
  // CHECK: relay.divide: rhs has element type i32 but lhs has f32 (relay does not promote dtypes)
  %r = relay.divide %a, %b : (tensor<2x3xf32>, tensor<3xi32>) -> tensor<2x3xf32>
  func.return %r : tensor<2x3xf32>
}

// -----

func.func @f(%a: tensor<2x3xf32>, %b: tensor<4xf32>) -> tensor<2x3xf32> {
  // CHECK: relay.power: shapes [2, 3] and [4] do not broadcast
  %r = relay.power %a, %b : (tensor<2x3xf32>, tensor<4xf32>) -> tensor<2x3xf32>
  func.return %r : tensor<2x3xf32>
}

// -----

func.func @f(%a: tensor<2x3xf32>, %b: tensor<3xi32>) -> tensor<2x3xf32> {
  // CHECK: relay.maximum: rhs has element type i32 but lhs has f32 (relay does not promote dtypes)
  %r = relay.maximum %a, %b : (tensor<2x3xf32>, tensor<3xi32>) -> tensor<2x3xf32>
  func.return %r : tensor<2x3xf32>
}

// -----

func.func @f(%a: tensor<2x3xf32>, %b: tensor<4xf32>) -> tensor<2x3xf32> {
  // CHECK: relay.minimum: shapes [2, 3] and [4] do not broadcast
  %r = relay.minimum %a, %b : (tensor<2x3xf32>, tensor<4xf32>) -> tensor<2x3xf32>
  func.return %r : tensor<2x3xf32>
}

// -----

func.func @f(%a: tensor<2x3xf32>, %b: tensor<3xi32>) -> tensor<2x3xf32> {
  // CHECK: relay.floor_divide: rhs has element type i32 but lhs has f32 (relay does not promote dtypes)
  %r = relay.floor_divide %a, %b : (tensor<2x3xf32>, tensor<3xi32>) -> tensor<2x3xf32>
  func.return %r : tensor<2x3xf32>
}

// -----

func.func @f(%a: tensor<2x3xf32>, %b: tensor<4xf32>) -> tensor<2x3xf32> {
  // CHECK: relay.floor_mod: shapes [2, 3] and [4] do not broadcast
  %r = relay.floor_mod %a, %b : (tensor<2x3xf32>, tensor<4xf32>) -> tensor<2x3xf32>
  func.return %r : tensor<2x3xf32>
}

// -----

func.func @f(%a: tensor<2x3xf32>, %b: tensor<3xi32>) -> tensor<2x3xf32> {
  // CHECK: relay.mod: rhs has element type i32 but lhs has f32 (relay does not promote dtypes)
  %r = relay.mod %a, %b : (tensor<2x3xf32>, tensor<3xi32>) -> tensor<2x3xf32>
  func.return %r : tensor<2x3xf32>
}

// -----

func.func @f(%a: tensor<2x3xf32>, %b: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // CHECK: relay.equal: result #0 has type tensor<2x3xf32> but the type relation gives tensor<2x3xi1>
  %r = relay.equal %a, %b : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  func.return %r : tensor<2x3xf32>
}

// -----

func.func @f(%a: tensor<2x3xf32>, %b: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // CHECK: relay.not_equal: result #0 has type tensor<2x3xf32> but the type relation gives tensor<2x3xi1>
  %r = relay.not_equal %a, %b : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  func.return %r : tensor<2x3xf32>
}

// -----

func.func @f(%a: tensor<2x3xf32>, %b: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // CHECK: relay.less: result #0 has type tensor<2x3xf32> but the type relation gives tensor<2x3xi1>
  %r = relay.less %a, %b : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  func.return %r : tensor<2x3xf32>
}

// -----

func.func @f(%a: tensor<2x3xf32>, %b: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // CHECK: relay.less_equal: result #0 has type tensor<2x3xf32> but the type relation gives tensor<2x3xi1>
  %r = relay.less_equal %a, %b : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  func.return %r : tensor<2x3xf32>
}

// -----

func.func @f(%a: tensor<2x3xf32>, %b: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // CHECK: relay.greater: result #0 has type tensor<2x3xf32> but the type relation gives tensor<2x3xi1>
  %r = relay.greater %a, %b : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  func.return %r : tensor<2x3xf32>
}

// -----

func.func @f(%a: tensor<2x3xf32>, %b: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // CHECK: relay.greater_equal: result #0 has type tensor<2x3xf32> but the type relation gives tensor<2x3xi1>
  %r = relay.greater_equal %a, %b : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  func.return %r : tensor<2x3xf32>
}

// -----

func.func @f(%a: tensor<2x3xf32>, %b: tensor<2x3xf32>) -> tensor<2x3xi1> {
  // CHECK: relay.logical_and: operands must be i1, got f32
  %r = relay.logical_and %a, %b : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xi1>
  func.return %r : tensor<2x3xi1>
}

// -----

func.func @f(%a: tensor<2x3xf32>, %b: tensor<2x3xf32>) -> tensor<2x3xi1> {
  // CHECK: relay.logical_or: operands must be i1, got f32
  %r = relay.logical_or %a, %b : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xi1>
  func.return %r : tensor<2x3xi1>
}

// -----

func.func @f(%a: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // CHECK: relay.logical_not: data must be an i1 tensor, got tensor<2x3xf32>
  %r = relay.logical_not %a : (tensor<2x3xf32>) -> tensor<2x3xf32>
  func.return %r : tensor<2x3xf32>
}

// -----

func.func @f(%a: tensor<2x3xi32>) -> tensor<2x3xi32> {
  // CHECK: relay.exp: data must be a floating-point tensor, got tensor<2x3xi32>
  %r = relay.exp %a : (tensor<2x3xi32>) -> tensor<2x3xi32>
  func.return %r : tensor<2x3xi32>
}

// -----

func.func @f(%a: tensor<2x3xi32>) -> tensor<2x3xi32> {
  // CHECK: relay.fast_exp: data must be a floating-point tensor, got tensor<2x3xi32>
  %r = relay.fast_exp %a : (tensor<2x3xi32>) -> tensor<2x3xi32>
  func.return %r : tensor<2x3xi32>
}

// -----

func.func @f(%a: tensor<2x3xi32>) -> tensor<2x3xi32> {
  // CHECK: relay.log: data must be a floating-point tensor, got tensor<2x3xi32>
  %r = relay.log %a : (tensor<2x3xi32>) -> tensor<2x3xi32>
  func.return %r : tensor<2x3xi32>
}

// -----

func.func @f(%a: tensor<2x3xi32>) -> tensor<2x3xi32> {
  // CHECK: relay.sqrt: data must be a floating-point tensor, got tensor<2x3xi32>
  %r = relay.sqrt %a : (tensor<2x3xi32>) -> tensor<2x3xi32>
  func.return %r : tensor<2x3xi32>
}

// -----

func.func @f(%a: tensor<2x3xi32>) -> tensor<2x3xi32> {
  // CHECK: relay.rsqrt: data must be a floating-point tensor, got tensor<2x3xi32>
  %r = relay.rsqrt %a : (tensor<2x3xi32>) -> tensor<2x3xi32>
  func.return %r : tensor<2x3xi32>
}

// -----

func.func @f(%a: tensor<2x3xi32>) -> tensor<2x3xi32> {
  // CHECK: relay.sigmoid: data must be a floating-point tensor, got tensor<2x3xi32>
  %r = relay.sigmoid %a : (tensor<2x3xi32>) -> tensor<2x3xi32>
  func.return %r : tensor<2x3xi32>
}

// -----

func.func @f(%a: tensor<2x3xi32>) -> tensor<2x3xi32> {
  // CHECK: relay.tanh: data must be a floating-point tensor, got tensor<2x3xi32>
  %r = relay.tanh %a : (tensor<2x3xi32>) -> tensor<2x3xi32>
  func.return %r : tensor<2x3xi32>
}

// -----

func.func @f(%a: tensor<2x3xi32>) -> tensor<2x3xi32> {
  // CHECK: relay.fast_tanh: data must be a floating-point tensor, got tensor<2x3xi32>
  %r = relay.fast_tanh %a : (tensor<2x3xi32>) -> tensor<2x3xi32>
  func.return %r : tensor<2x3xi32>
}

// -----

func.func @f(%a: tensor<2x3xi32>) -> tensor<2x3xi32> {
  // CHECK: relay.erf: data must be a floating-point tensor, got tensor<2x3xi32>
  %r = relay.erf %a : (tensor<2x3xi32>) -> tensor<2x3xi32>
  func.return %r : tensor<2x3xi32>
}

// -----

func.func @f(%a: tensor<2x3xi32>) -> tensor<2x3xi32> {
  // CHECK: relay.fast_erf: data must be a floating-point tensor, got tensor<2x3xi32>
  %r = relay.fast_erf %a : (tensor<2x3xi32>) -> tensor<2x3xi32>
  func.return %r : tensor<2x3xi32>
}

// -----

func.func @f(%a: tensor<2x3xi32>) -> tensor<2x3xi32> {
  // CHECK: relay.sin: data must be a floating-point tensor, got tensor<2x3xi32>
  %r = relay.sin %a : (tensor<2x3xi32>) -> tensor<2x3xi32>
  func.return %r : tensor<2x3xi32>
}

// -----

func.func @f(%a: tensor<2x3xi32>) -> tensor<2x3xi32> {
  // CHECK: relay.cos: data must be a floating-point tensor, got tensor<2x3xi32>
  %r = relay.cos %a : (tensor<2x3xi32>) -> tensor<2x3xi32>
  func.return %r : tensor<2x3xi32>
}

// -----

func.func @f(%a: tensor<2x3xi32>) -> tensor<2x3xi32> {
  // CHECK: relay.acos: data must be a floating-point tensor, got tensor<2x3xi32>
  %r = relay.acos %a : (tensor<2x3xi32>) -> tensor<2x3xi32>
  func.return %r : tensor<2x3xi32>
}

// -----

func.func @f(%a: tensor<2x3xi32>) -> tensor<2x3xi32> {
  // CHECK: relay.asin: data must be a floating-point tensor, got tensor<2x3xi32>
  %r = relay.asin %a : (tensor<2x3xi32>) -> tensor<2x3xi32>
  func.return %r : tensor<2x3xi32>
}

// -----

func.func @f(%a: tensor<2x3xi32>) -> tensor<2x3xi32> {
  // CHECK: relay.atan: data must be a floating-point tensor, got tensor<2x3xi32>
  %r = relay.atan %a : (tensor<2x3xi32>) -> tensor<2x3xi32>
  func.return %r : tensor<2x3xi32>
}

// -----

func.func @f(%a: tensor<2x3xi32>) -> tensor<2x3xi32> {
  // CHECK: relay.acosh: data must be a floating-point tensor, got tensor<2x3xi32>
  %r = relay.acosh %a : (tensor<2x3xi32>) -> tensor<2x3xi32>
  func.return %r : tensor<2x3xi32>
}

// -----

func.func @f(%a: tensor<2x3xi32>) -> tensor<2x3xi32> {
  // CHECK: relay.asinh: data must be a floating-point tensor, got tensor<2x3xi32>
  %r = relay.asinh %a : (tensor<2x3xi32>) -> tensor<2x3xi32>
  func.return %r : tensor<2x3xi32>
}

// -----

func.func @f(%a: tensor<2x3xi32>) -> tensor<2x3xi32> {
  // CHECK: relay.atanh: data must be a floating-point tensor, got tensor<2x3xi32>
  %r = relay.atanh %a : (tensor<2x3xi32>) -> tensor<2x3xi32>
  func.return %r : tensor<2x3xi32>
}

// -----

func.func @f(%a: tensor<2x3xf32>) -> tensor<3x2xf32> {
  // CHECK: relay.negative: result #0 has type tensor<3x2xf32> but the type relation gives tensor<2x3xf32>
  %r = relay.negative %a : (tensor<2x3xf32>) -> tensor<3x2xf32>
  func.return %r : tensor<3x2xf32>
}

// -----

func.func @f(%a: tensor<2x3xf32>) -> tensor<3x2xf32> {
  // CHECK: relay.abs: result #0 has type tensor<3x2xf32> but the type relation gives tensor<2x3xf32>
  %r = relay.abs %a : (tensor<2x3xf32>) -> tensor<3x2xf32>
  func.return %r : tensor<3x2xf32>
}

// -----

func.func @f(%a: tensor<2x3xf32>) -> tensor<3x2xf32> {
  // CHECK: relay.sign: result #0 has type tensor<3x2xf32> but the type relation gives tensor<2x3xf32>
  %r = relay.sign %a : (tensor<2x3xf32>) -> tensor<3x2xf32>
  func.return %r : tensor<3x2xf32>
}

// -----

func.func @f(%a: tensor<2x3xf32>) -> tensor<3x2xf32> {
  // CHECK: relay.floor: result #0 has type tensor<3x2xf32> but the type relation gives tensor<2x3xf32>
  %r = relay.floor %a : (tensor<2x3xf32>) -> tensor<3x2xf32>
  func.return %r : tensor<3x2xf32>
}

// -----

func.func @f(%a: tensor<2x3xf32>) -> tensor<3x2xf32> {
  // CHECK: relay.ceil: result #0 has type tensor<3x2xf32> but the type relation gives tensor<2x3xf32>
  %r = relay.ceil %a : (tensor<2x3xf32>) -> tensor<3x2xf32>
  func.return %r : tensor<3x2xf32>
}

// -----

func.func @f(%a: tensor<2x3xf32>) -> tensor<3x2xf32> {
  // CHECK: relay.round: result #0 has type tensor<3x2xf32> but the type relation gives tensor<2x3xf32>
  %r = relay.round %a : (tensor<2x3xf32>) -> tensor<3x2xf32>
  func.return %r : tensor<3x2xf32>
}

// -----

func.func @f(%a: tensor<2x3xf32>) -> tensor<3x2xf32> {
  // CHECK: relay.trunc: result #0 has type tensor<3x2xf32> but the type relation gives tensor<2x3xf32>
  %r = relay.trunc %a : (tensor<2x3xf32>) -> tensor<3x2xf32>
  func.return %r : tensor<3x2xf32>
}

// -----

func.func @f(%a: tensor<2x3xf32>) -> tensor<3x2xf32> {
  // CHECK: relay.copy: result #0 has type tensor<3x2xf32> but the type relation gives tensor<2x3xf32>
  %r = relay.copy %a : (tensor<2x3xf32>) -> tensor<3x2xf32>
  func.return %r : tensor<3x2xf32>
}

// -----

func.func @f(%a: tensor<2x3xf32>) -> tensor<3x2xf32> {
  // CHECK: relay.nn.relu: result #0 has type tensor<3x2xf32> but the type relation gives tensor<2x3xf32>
  %r = relay.nn.relu %a : (tensor<2x3xf32>) -> tensor<3x2xf32>
  func.return %r : tensor<3x2xf32>
}

// -----

func.func @f(%a: tensor<2x3xi32>) -> tensor<2x3xi32> {
  // CHECK: relay.nn.leaky_relu: data must be a floating-point tensor, got tensor<2x3xi32>
  %r = relay.nn.leaky_relu %a : (tensor<2x3xi32>) -> tensor<2x3xi32>
  func.return %r : tensor<2x3xi32>
}

// -----

func.func @f(%a: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // CHECK: relay.clip: a_min 6.0 is larger than a_max 1.0
  %r = relay.clip %a {a_min = 6.0 : f64, a_max = 1.0 : f64} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  func.return %r : tensor<2x3xf32>
}

// -----

func.func @f(%a: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // CHECK: relay.cast: result #0 has type tensor<2x3xf32> but the type relation gives tensor<2x3xi8>
  %r = relay.cast %a {dtype = i8} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  func.return %r : tensor<2x3xf32>
}

// -----

func.func @f(%a: tensor<2x3xf32>, %b: tensor<1xi8>) -> tensor<2x3xf32> {
  // CHECK: relay.cast_like: result #0 has type tensor<2x3xf32> but the type relation gives tensor<2x3xi8>
  %r = relay.cast_like %a, %b : (tensor<2x3xf32>, tensor<1xi8>) -> tensor<2x3xf32>
  func.return %r : tensor<2x3xf32>
}

// -----

func.func @f(%c: tensor<2x3xi1>, %a: tensor<2x3xf32>, %b: tensor<2x3xf16>) -> tensor<2x3xf32> {
  // CHECK: relay.where: y has element type f16 but x has f32 (relay does not promote dtypes)
  %r = relay.where %c, %a, %b : (tensor<2x3xi1>, tensor<2x3xf32>, tensor<2x3xf16>) -> tensor<2x3xf32>
  func.return %r : tensor<2x3xf32>
}

// -----

func.func @f(%a: tensor<1x2x3xf32>, %s: tensor<3xf32>) -> tensor<1x2x3xf32> {
  // CHECK: relay.nn.prelu: alpha must have shape [2] (data.shape[1]), got tensor<3xf32>
  %r = relay.nn.prelu %a, %s : (tensor<1x2x3xf32>, tensor<3xf32>) -> tensor<1x2x3xf32>
  func.return %r : tensor<1x2x3xf32>
}

// -----

func.func @f(%a: tensor<1x2x3xf32>, %s: tensor<2xf32>) -> tensor<1x2x3xf32> {
  // CHECK: relay.nn.bias_add: axis 3 is out of range for rank 3
  %r = relay.nn.bias_add %a, %s {axis = 3 : i64} : (tensor<1x2x3xf32>, tensor<2xf32>) -> tensor<1x2x3xf32>
  func.return %r : tensor<1x2x3xf32>
}

// -----

func.func @f() -> tensor<2x3xf32> {
  // CHECK: relay.zeros: shape [2, -3] has a negative dimension
  %r = relay.zeros {shape = array<i64: 2, -3>, dtype = f32} : tensor<2x3xf32>
  func.return %r : tensor<2x3xf32>
}

// -----

func.func @f() -> tensor<2x3xf16> {
  // CHECK: relay.ones: result #0 has type tensor<2x3xf16> but the type relation gives tensor<2x3xf32>
  %r = relay.ones {shape = array<i64: 2, 3>, dtype = f32} : tensor<2x3xf16>
  func.return %r : tensor<2x3xf16>
}

// -----

func.func @f(%v: tensor<1xf32>) -> tensor<2x3xf32> {
  // CHECK: relay.full: fill_value must be a 0-d tensor, got tensor<1xf32>
  %r = relay.full %v {shape = array<i64: 2, 3>} : (tensor<1xf32>) -> tensor<2x3xf32>
  func.return %r : tensor<2x3xf32>
}

// -----

func.func @f(%a: tensor<2x3xf32>) -> tensor<2x3xi32> {
  // CHECK: relay.zeros_like: result #0 has type tensor<2x3xi32> but the type relation gives tensor<2x3xf32>
  %r = relay.zeros_like %a : (tensor<2x3xf32>) -> tensor<2x3xi32>
  func.return %r : tensor<2x3xi32>
}

// -----

func.func @f(%a: tensor<2x3xf32>) -> tensor<2xf32> {
  // CHECK: relay.ones_like: result #0 has type tensor<2xf32> but the type relation gives tensor<2x3xf32>
  %r = relay.ones_like %a : (tensor<2x3xf32>) -> tensor<2xf32>
  func.return %r : tensor<2xf32>
}

// -----

func.func @f(%a: tensor<2x3xf32>, %v: tensor<2xf32>) -> tensor<2x3xf32> {
  // CHECK: relay.full_like: fill_value must be a 0-d tensor, got tensor<2xf32>
  %r = relay.full_like %a, %v : (tensor<2x3xf32>, tensor<2xf32>) -> tensor<2x3xf32>
  func.return %r : tensor<2x3xf32>
}

// -----

func.func @f(%a: tensor<2x3xf32>) -> tensor<2x3xi16> {
  // CHECK: relay.reinterpret: dtype int16 has 16 bits, data's float32 32: reinterpret needs equal widths
  %r = relay.reinterpret %a {dtype = i16} : (tensor<2x3xf32>) -> tensor<2x3xi16>
  func.return %r : tensor<2x3xi16>
}

// -----

func.func @f(%a: tensor<4xi1>) -> tensor<4xi32> {
  // CHECK: relay.reinterpret: dtype int32 has 32 bits, data's bool 8: reinterpret needs equal widths
  %r = relay.reinterpret %a {dtype = i32} : (tensor<4xi1>) -> tensor<4xi32>
  func.return %r : tensor<4xi32>
}
