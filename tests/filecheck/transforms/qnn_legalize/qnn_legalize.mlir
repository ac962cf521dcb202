// RUN: xrelay-opt %s -p qnn-legalize --split-input-file | filecheck %s
// RUN: xrelay-opt %s -p qnn-legalize,qnn-canonicalize --split-input-file | filecheck %s --check-prefix=CANON

// conv2d: the u8 data centered into int16 by its zero point (cast, subtract), the
// constant s8 weight folded (w + 2), both zero points now zero; CanonicalizeOps then
// multiplies the int16 operands into int32 sums (out_dtype), with no int32 casts.
// CHECK-LABEL: func.func @conv
// CHECK:         %[[X:.*]] = relay.cast %x {dtype = i16} : (tensor<1x2x4x4xui8>) -> tensor<1x2x4x4xi16>
// CHECK-NEXT:    %[[ZX:.*]] = relay.constant dense<3> : tensor<i16>
// CHECK-NEXT:    %[[XC:.*]] = relay.subtract %[[X]], %[[ZX]] : (tensor<1x2x4x4xi16>, tensor<i16>) -> tensor<1x2x4x4xi16>
// CHECK-NEXT:    %[[Z0:.*]] = relay.constant dense<0> : tensor<i32>
// CHECK-NEXT:    %[[W:.*]] = relay.constant dense<{{\[\[\[\[}}3]], {{\[\[}}-126]]], {{\[\[\[}}129]], {{\[\[}}2]]], {{\[\[\[}}7]], {{\[\[}}-4]]]]> : tensor<3x2x1x1xi16>
// CHECK-NEXT:    %[[Z1:.*]] = relay.constant dense<0> : tensor<i32>
// CHECK-NEXT:    %y = relay.qnn.conv2d %[[XC]], %[[W]], %[[Z0]], %[[Z1]], %sx, %sw {{.*}} : (tensor<1x2x4x4xi16>, tensor<3x2x1x1xi16>, tensor<i32>, tensor<i32>, tensor<f32>, tensor<3xf32>) -> tensor<1x3x4x4xi32>
// CANON-LABEL: func.func @conv
// CANON-NOT:     relay.cast {{.*}} {dtype = i32}
// CANON:         %y = relay.nn.conv2d %{{.*}}, %{{.*}} {kernel_size = array<i64: 1, 1>, channels = 3 : i64, out_dtype = i32} : (tensor<1x2x4x4xi16>, tensor<3x2x1x1xi16>) -> tensor<1x3x4x4xi32>
// CANON-NOT:     relay.qnn
func.func @conv(%x: tensor<1x2x4x4xui8>) -> tensor<1x3x4x4xi32> {
  %w = relay.constant dense<[[[[1]], [[-128]]], [[[127]], [[0]]], [[[5]], [[-6]]]]> : tensor<3x2x1x1xi8>
  %zx = relay.constant dense<3> : tensor<i32>
  %zw = relay.constant dense<-2> : tensor<i32>
  %sx = relay.constant dense<0.5> : tensor<f32>
  %sw = relay.constant dense<[0.25, 0.5, 1.0]> : tensor<3xf32>
  %y = relay.qnn.conv2d %x, %w, %zx, %zw, %sx, %sw {kernel_size = array<i64: 1, 1>, channels = 3 : i64} : (tensor<1x2x4x4xui8>, tensor<3x2x1x1xi8>, tensor<i32>, tensor<i32>, tensor<f32>, tensor<3xf32>) -> tensor<1x3x4x4xi32>
  func.return %y : tensor<1x3x4x4xi32>
}

// -----

// batch_matmul of two activations: both centered in int16 (one-element zero points).
// CHECK-LABEL: func.func @bmm
// CHECK-COUNT-2: relay.cast {{.*}} {dtype = i16}
// CHECK:         %r = relay.qnn.batch_matmul {{.*}} : (tensor<1x2x4xi16>, tensor<1x3x4xi16>, tensor<i32>, tensor<i32>, tensor<f32>, tensor<f32>) -> tensor<1x2x3xi32>
// CANON-LABEL: func.func @bmm
// CANON:         %r = relay.nn.batch_matmul {{.*}} {out_dtype = i32} : (tensor<1x2x4xi16>, tensor<1x3x4xi16>) -> tensor<1x2x3xi32>
func.func @bmm(%a: tensor<1x2x4xi8>, %b: tensor<1x3x4xui8>) -> tensor<1x2x3xi32> {
  %za = relay.constant dense<[-128]> : tensor<1xi32>
  %zb = relay.constant dense<255> : tensor<i32>
  %s = relay.constant dense<0.5> : tensor<f32>
  %r = relay.qnn.batch_matmul %a, %b, %za, %zb, %s, %s : (tensor<1x2x4xi8>, tensor<1x3x4xui8>, tensor<1xi32>, tensor<i32>, tensor<f32>, tensor<f32>) -> tensor<1x2x3xi32>
  func.return %r : tensor<1x2x3xi32>
}

// -----

// Left alone: a zero point that is not a constant, one outside the operand's range
// (the difference would not fit int16), int16 operands, and ops other than the
// products.
// CHECK-LABEL: func.func @unchanged
// CHECK-NOT:     relay.cast
// CHECK:         relay.qnn.dense %x, %w, %zx, %zw, %s, %s
// CHECK:         relay.qnn.dense %x, %w, %big, %zw, %s, %s
// CHECK:         relay.qnn.dense %h, %h2, %zw, %zw, %s, %s
// CHECK:         relay.qnn.quantize %f, %s, %zw
// CHECK-NOT:     relay.cast
func.func @unchanged(%x: tensor<2x4xui8>, %w: tensor<3x4xi8>, %zx: tensor<i32>, %h: tensor<2x4xi16>, %h2: tensor<3x4xi16>, %f: tensor<2xf32>) -> (tensor<2x3xi32>, tensor<2x3xi32>, tensor<2x3xi32>, tensor<2xi8>) {
  %zw = relay.constant dense<0> : tensor<i32>
  %big = relay.constant dense<256> : tensor<i32>
  %s = relay.constant dense<0.5> : tensor<f32>
  %a = relay.qnn.dense %x, %w, %zx, %zw, %s, %s : (tensor<2x4xui8>, tensor<3x4xi8>, tensor<i32>, tensor<i32>, tensor<f32>, tensor<f32>) -> tensor<2x3xi32>
  %b = relay.qnn.dense %x, %w, %big, %zw, %s, %s : (tensor<2x4xui8>, tensor<3x4xi8>, tensor<i32>, tensor<i32>, tensor<f32>, tensor<f32>) -> tensor<2x3xi32>
  %c = relay.qnn.dense %h, %h2, %zw, %zw, %s, %s : (tensor<2x4xi16>, tensor<3x4xi16>, tensor<i32>, tensor<i32>, tensor<f32>, tensor<f32>) -> tensor<2x3xi32>
  %q = relay.qnn.quantize %f, %s, %zw : (tensor<2xf32>, tensor<f32>, tensor<i32>) -> tensor<2xi8>
  func.return %a, %b, %c, %q : tensor<2x3xi32>, tensor<2x3xi32>, tensor<2x3xi32>, tensor<2xi8>
}

// -----

// A run-time activation zero point (dynamic quantization): the uncentered int16
// activation times the folded int16 weight (w + 2), minus the zero point times the
// folded weight's sums per unit (3 - 126 = -123, 129 + 2 = 131, 7 - 4 = 3).
// CHECK-LABEL: func.func @dynamic
// CHECK:         %[[X:.*]] = relay.cast %x {dtype = i16} : (tensor<5x2xui8>) -> tensor<5x2xi16>
// CHECK-NEXT:    %[[W:.*]] = relay.constant dense<{{\[\[}}3, -126], [129, 2], [7, -4]]> : tensor<3x2xi16>
// CHECK-NEXT:    %[[Z0:.*]] = relay.constant dense<0> : tensor<i32>
// CHECK-NEXT:    %[[Z1:.*]] = relay.constant dense<0> : tensor<i32>
// CHECK-NEXT:    %[[P:.*]] = relay.qnn.dense %[[X]], %[[W]], %[[Z0]], %[[Z1]], %s, %s {units = 3 : i64} : (tensor<5x2xi16>, tensor<3x2xi16>, tensor<i32>, tensor<i32>, tensor<f32>, tensor<f32>) -> tensor<5x3xi32>
// CHECK-NEXT:    %[[SUMS:.*]] = relay.constant dense<[-123, 131, 3]> : tensor<3xi32>
// CHECK-NEXT:    %[[C:.*]] = relay.multiply %zx, %[[SUMS]] : (tensor<i32>, tensor<3xi32>) -> tensor<3xi32>
// CHECK-NEXT:    %y = relay.subtract %[[P]], %[[C]] : (tensor<5x3xi32>, tensor<3xi32>) -> tensor<5x3xi32>
// CANON-LABEL: func.func @dynamic
// CANON:         relay.nn.dense %{{.*}}, %{{.*}} {units = 3 : i64, out_dtype = i32} : (tensor<5x2xi16>, tensor<3x2xi16>) -> tensor<5x3xi32>
// CANON-NOT:     relay.qnn
func.func @dynamic(%x: tensor<5x2xui8>, %zx: tensor<i32>) -> tensor<5x3xi32> {
  %w = relay.constant dense<[[1, -128], [127, 0], [5, -6]]> : tensor<3x2xi8>
  %zw = relay.constant dense<-2> : tensor<i32>
  %s = relay.constant dense<0.5> : tensor<f32>
  %y = relay.qnn.dense %x, %w, %zx, %zw, %s, %s {units = 3 : i64} : (tensor<5x2xui8>, tensor<3x2xi8>, tensor<i32>, tensor<i32>, tensor<f32>, tensor<f32>) -> tensor<5x3xi32>
  func.return %y : tensor<5x3xi32>
}

// -----

// Left alone with a run-time activation zero point: a weight that is not a
// constant, and a convolution (its padding holds zeros, not the zero point).
// CHECK-LABEL: func.func @dynamic_unchanged
// CHECK-NOT:     relay.cast
// CHECK:         relay.qnn.dense %x, %w, %zx, %zw, %s, %s
// CHECK:         relay.qnn.conv2d %i, %k, %zx, %zw, %s, %s
// CHECK-NOT:     relay.subtract
func.func @dynamic_unchanged(%x: tensor<5x2xui8>, %w: tensor<3x2xi8>, %zx: tensor<i32>, %i: tensor<1x1x3x3xui8>) -> (tensor<5x3xi32>, tensor<1x1x3x3xi32>) {
  %zw = relay.constant dense<0> : tensor<i32>
  %s = relay.constant dense<0.5> : tensor<f32>
  %k = relay.constant dense<1> : tensor<1x1x3x3xi8>
  %y = relay.qnn.dense %x, %w, %zx, %zw, %s, %s {units = 3 : i64} : (tensor<5x2xui8>, tensor<3x2xi8>, tensor<i32>, tensor<i32>, tensor<f32>, tensor<f32>) -> tensor<5x3xi32>
  %c = relay.qnn.conv2d %i, %k, %zx, %zw, %s, %s {kernel_size = array<i64: 3, 3>, channels = 1 : i64, padding = array<i64: 1, 1, 1, 1>} : (tensor<1x1x3x3xui8>, tensor<1x1x3x3xi8>, tensor<i32>, tensor<i32>, tensor<f32>, tensor<f32>) -> tensor<1x1x3x3xi32>
  func.return %y, %c : tensor<5x3xi32>, tensor<1x1x3x3xi32>
}

// -----

// Two activations with run-time zero points cast from 8-bit values (dynamic
// quantization's): both centered into int16 at run time (the differences fit);
// a zero point of unknown range (an int32 argument) keeps the int32 form.
// CHECK-LABEL: func.func @dynamic_two
// CHECK:         %[[ZA:.*]] = relay.cast %za32 {dtype = i16} : (tensor<i32>) -> tensor<i16>
// CHECK-NEXT:    %[[A:.*]] = relay.cast %a {dtype = i16} : (tensor<1x2x4xui8>) -> tensor<1x2x4xi16>
// CHECK-NEXT:    %[[AC:.*]] = relay.subtract %[[A]], %[[ZA]] : (tensor<1x2x4xi16>, tensor<i16>) -> tensor<1x2x4xi16>
// CHECK:         %[[ZB:.*]] = relay.cast %zb32 {dtype = i16} : (tensor<i32>) -> tensor<i16>
// CHECK-NEXT:    %[[B:.*]] = relay.cast %b {dtype = i16} : (tensor<1x3x4xui8>) -> tensor<1x3x4xi16>
// CHECK-NEXT:    %[[BC:.*]] = relay.subtract %[[B]], %[[ZB]] : (tensor<1x3x4xi16>, tensor<i16>) -> tensor<1x3x4xi16>
// CHECK:         %r = relay.qnn.batch_matmul %[[AC]], %[[BC]], %{{.*}}, %{{.*}}, %s, %s : (tensor<1x2x4xi16>, tensor<1x3x4xi16>, tensor<i32>, tensor<i32>, tensor<f32>, tensor<f32>) -> tensor<1x2x3xi32>
// CHECK:         %u = relay.qnn.batch_matmul %a, %b, %zu, %zb32, %s, %s
func.func @dynamic_two(%a: tensor<1x2x4xui8>, %b: tensor<1x3x4xui8>, %za: tensor<ui8>, %zb: tensor<ui8>, %zu: tensor<i32>) -> (tensor<1x2x3xi32>, tensor<1x2x3xi32>) {
  %za32 = relay.cast %za {dtype = i32} : (tensor<ui8>) -> tensor<i32>
  %zb32 = relay.cast %zb {dtype = i32} : (tensor<ui8>) -> tensor<i32>
  %s = relay.constant dense<0.5> : tensor<f32>
  %r = relay.qnn.batch_matmul %a, %b, %za32, %zb32, %s, %s : (tensor<1x2x4xui8>, tensor<1x3x4xui8>, tensor<i32>, tensor<i32>, tensor<f32>, tensor<f32>) -> tensor<1x2x3xi32>
  %u = relay.qnn.batch_matmul %a, %b, %zu, %zb32, %s, %s : (tensor<1x2x4xui8>, tensor<1x3x4xui8>, tensor<i32>, tensor<i32>, tensor<f32>, tensor<f32>) -> tensor<1x2x3xi32>
  func.return %r, %u : tensor<1x2x3xi32>, tensor<1x2x3xi32>
}
