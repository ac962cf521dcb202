// keep_orig_output_dtype casts the results back; the op lists override categories.
// RUN: xrelay-opt %s -p 'to-mixed-precision{mixed-precision-type=bfloat16}' --pass-config relay.ToMixedPrecision.keep_orig_output_dtype=true | filecheck %s --check-prefix=KEEP
// RUN: xrelay-opt %s -p 'to-mixed-precision{mixed-precision-type=bfloat16 never-ops=nn.dense}' | filecheck %s --check-prefix=DENY
// RUN: xrelay-opt %s -p 'to-mixed-precision{mixed-precision-type=bfloat16 always-ops=exp}' | filecheck %s --check-prefix=ALLOW
// And it is part of relay.build's pipeline when xrelay.mixed_precision_type is set:
// RUN: xrelay-opt %s -p relay-optimize --opt-level 3 --pass-config xrelay.mixed_precision_type=bfloat16 | filecheck %s --check-prefix=PIPE
// RUN: xrelay-opt %s -p relay-optimize --opt-level 3 | filecheck %s --check-prefix=NOPIPE

// KEEP-LABEL: func.func @main(%x: tensor<2x2xf32>) -> (tensor<2x2xf32>, tensor<2x2xf32>)
// KEEP:         %[[D:.*]] = relay.nn.dense {{.*}}out_dtype = f32} : (tensor<2x2xbf16>, tensor<2x2xbf16>) -> tensor<2x2xf32>
// KEEP-NEXT:    %[[DB:.*]] = relay.cast %[[D]] {dtype = bf16}
// KEEP-NEXT:    %[[R:.*]] = relay.nn.relu %[[DB]] : (tensor<2x2xbf16>) -> tensor<2x2xbf16>
// KEEP-NEXT:    %[[RF:.*]] = relay.cast %[[R]] {dtype = f32}
// KEEP-NEXT:    %[[E:.*]] = relay.exp %x : (tensor<2x2xf32>) -> tensor<2x2xf32>
// KEEP-NEXT:    func.return %[[RF]], %[[E]] : tensor<2x2xf32>, tensor<2x2xf32>

// DENY-LABEL: func.func @main(%x: tensor<2x2xf32>) -> (tensor<2x2xf32>, tensor<2x2xf32>)
// DENY-NEXT:    relay.nn.dense %x, %x : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
// DENY-NEXT:    relay.nn.relu {{.*}} : (tensor<2x2xf32>) -> tensor<2x2xf32>
// DENY-NOT:     relay.cast

// ALLOW-LABEL: func.func @main
// ALLOW:        relay.exp {{.*}} : (tensor<2x2xbf16>) -> tensor<2x2xbf16>

// PIPE:         relay.nn.contrib_dense_pack {{.*}}out_dtype = f32{{.*}} : (tensor<2x2xbf16>, tensor<{{.*}}xbf16>) -> tensor<2x2xf32>
// PIPE:         func.func @main(%x: tensor<2x2xf32>) -> (tensor<2x2xf32>, tensor<2x2xf32>)
// NOPIPE-NOT:   bf16

func.func @main(%x: tensor<2x2xf32>) -> (tensor<2x2xf32>, tensor<2x2xf32>) {
  %0 = relay.nn.dense %x, %x : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  %1 = relay.nn.relu %0 : (tensor<2x2xf32>) -> tensor<2x2xf32>
  %2 = relay.exp %x : (tensor<2x2xf32>) -> tensor<2x2xf32>
  func.return %1, %2 : tensor<2x2xf32>, tensor<2x2xf32>
}
