// Every error a user can cause is one line on stderr, `file:line:col: error: ...`
// where there is a location, and a non-zero exit code; no Python traceback.

// Unknown pass (with a suggestion):
// RUN: not xrelay-opt %s -p infer-typ 2>&1 | filecheck %s --check-prefix=UNKNOWN-PASS
// UNKNOWN-PASS: xrelay-opt: error: unknown pass 'infer-typ' (did you mean infer-type{{.*}}?); 'xrelay-opt --list-passes' lists them
// UNKNOWN-PASS-NOT: Traceback

// Unknown pass option:
// RUN: not xrelay-opt %s -p 'fuse-ops{depth=2}' 2>&1 | filecheck %s --check-prefix=UNKNOWN-OPTION
// UNKNOWN-OPTION: xrelay-opt: error: invalid options for pass 'fuse-ops': Provided arguments ["depth"] not found in expected arguments ["fuse_opt_level"]
// UNKNOWN-OPTION-NOT: Traceback

// Bad option value:
// RUN: not xrelay-opt %s -p 'fuse-ops{fuse-opt-level=high}' 2>&1 | filecheck %s --check-prefix=BAD-OPTION
// BAD-OPTION: xrelay-opt: error: invalid options for pass 'fuse-ops': Incompatible types: given ('high',), expected <class 'int'>
// BAD-OPTION-NOT: Traceback

// Malformed pipeline:
// RUN: not xrelay-opt %s -p 'infer-type{' 2>&1 | filecheck %s --check-prefix=BAD-PIPELINE
// BAD-PIPELINE: xrelay-opt: error: invalid pass pipeline: column 12: Expected argument name here
// BAD-PIPELINE-NOT: Traceback

// Unparsable IR, located:
// RUN: not xrelay-opt %S/inputs/parse_error.mlir 2>&1 | filecheck %s --check-prefix=PARSE
// PARSE: {{.*}}inputs/parse_error.mlir:5:1: error: expected 0 operand types but had 1
// PARSE-NOT: Traceback

// ... also in a later chunk of --split-input-file (lines count in the whole file):
// RUN: not xrelay-opt %S/inputs/split_errors.mlir --split-input-file 2>&1 | filecheck %s --check-prefix=SPLIT-PARSE
// SPLIT-PARSE: {{.*}}inputs/split_errors.mlir:10:3: error: {{.*}}
// SPLIT-PARSE-NOT: Traceback

// A verifier failure (outside --verify-diagnostics), at the failing op:
// RUN: not xrelay-opt %S/inputs/verify_error.mlir 2>&1 | filecheck %s --check-prefix=VERIFY
// VERIFY: {{.*}}inputs/verify_error.mlir:3:8: error: relay.add: shapes [2, 3] and [4] do not broadcast
// VERIFY-NOT: Traceback
// VERIFY-NOT: builtin.module

// A pass failure, at the op it names, with the pass:
// RUN: not xrelay-opt %S/inputs/infer_error.mlir -p infer-type 2>&1 | filecheck %s --check-prefix=PASS-FAIL
// PASS-FAIL: {{.*}}inputs/infer_error.mlir:4:8: error: relay.reshape: cannot reshape [2, 3] (6 elements) to [7] (7 elements) (newshape [7]) (in pass InferType)
// PASS-FAIL-NOT: Traceback

// Nested in a Sequential, the innermost pass is named:
// RUN: not xrelay-opt %S/inputs/infer_error.mlir -p relay-optimize 2>&1 | filecheck %s --check-prefix=NESTED
// NESTED: {{.*}}inputs/infer_error.mlir:4:8: error: relay.reshape: cannot reshape {{.*}} (in pass InferType){{$}}
// NESTED-NOT: Traceback

// An unreadable input file:
// RUN: not xrelay-opt %S/inputs/no_such_file.mlir 2>&1 | filecheck %s --check-prefix=MISSING
// MISSING: xrelay-opt: error: cannot access '{{.*}}no_such_file.mlir': No such file or directory
// MISSING-NOT: Traceback

// An input that is not MLIR:
// RUN: not xrelay-opt %S/inputs/not_mlir.txt 2>&1 | filecheck %s --check-prefix=EXTENSION
// EXTENSION: xrelay-opt: error: {{.*}}not_mlir.txt: Unrecognized file extension 'txt' (give -f mlir to read it as MLIR)

// An unknown flag (usage errors are one line too, exit code 2):
// RUN: not xrelay-opt %s --no-such-flag 2>&1 | filecheck %s --check-prefix=FLAG
// FLAG: xrelay-opt: error: unrecognized arguments: --no-such-flag (see xrelay-opt --help)
// FLAG-NOT: usage:

// -o naming the input file is refused (the input is never modified):
// RUN: cp %s %t.mlir
// RUN: not xrelay-opt %t.mlir -o %t.mlir 2>&1 | filecheck %s --check-prefix=OVERWRITE
// RUN: diff %s %t.mlir
// OVERWRITE: xrelay-opt: error: -o {{.*}}.mlir: refusing to overwrite the input file

// A failure leaves no -o file behind:
// RUN: rm -f %t.out
// RUN: not xrelay-opt %S/inputs/infer_error.mlir -p infer-type -o %t.out
// RUN: not ls %t.out

// -t llvm on IR that is not lowered to the llvm dialect:
// RUN: not xrelay-opt %s -t llvm 2>&1 | filecheck %s --check-prefix=TARGET
// TARGET: opt_errors.mlir:{{[0-9]+}}:1: error: func.func: only llvm.func and llvm.global can be translated to LLVM IR (run relay-lower-to-llvm first)
// TARGET-NOT: Traceback

// --debug shows the traceback instead:
// RUN: not xrelay-opt %S/inputs/verify_error.mlir --debug 2>&1 | filecheck %s --check-prefix=DEBUG
// DEBUG: Traceback
// DEBUG: relay.add: shapes [2, 3] and [4] do not broadcast

func.func @main(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = relay.nn.relu %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
  func.return %0 : tensor<2x3xf32>
}
