// xdsl-opt's own flags keep working in xrelay-opt.

// -p with a pass option (xDSL's {key=value} syntax, mapped to the pass's keyword option):
// RUN: xrelay-opt %s --split-input-file -p 'remove-unused-functions{entry-functions=helper}' | filecheck %s --check-prefix=OPTION
// OPTION:     func.func @helper
// OPTION-NOT: func.func @main
// OPTION:     {{/}}/ -----
// OPTION:     func.func @helper
// OPTION-NOT: func.func @second

// --split-input-file: every chunk is processed (and printed) on its own:
// RUN: xrelay-opt %s --split-input-file -p infer-type | filecheck %s --check-prefix=SPLIT
// SPLIT:      func.func @main(%x: tensor<2x3xf32>) -> tensor<2x3xf32>
// SPLIT:      {{/}}/ -----
// SPLIT:      func.func @second(%y: tensor<4xf32>) -> tensor<4xf32>

// --print-op-generic:
// RUN: xrelay-opt %s --split-input-file --print-op-generic | filecheck %s --check-prefix=GENERIC
// GENERIC: "relay.nn.relu"(%{{.*}}) : (tensor<2x3xf32>) -> tensor<*xf32>

// -o writes the output to a file (and nothing to stdout):
// RUN: xrelay-opt %s --split-input-file -p infer-type -o %t.out | filecheck %s --check-prefix=NOSTDOUT --allow-empty
// NOSTDOUT-NOT: {{.}}
// RUN: filecheck %s --check-prefix=SPLIT --input-file %t.out

// -t llvm prints LLVM IR (xDSL's llvm target) once the IR is lowered:
// RUN: xrelay-opt %S/inputs/model.mlir -p relay-lower-to-llvm -t llvm | filecheck %s --check-prefix=LLVM
// LLVM: target triple
// LLVM: define

// -t mlir (the default target) and --print-debuginfo, which shows the file:line:col
// locations xrelay-opt attaches to every parsed op (lines count in the whole file;
// the checks are next to the ops):
// RUN: xrelay-opt %s --split-input-file -t mlir --print-debuginfo | filecheck %s --check-prefix=DEBUGINFO

func.func @helper(%a: tensor<2xf32>) -> tensor<2xf32> {
  func.return %a : tensor<2xf32>
}

func.func @main(%x: tensor<2x3xf32>) -> tensor<*xf32> {
  // DEBUGINFO: relay.nn.relu {{.*}} loc("{{.*}}opt_xdsl_flags.mlir":[[# @LINE + 2]]:8)
  // DEBUGINFO: } loc("{{.*}}opt_xdsl_flags.mlir":[[# @LINE - 2]]:1)
  %0 = relay.nn.relu %x : (tensor<2x3xf32>) -> tensor<*xf32>
  func.return %0 : tensor<*xf32>
}

// -----

func.func @helper(%a: tensor<2xf32>) -> tensor<2xf32> {
  func.return %a : tensor<2xf32>
}

func.func @second(%y: tensor<4xf32>) -> tensor<*xf32> {
  // DEBUGINFO: relay.nn.relu {{.*}} loc("{{.*}}opt_xdsl_flags.mlir":[[# @LINE + 1]]:8)
  %0 = relay.nn.relu %y : (tensor<4xf32>) -> tensor<*xf32>
  func.return %0 : tensor<*xf32>
}
