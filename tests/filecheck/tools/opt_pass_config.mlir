// --pass-config KEY=VALUE sets a registered PassContext config option, typed by its
// registration (repeatable).

// relay.FuseOps.max_depth=1 puts every op in a fused function of its own:
// RUN: xrelay-opt %s -p fuse-ops --pass-config relay.FuseOps.max_depth=1 --pass-config relay.FuseOps.link_params=false | filecheck %s --check-prefix=DEPTH1
// DEPTH1: func.func private @fused_multiply(
// DEPTH1: func.func private @fused_add(
// DEPTH1: func.func private @fused_nn_relu(
// RUN: xrelay-opt %s -p fuse-ops | filecheck %s --check-prefix=DEFAULT
// DEFAULT: func.func private @fused_multiply_add_nn_relu(

// --list-pass-configs lists the registered options:
// RUN: xrelay-opt --list-pass-configs | filecheck %s --check-prefix=LIST
// LIST: relay.FuseOps.max_depth  (int, default 256)
// LIST: xrelay.verify_each  (bool, default True)

// An unregistered key is a one-line error listing the closest candidates:
// RUN: not xrelay-opt %s --pass-config relay.FuseOps.max_dept=3 2>&1 | filecheck %s --check-prefix=UNKNOWN
// UNKNOWN: xrelay-opt: error: --pass-config relay.FuseOps.max_dept=3: Invalid config option 'relay.FuseOps.max_dept' candidates are: relay.FuseOps.max_depth
// UNKNOWN-NOT: Traceback

// A value of the wrong type:
// RUN: not xrelay-opt %s --pass-config relay.FuseOps.max_depth=deep 2>&1 | filecheck %s --check-prefix=BADVALUE
// BADVALUE: xrelay-opt: error: --pass-config relay.FuseOps.max_depth=deep: Expect config relay.FuseOps.max_depth to have type int, but instead get 'deep'
// BADVALUE-NOT: Traceback

// Not KEY=VALUE:
// RUN: not xrelay-opt %s --pass-config relay.FuseOps.max_depth 2>&1 | filecheck %s --check-prefix=NOVALUE
// NOVALUE: xrelay-opt: error: --pass-config relay.FuseOps.max_depth: expected KEY=VALUE
// NOVALUE-NOT: Traceback

func.func @main(%x: tensor<2x3xf32>, %w: tensor<3xf32>, %b: tensor<3xf32>) -> tensor<2x3xf32> {
  %0 = relay.multiply %x, %w : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %1 = relay.add %0, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %2 = relay.nn.relu %1 : (tensor<2x3xf32>) -> tensor<2x3xf32>
  func.return %2 : tensor<2x3xf32>
}
