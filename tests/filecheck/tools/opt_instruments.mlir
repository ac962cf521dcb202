// The print-IR instruments and --time-passes write to stderr; stdout holds only the
// resulting IR.

// RUN: xrelay-opt %s -p infer-type,canonicalize --print-ir-before InferType --print-ir-after canonicalize 2>&1 >/dev/null | filecheck %s --check-prefix=NAMED
// NAMED:      Print IR before: InferType
// NAMED-NEXT: builtin.module {
// NAMED:      relay.nn.relu %x : (tensor<2x3xf32>) -> tensor<*xf32>
// NAMED-NOT:  Print IR before
// NAMED:      Print IR after: canonicalize
// NAMED:      relay.nn.relu %x : (tensor<2x3xf32>) -> tensor<2x3xf32>

// Pipeline names work as well as TVM names, in comma lists or repeated:
// RUN: xrelay-opt %s -p infer-type,canonicalize --print-ir-after infer-type,canonicalize 2>&1 >/dev/null | filecheck %s --check-prefix=LIST
// RUN: xrelay-opt %s -p infer-type,canonicalize --print-ir-after infer-type --print-ir-after canonicalize 2>&1 >/dev/null | filecheck %s --check-prefix=LIST
// LIST: Print IR after: InferType
// LIST: Print IR after: canonicalize

// RUN: xrelay-opt %s -p infer-type,canonicalize --print-ir-before-all 2>&1 >/dev/null | filecheck %s --check-prefix=BEFOREALL
// BEFOREALL: Before Running Pass: The meta data of the pass - pass name: InferType, opt_level: 0
// BEFOREALL: Before Running Pass: The meta data of the pass - pass name: canonicalize, opt_level: 0

// RUN: xrelay-opt %s -p infer-type,canonicalize --print-ir-after-all 2>&1 >/dev/null | filecheck %s --check-prefix=AFTERALL
// AFTERALL: After Running Pass: The meta data of the pass - pass name: InferType, opt_level: 0
// AFTERALL: tensor<2x3xf32>) -> tensor<2x3xf32>
// AFTERALL: After Running Pass: The meta data of the pass - pass name: canonicalize, opt_level: 0

// --time-passes: the PassTimingInstrument tree (one line per pass, nested passes
// indented), xDSL's passes included:
// RUN: xrelay-opt %s -p infer-type,canonicalize --time-passes 2>&1 >/dev/null | filecheck %s --check-prefix=TIME
// TIME:      {{^}}InferType: {{[0-9]+}}us [{{[0-9]+}}us] ({{[0-9.]+}}%; {{[0-9.]+}}%)
// TIME-NEXT: {{^}}canonicalize: {{[0-9]+}}us

// --print-between-passes (xdsl-opt's flag) also goes to stderr:
// RUN: xrelay-opt %s -p infer-type,canonicalize --print-between-passes 2>&1 >/dev/null | filecheck %s --check-prefix=BETWEEN
// BETWEEN: IR after infer-type:

// None of it reaches stdout:
// RUN: xrelay-opt %s -p infer-type,canonicalize --print-ir-before-all --print-ir-after-all --print-ir-before InferType --time-passes --print-between-passes 2>/dev/null | filecheck %s --check-prefix=STDOUT
// STDOUT-NOT: Print IR
// STDOUT-NOT: Running Pass
// STDOUT-NOT: us [
// STDOUT:     builtin.module {
// STDOUT-NOT: Print IR
// STDOUT-NOT: Running Pass
// STDOUT-NOT: us [
// STDOUT-NOT: IR after

// An unknown name draws a warning:
// RUN: xrelay-opt %s --print-ir-after NoSuchPass 2>&1 >/dev/null | filecheck %s --check-prefix=WARN
// WARN: xrelay-opt: warning: --print-ir-after NoSuchPass: no pass of that name is registered

func.func @main(%x: tensor<2x3xf32>) -> tensor<*xf32> {
  %0 = relay.nn.relu %x : (tensor<2x3xf32>) -> tensor<*xf32>
  func.return %0 : tensor<*xf32>
}
