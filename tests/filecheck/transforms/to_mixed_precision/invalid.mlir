// Bad options are one-line errors.
// RUN: not xrelay-opt %s -p 'to-mixed-precision{mixed-precision-type=int8}' 2>&1 | filecheck %s --check-prefix=TYPE
// RUN: not xrelay-opt %s -p 'to-mixed-precision{never-ops=nn.convv}' 2>&1 | filecheck %s --check-prefix=OP
// RUN: not xrelay-opt %s -p 'to-mixed-precision{never-ops=nn.dense always-ops=nn.dense}' 2>&1 | filecheck %s --check-prefix=TWICE
// RUN: not xrelay-opt %s -p relay-optimize --pass-config xrelay.mixed_precision_type=int8 2>&1 | filecheck %s --check-prefix=PIPE

// PIPE: error: ToMixedPrecision: mixed_precision_type must be one of bfloat16, float16, got 'int8' (in pass RelayOptimize)
// TYPE: error: ToMixedPrecision: mixed_precision_type must be one of bfloat16, float16, got 'int8'
// TYPE-NOT: Traceback
// OP: error: ToMixedPrecision: never_ops names an unknown op 'nn.convv'
// TWICE: error: ToMixedPrecision: nn.dense is given two categories

func.func @main(%x: tensor<2x2xf32>) -> tensor<2x2xf32> {
  %0 = relay.nn.dense %x, %x : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  func.return %0 : tensor<2x2xf32>
}
