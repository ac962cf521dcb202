// A value used before its definition is rejected by the verifier (xDSL's does not
// check dominance), located at the user, by xrelay-opt and xrelay-run:
// RUN: not xrelay-opt %S/inputs/use_before_def.mlir 2>&1 | filecheck %s
// RUN: not xrelay-opt %S/inputs/use_before_def.mlir -p relay-optimize 2>&1 | filecheck %s
// RUN: not xrelay-run %S/inputs/use_before_def.mlir 2>&1 | filecheck %s
// CHECK: use_before_def.mlir:2:8: error: relay.add: operand #0 (relay.negative) is used before its definition
// CHECK-NOT: Traceback

// A use of an enclosing block's value inside a relay.if branch is fine:
// RUN: xrelay-opt %s | filecheck %s --check-prefix=OK
// OK: relay.if
func.func @main(%c: tensor<i1>, %x: tensor<2xf32>) -> tensor<2xf32> {
  %0 = relay.negative %x : (tensor<2xf32>) -> tensor<2xf32>
  %1 = relay.if %c : tensor<i1> -> (tensor<2xf32>) {
    %2 = relay.add %0, %x : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    relay.yield %2 : tensor<2xf32>
  } else {
    relay.yield %0 : tensor<2xf32>
  }
  func.return %1 : tensor<2xf32>
}
