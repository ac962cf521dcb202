// RUN: not xrelay-opt %s -p annotate-spans,infer-type 2>&1 | filecheck %s
// RUN: xrelay-opt %s -p annotate-spans,infer-type --verify-diagnostics | filecheck %s --check-prefix=DIAG
// RUN: not xrelay-opt %s -p 'annotate-spans{bogus=1}' 2>&1 | filecheck %s --check-prefix=OPT

// After AnnotateSpans, a later pass's error points into the printed program (line 4
// of `xrelay-opt` output: the reshape), not at this file.
// CHECK: GeneratedSource:4:10: error: relay.reshape: cannot reshape [2, 3] (6 elements) to [7] (7 elements)
// CHECK-NOT: Traceback
// DIAG: relay.reshape: cannot reshape [2, 3] (6 elements) to [7] (7 elements)
// OPT: error: {{.*}}bogus
func.func @f(%x: tensor<2x3xf32>) -> tensor<*xf32> {
  %0 = relay.nn.relu %x : (tensor<2x3xf32>) -> tensor<*xf32>
  %1 = relay.reshape %0 {newshape = array<i64: 7>} : (tensor<*xf32>) -> tensor<*xf32>
  func.return %1 : tensor<*xf32>
}
