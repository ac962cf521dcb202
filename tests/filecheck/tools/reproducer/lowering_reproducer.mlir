// Lowering failing under xrelay-run (after the relay passes) writes a reproducer:
// the IR handed to lowering, the lowering passes as its pipeline and LLVM IR as
// its output; replaying it fails with the same error, at the same source location.
// RUN: rm -rf %t && mkdir -p %t
// RUN: not xrelay-run %s --executor llvm --no-cache --reproducer-dir %t/run 2>&1 | filecheck %s --check-prefix=FAILED
// RUN: filecheck %s --check-prefix=FILE < %t/run/xrelay-reproducer-0.mlir
// RUN: not xrelay-opt --run-reproducer %t/run/xrelay-reproducer-0.mlir 2>&1 | filecheck %s --check-prefix=REPLAY
// $XRELAY_REPRODUCER_DIR works for xrelay-run's lowering too.
// RUN: env XRELAY_REPRODUCER_DIR=%t/env not xrelay-run %s --executor llvm --no-cache 2>&1 | filecheck %s --check-prefix=FAILED
// RUN: not xrelay-opt --run-reproducer %t/env/xrelay-reproducer-0.mlir 2>&1 | filecheck %s --check-prefix=REPLAY
// Without a reproducer folder nothing is written.
// RUN: not xrelay-run %s --executor llvm --no-cache 2>&1 | filecheck %s --check-prefix=NONE
// A program that lowers writes nothing either.
// RUN: xrelay-run %S/../inputs/model.mlir --executor llvm --no-cache --reproducer-dir %t/ok > /dev/null
// RUN: not ls %t/ok/xrelay-reproducer-0.mlir

// FAILED: error: {{.*}}recursive functions cannot be lowered
// FAILED-NEXT: xrelay-run: note: crash reproducer written to {{.*}}xrelay-reproducer-0.mlir
// FAILED-NOT: Traceback

// FILE: // xrelay-reproducer: {"config": {}, "disabled_pass": [], "opt_level": 3, "pipeline": "relay-to-kernels{entry=\"main\" profile=false},plan-memory,lower-to-llvm", "required_pass": [], "target": "llvm"}
// FILE-NEXT: // error: @f: recursive functions cannot be lowered (in lowering)
// FILE-NEXT: // replay: xrelay-opt --run-reproducer <this file>
// FILE-NEXT: builtin.module {
// FILE: func.func @f
// FILE: relay.primitive

// REPLAY: lowering_reproducer.mlir:[[# @LINE + 4]]:1: error: @f: recursive functions cannot be lowered (in pass RelayToKernels)
// REPLAY-NOT: Traceback

// NONE-NOT: note: crash reproducer
func.func @f(%x: tensor<2xf32>) -> tensor<2xf32> {
  %0 = relay.nn.relu %x : (tensor<2xf32>) -> tensor<2xf32>
  %1 = func.call @f(%0) : (tensor<2xf32>) -> tensor<2xf32>
  func.return %1 : tensor<2xf32>
}
func.func @main(%x: tensor<2xf32>) -> tensor<2xf32> {
  %0 = func.call @f(%x) : (tensor<2xf32>) -> tensor<2xf32>
  %1 = relay.negative %0 : (tensor<2xf32>) -> tensor<2xf32>
  func.return %1 : tensor<2xf32>
}
