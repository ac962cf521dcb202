// xrelay's memref/loop-level output (kernels, host, weights, arena) is valid MLIR:
// mlir-opt parses and verifies it, and MLIR's own lowering turns it into LLVM IR.

// RUN: xrelay-opt %s -p relay-to-kernels,plan-memory | %mlir-opt | filecheck %s
// RUN: xrelay-opt %s -p relay-to-kernels,plan-memory | %mlir-opt --convert-scf-to-cf --finalize-memref-to-llvm --convert-arith-to-llvm --convert-math-to-llvm --convert-math-to-libm --convert-func-to-llvm --convert-cf-to-llvm --reconcile-unrealized-casts | %mlir-translate --mlir-to-llvmir | filecheck %s --check-prefix=LLVM

func.func @main(%x: tensor<1x2x6x6xf32>, %flag: tensor<i1>) -> (tensor<1x8xf32>, tensor<1x3x3x3xf32>) {
  %w = relay.constant dense<0.5> : tensor<3x2x3x3xf32>
  %0 = relay.nn.conv2d %x, %w {padding = array<i64: 1, 1, 1, 1>} : (tensor<1x2x6x6xf32>, tensor<3x2x3x3xf32>) -> tensor<1x3x6x6xf32>
  %1 = relay.nn.relu %0 : (tensor<1x3x6x6xf32>) -> tensor<1x3x6x6xf32>
  %2 = relay.nn.max_pool2d %1 {pool_size = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<1x3x6x6xf32>) -> tensor<1x3x3x3xf32>
  %3 = relay.reshape %2 {newshape = array<i64: 1, 27>} : (tensor<1x3x3x3xf32>) -> tensor<1x27xf32>
  %d = relay.constant dense<0.25> : tensor<8x27xf32>
  %4 = relay.nn.dense %3, %d : (tensor<1x27xf32>, tensor<8x27xf32>) -> tensor<1x8xf32>
  %5 = relay.nn.softmax %4 : (tensor<1x8xf32>) -> tensor<1x8xf32>
  %6 = relay.if %flag : tensor<i1> -> (tensor<1x3x3x3xf32>) {
    %e = relay.erf %2 : (tensor<1x3x3x3xf32>) -> tensor<1x3x3x3xf32>
    relay.yield %e : tensor<1x3x3x3xf32>
  } else {
    relay.yield %2 : tensor<1x3x3x3xf32>
  }
  func.return %5, %6 : tensor<1x8xf32>, tensor<1x3x3x3xf32>
}

// CHECK: memref.global "private" constant @xrelay_weight_0 : memref<3x2x3x3xf32> = dense<5.000000e-01>
// CHECK: memref.global "private" @xrelay_arena : memref<{{[0-9]+}}xi8> = uninitialized {alignment = 64 : i64}
// CHECK: func.func @main(%{{.*}}: memref<1x2x6x6xf32>, %{{.*}}: memref<i8>, %{{.*}}: memref<1x8xf32>, %{{.*}}: memref<1x3x3x3xf32>)
// CHECK:   memref.view
// CHECK:   memref.reinterpret_cast
// CHECK:   scf.if

// LLVM: @xrelay_weight_0 = private constant [3 x [2 x [3 x [3 x float]]]]
// LLVM: call float @erff(
// LLVM: define void @main(
