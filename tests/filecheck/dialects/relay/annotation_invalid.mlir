// RUN: xrelay-opt %s --split-input-file --verify-diagnostics | filecheck %s

func.func @f(%a: tensor<2x3xf32>) -> tensor<3x2xf32> {
  // CHECK: relay.annotation.stop_fusion: result #0 has type tensor<3x2xf32> but the type relation gives tensor<2x3xf32>
  %r = relay.annotation.stop_fusion %a : (tensor<2x3xf32>) -> tensor<3x2xf32>
  func.return %r : tensor<3x2xf32>
}
