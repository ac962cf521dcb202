// expected-warning and expected-note, with the diagnostics test-diagnostics emits
// where the ops ask for them (tools/test_passes.py).
// RUN: xrelay-opt %s --verify-diagnostics -p test-diagnostics
// A note not expected fails:
// RUN: sed 's/expected-note/expected-nothing/' %s > %t.mlir
// RUN: not xrelay-opt %t.mlir --verify-diagnostics -p test-diagnostics 2>&1 | filecheck %s --check-prefix=NOTE
// Without --verify-diagnostics the warning is a located line on stderr:
// RUN: not xrelay-opt %s -p test-diagnostics 2>&1 | filecheck %s --check-prefix=PLAIN

func.func @main(%x: tensor<2xf32>) -> tensor<2xf32> {
  // PLAIN: warnings_notes.mlir:[[# @LINE + 2]]:8: warning: first warning
  // expected-warning @+1 {{first warning}}
  %0 = relay.nn.relu %x {test.warning = "first warning"} : (tensor<2xf32>) -> tensor<2xf32>
  // expected-warning @+1 {{second warning}}
  %1 = relay.nn.relu %0 {test.warning = "second warning"} : (tensor<2xf32>) -> tensor<2xf32>
  // NOTE: .mlir:[[# @LINE + 1]]:8: error: unexpected note: the note
  %2 = relay.nn.relu %1 {test.note = "the note"} : (tensor<2xf32>) -> tensor<2xf32> // expected-note {{the note}}
  // PLAIN: warnings_notes.mlir:[[# @LINE + 2]]:8: error: the error (in pass TestDiagnostics)
  // expected-error @below {{the error}}
  %3 = relay.nn.relu %2 {test.error = "the error"} : (tensor<2xf32>) -> tensor<2xf32>
  func.return %3 : tensor<2xf32>
}
