// RUN: xrelay-opt %s -p 'to-mixed-precision{mixed-precision-type=bfloat16}' --split-input-file | filecheck %s
// RUN: xrelay-opt %s -p 'to-mixed-precision{mixed-precision-type=float16}' --split-input-file | filecheck %s --check-prefix=F16

// ALWAYS (conv2d, dense): bf16 operands, float32 accumulator (out_dtype), a cast
// after; FOLLOW (bias_add, relu) stays bf16; NEVER (global_avg_pool2d, softmax)
// gets float32 back: the softmax reads the dense's float32 accumulator, not a
// round trip through bf16. Constants are cast (FoldConstant folds the casts).
// CHECK-LABEL: func.func @cnn(%x: tensor<1x3x8x8xf32>) -> tensor<1x10xf32>
// CHECK-NEXT:    %[[X:.*]] = relay.cast %x {dtype = bf16}
// CHECK-NEXT:    %w = relay.constant
// CHECK-NEXT:    %[[W:.*]] = relay.cast %w {dtype = bf16} : (tensor<4x3x3x3xf32>) -> tensor<4x3x3x3xbf16>
// CHECK-NEXT:    %b = relay.constant
// CHECK-NEXT:    %[[B:.*]] = relay.cast %b {dtype = bf16}
// CHECK-NEXT:    %wd = relay.constant
// CHECK-NEXT:    %[[WD:.*]] = relay.cast %wd {dtype = bf16}
// CHECK-NEXT:    %[[C:.*]] = relay.nn.conv2d %[[X]], %[[W]] {{{.*}}out_dtype = f32} : (tensor<1x3x8x8xbf16>, tensor<4x3x3x3xbf16>) -> tensor<1x4x8x8xf32>
// CHECK-NEXT:    %[[CB:.*]] = relay.cast %[[C]] {dtype = bf16} : (tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xbf16>
// CHECK-NEXT:    %[[BA:.*]] = relay.nn.bias_add %[[CB]], %[[B]] : (tensor<1x4x8x8xbf16>, tensor<4xbf16>) -> tensor<1x4x8x8xbf16>
// CHECK-NEXT:    %[[R:.*]] = relay.nn.relu %[[BA]] : (tensor<1x4x8x8xbf16>) -> tensor<1x4x8x8xbf16>
// CHECK-NEXT:    %[[RF:.*]] = relay.cast %[[R]] {dtype = f32}
// CHECK-NEXT:    %[[G:.*]] = relay.nn.global_avg_pool2d %[[RF]] : (tensor<1x4x8x8xf32>) -> tensor<1x4x1x1xf32>
// CHECK-NEXT:    %[[FL:.*]] = relay.nn.batch_flatten %[[G]] : (tensor<1x4x1x1xf32>) -> tensor<1x4xf32>
// CHECK-NEXT:    %[[FB:.*]] = relay.cast %[[FL]] {dtype = bf16}
// CHECK-NEXT:    %[[D:.*]] = relay.nn.dense %[[FB]], %[[WD]] {out_dtype = f32} : (tensor<1x4xbf16>, tensor<10x4xbf16>) -> tensor<1x10xf32>
// CHECK-NEXT:    %[[S:.*]] = relay.nn.softmax %[[D]] : (tensor<1x10xf32>) -> tensor<1x10xf32>
// CHECK-NEXT:    func.return %[[S]] : tensor<1x10xf32>
// F16-LABEL: func.func @cnn
// F16:         relay.nn.conv2d {{.*}}out_dtype = f32} : (tensor<1x3x8x8xf16>, tensor<4x3x3x3xf16>) -> tensor<1x4x8x8xf32>
// F16:         relay.nn.relu {{.*}} : (tensor<1x4x8x8xf16>) -> tensor<1x4x8x8xf16>
func.func @cnn(%x: tensor<1x3x8x8xf32>) -> tensor<1x10xf32> {
  %w = relay.constant dense<0.5> : tensor<4x3x3x3xf32>
  %b = relay.constant dense<0.25> : tensor<4xf32>
  %wd = relay.constant dense<0.125> : tensor<10x4xf32>
  %0 = relay.nn.conv2d %x, %w {padding = array<i64: 1, 1, 1, 1>, channels = 4 : i64, kernel_size = array<i64: 3, 3>} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x8x8xf32>
  %1 = relay.nn.bias_add %0, %b : (tensor<1x4x8x8xf32>, tensor<4xf32>) -> tensor<1x4x8x8xf32>
  %2 = relay.nn.relu %1 : (tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  %3 = relay.nn.global_avg_pool2d %2 : (tensor<1x4x8x8xf32>) -> tensor<1x4x1x1xf32>
  %4 = relay.nn.batch_flatten %3 : (tensor<1x4x1x1xf32>) -> tensor<1x4xf32>
  %5 = relay.nn.dense %4, %wd : (tensor<1x4xf32>, tensor<10x4xf32>) -> tensor<1x10xf32>
  %6 = relay.nn.softmax %5 : (tensor<1x10xf32>) -> tensor<1x10xf32>
  func.return %6 : tensor<1x10xf32>
}

// -----

// A FOLLOW op on parameters runs in the low type (parameters can be cast), and the
// result type of the function follows (keep_orig_output_dtype is off).
// CHECK-LABEL: func.func @follow(%x: tensor<4xf32>, %y: tensor<4xf32>) -> tensor<4xbf16>
// CHECK-NEXT:    %[[Y:.*]] = relay.cast %y {dtype = bf16}
// CHECK-NEXT:    %[[X:.*]] = relay.cast %x {dtype = bf16}
// CHECK-NEXT:    %[[A:.*]] = relay.add %[[X]], %[[Y]] : (tensor<4xbf16>, tensor<4xbf16>) -> tensor<4xbf16>
// CHECK-NEXT:    func.return %[[A]] : tensor<4xbf16>
func.func @follow(%x: tensor<4xf32>, %y: tensor<4xf32>) -> tensor<4xf32> {
  %0 = relay.add %x, %y : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  func.return %0 : tensor<4xf32>
}

// -----

// Negative: NEVER ops on parameters, integer ops and float64 are left alone.
// CHECK-LABEL: func.func @never
// CHECK-NEXT:    %0 = relay.exp %x : (tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT:    %1 = relay.sum %0 {{.*}}: (tensor<4xf32>) -> tensor<f32>
// CHECK-NEXT:    %2 = relay.add %i, %i : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
// CHECK-NEXT:    %3 = relay.nn.dense %d, %d : (tensor<2x2xf64>, tensor<2x2xf64>) -> tensor<2x2xf64>
// CHECK-NEXT:    func.return %1, %2, %3
// CHECK-NOT:     relay.cast
func.func @never(%x: tensor<4xf32>, %i: tensor<4xi32>, %d: tensor<2x2xf64>) -> (tensor<f32>, tensor<4xi32>, tensor<2x2xf64>) {
  %0 = relay.exp %x : (tensor<4xf32>) -> tensor<4xf32>
  %1 = relay.sum %0 {axis = array<i64: 0>} : (tensor<4xf32>) -> tensor<f32>
  %2 = relay.add %i, %i : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  %3 = relay.nn.dense %d, %d : (tensor<2x2xf64>, tensor<2x2xf64>) -> tensor<2x2xf64>
  func.return %1, %2, %3 : tensor<f32>, tensor<4xi32>, tensor<2x2xf64>
}

// -----

// A FOLLOW op with a float32 operand computed by a NEVER op stays float32, and its
// low-precision operand is cast back.
// CHECK-LABEL: func.func @mixed_operands
// CHECK:         %[[D:.*]] = relay.nn.dense {{.*}} -> tensor<2x2xf32>
// CHECK-NEXT:    %[[E:.*]] = relay.exp %x : (tensor<2x2xf32>) -> tensor<2x2xf32>
// CHECK-NEXT:    %[[M:.*]] = relay.multiply %[[D]], %[[E]] : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
// CHECK-NEXT:    func.return %[[M]] : tensor<2x2xf32>
func.func @mixed_operands(%x: tensor<2x2xf32>) -> tensor<2x2xf32> {
  %0 = relay.nn.dense %x, %x : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  %1 = relay.exp %x : (tensor<2x2xf32>) -> tensor<2x2xf32>
  %2 = relay.multiply %0, %1 : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  func.return %2 : tensor<2x2xf32>
}
