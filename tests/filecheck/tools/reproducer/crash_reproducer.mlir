// A pass that breaks the IR writes a reproducer: the IR just before it (constants
// folded by the pass before), the pipeline from it on and the PassContext.
// RUN: rm -rf %t && mkdir -p %t
// RUN: not xrelay-opt %s -p fold-constant,test-break-ir,infer-type --opt-level 3 --disabled-pass FuseOps --pass-config relay.FuseOps.max_depth=8 --crash-reproducer %t/full.mlir 2>&1 | filecheck %s --check-prefix=FAIL
// RUN: filecheck %s --check-prefix=FULL < %t/full.mlir
// Replaying it fails with the same diagnostic, at the same source location.
// RUN: not xrelay-opt --run-reproducer %t/full.mlir 2>&1 | filecheck %s --check-prefix=REPLAY
// A local reproducer holds the failing pass alone.
// RUN: not xrelay-opt %s -p fold-constant,test-break-ir,infer-type --local-reproducer --reproducer-dir %t/dir 2>&1 | filecheck %s --check-prefix=LOCAL-NOTE
// RUN: filecheck %s --check-prefix=LOCAL < %t/dir/xrelay-reproducer-0.mlir
// RUN: not xrelay-opt --run-reproducer %t/dir/xrelay-reproducer-0.mlir 2>&1 | filecheck %s --check-prefix=REPLAY
// $XRELAY_REPRODUCER_DIR, and a pass that raises (a numbered file per failure).
// RUN: env XRELAY_REPRODUCER_DIR=%t/dir not xrelay-opt %s -p 'test-break-ir{mode=raise}' 2>&1 | filecheck %s --check-prefix=RAISE-NOTE
// RUN: not xrelay-opt --run-reproducer %t/dir/xrelay-reproducer-1.mlir 2>&1 | filecheck %s --check-prefix=RAISE
// xrelay-run writes them too.
// RUN: not xrelay-run %s -p fold-constant,test-break-ir --executor interpreter --reproducer-dir %t/run 2>&1 | filecheck %s --check-prefix=RUN-NOTE
// RUN: filecheck %s --check-prefix=RUN-LOCAL < %t/run/xrelay-reproducer-0.mlir
// A failure outside any pass (the input does not parse) writes nothing.
// RUN: echo 'func.func @main(' | not xrelay-opt -p infer-type --reproducer-dir %t/none 2>&1 | filecheck %s --check-prefix=NONE
// RUN: not ls %t/none/xrelay-reproducer-0.mlir

// FAIL: crash_reproducer.mlir:[[# @LINE + 27]]:8: error: the IR after pass 'TestBreakIR' does not verify: relay.multiply: result #0 has type tensor<2x1xf32> but the type relation gives tensor<2xf32> (in pass TestBreakIR)
// FAIL-NEXT: xrelay-opt: note: crash reproducer written to {{.*}}full.mlir

// FULL: // xrelay-reproducer: {"config": {"relay.FuseOps.max_depth": 8}, "disabled_pass": ["FuseOps"], "opt_level": 3, "pipeline": "test-break-ir,infer-type", "required_pass": []}
// FULL-NEXT: // error: the IR after pass 'TestBreakIR' does not verify: relay.multiply: {{.*}} (in pass TestBreakIR)
// FULL-NEXT: // replay: xrelay-opt --run-reproducer <this file>
// FULL-NEXT: builtin.module {
// FULL-NEXT:   func.func @main
// FULL-NEXT:     %{{.*}} = relay.constant dense<[2.000000e+00, 4.000000e+00]>
// FULL-NEXT:     relay.multiply {{.*}} loc("{{.*}}crash_reproducer.mlir":[[# @LINE + 18]]:8)

// REPLAY: crash_reproducer.mlir:[[# @LINE + 16]]:8: error: the IR after pass 'TestBreakIR' does not verify: relay.multiply: result #0 has type tensor<2x1xf32> but the type relation gives tensor<2xf32> (in pass TestBreakIR)

// LOCAL-NOTE: note: crash reproducer written to {{.*}}dir/xrelay-reproducer-0.mlir
// LOCAL: // xrelay-reproducer: {"config": {}, "disabled_pass": [], "opt_level": 2, "pipeline": "test-break-ir", "required_pass": []}
// xrelay-run compiles at opt_level 3 by default
// RUN-LOCAL: // xrelay-reproducer: {"config": {}, "disabled_pass": [], "opt_level": 3, "pipeline": "test-break-ir", "required_pass": []}

// RAISE-NOTE: note: crash reproducer written to {{.*}}dir/xrelay-reproducer-1.mlir
// RAISE: crash_reproducer.mlir:[[# @LINE + 7]]:8: error: relay.add: broken on purpose by test-break-ir (in pass TestBreakIR)

// RUN-NOTE: xrelay-run: note: crash reproducer written to {{.*}}run/xrelay-reproducer-0.mlir
// NONE: error: 

func.func @main(%x: tensor<2xf32>) -> tensor<2xf32> {
  %a = relay.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %b = relay.add %a, %a : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  %c = relay.multiply %x, %b : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  func.return %c : tensor<2xf32>
}
