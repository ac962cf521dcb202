// Bad destinations and bad reproducers are one-line errors.
// RUN: rm -rf %t && mkdir -p %t && touch %t/file
// RUN: not xrelay-opt %s -p infer-type --reproducer-dir %t/file/sub 2>&1 | filecheck %s --check-prefix=DIR
// RUN: not xrelay-opt %s -p infer-type --crash-reproducer %t/missing/r.mlir 2>&1 | filecheck %s --check-prefix=FILE
// RUN: not xrelay-opt --run-reproducer %s 2>&1 | filecheck %s --check-prefix=NOHEADER
// RUN: printf '// xrelay-reproducer: {"pipeline": "infer-type", "opt_level": "3"}\n' > %t/bad.mlir
// RUN: not xrelay-opt --run-reproducer %t/bad.mlir 2>&1 | filecheck %s --check-prefix=BADFIELD
// RUN: printf '// xrelay-reproducer: {"pipeline": \n' > %t/bad2.mlir
// RUN: not xrelay-opt --run-reproducer %t/bad2.mlir 2>&1 | filecheck %s --check-prefix=BADJSON
// RUN: not xrelay-opt --run-reproducer %t/absent.mlir 2>&1 | filecheck %s --check-prefix=ABSENT
// RUN: not xrelay-opt %s --run-reproducer %t/bad.mlir 2>&1 | filecheck %s --check-prefix=BOTH

// DIR: xrelay-opt: error: reproducer folder {{.*}}file/sub: cannot create: Not a directory
// DIR-NOT: Traceback
// FILE: xrelay-opt: error: crash reproducer {{.*}}missing/r.mlir: {{.*}}missing is not a folder
// NOHEADER: reproducer_errors.mlir:1:1: error: not a crash reproducer: no '// xrelay-reproducer:' line before the IR
// BADFIELD: bad.mlir:1:1: error: malformed crash reproducer header: 'opt_level' must be a int
// BADJSON: bad2.mlir:1:1: error: malformed crash reproducer header: Expecting value at column 36
// ABSENT: xrelay-opt: error: --run-reproducer {{.*}}absent.mlir: cannot read: No such file or directory
// BOTH: xrelay-opt: error: --run-reproducer: give the reproducer, not an input file

func.func @main(%x: tensor<2xf32>) -> tensor<2xf32> {
  func.return %x : tensor<2xf32>
}
