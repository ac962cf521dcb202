// --opt-level / --required-pass / --disabled-pass map onto the one PassContext the
// pipeline runs in. They gate the children of a Sequential (here relay-optimize's
// pass prefix: FoldConstant is opt_level 2, EliminateCommonSubexpr 3); the
// PassTimingInstrument tree on stderr shows which passes ran.

// RUN: xrelay-opt %s -p relay-optimize --opt-level 0 --time-passes 2>&1 >/dev/null | filecheck %s --check-prefix=O0
// O0:     RelayOptimize:
// O0-NOT: FoldConstant
// O0-NOT: EliminateCommonSubexpr

// RUN: xrelay-opt %s -p relay-optimize --time-passes 2>&1 >/dev/null | filecheck %s --check-prefix=O2
// O2:     RelayOptimize:
// O2-NOT: EliminateCommonSubexpr
// O2:     FoldConstant:

// RUN: xrelay-opt %s -p relay-optimize --opt-level 3 --time-passes 2>&1 >/dev/null | filecheck %s --check-prefix=O3
// O3: EliminateCommonSubexpr:
// O3: FoldConstant:

// --required-pass runs a pass above the opt_level (TVM or pipeline name, comma lists):
// RUN: xrelay-opt %s -p relay-optimize --opt-level 0 --required-pass fold-constant,EliminateCommonSubexpr --time-passes 2>&1 >/dev/null | filecheck %s --check-prefix=REQUIRED
// REQUIRED: EliminateCommonSubexpr:
// REQUIRED: FoldConstant:

// --disabled-pass beats both (repeatable):
// RUN: xrelay-opt %s -p relay-optimize --opt-level 3 --required-pass FoldConstant --disabled-pass FoldConstant --disabled-pass eliminate-common-subexpr --time-passes 2>&1 >/dev/null | filecheck %s --check-prefix=DISABLED
// DISABLED:     RelayOptimize:
// DISABLED-NOT: FoldConstant
// DISABLED-NOT: EliminateCommonSubexpr

// The IR tells the same story: at opt_level 2 the constant add is folded, at 0 not.
// RUN: xrelay-opt %s -p relay-optimize | filecheck %s --check-prefix=FOLDED
// FOLDED: relay.constant dense<[2.000000e+00, 4.000000e+00]>
// RUN: xrelay-opt %s -p relay-optimize --opt-level 2 --disabled-pass FoldConstant | filecheck %s --check-prefix=KEPT
// KEPT-NOT: dense<[2.000000e+00, 4.000000e+00]>

// A pass named in -p always runs (TVM: a directly called pass is not gated); naming
// it in --disabled-pass too draws a warning:
// RUN: xrelay-opt %s -p fold-constant --disabled-pass FoldConstant 2>&1 | filecheck %s --check-prefix=EXPLICIT
// EXPLICIT: xrelay-opt: warning: pass fold-constant is named in -p and in --disabled-pass: it runs
// EXPLICIT: relay.constant dense<[2.000000e+00, 4.000000e+00]>

// An unknown name in --disabled-pass / --required-pass is a warning (it may name a
// pass made in Python), not an error:
// RUN: xrelay-opt %s --disabled-pass FoldConstnat 2>&1 | filecheck %s --check-prefix=UNKNOWN
// UNKNOWN: xrelay-opt: warning: --disabled-pass FoldConstnat: Cannot use FoldConstnat to create the pass (did you mean FoldConstant{{.*}}?); the name is used as given
// UNKNOWN: func.func @main

// A bad --opt-level is a usage error:
// RUN: not xrelay-opt %s --opt-level -1 2>&1 | filecheck %s --check-prefix=BADLEVEL
// BADLEVEL: xrelay-opt: error: argument --opt-level: must be >= 0, got -1 (see xrelay-opt --help)
// BADLEVEL-NOT: Traceback

func.func @main(%x: tensor<2xf32>) -> tensor<2xf32> {
  %a = relay.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %b = relay.add %a, %a : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  %c = relay.multiply %x, %b : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  func.return %c : tensor<2xf32>
}
