// RUN: xrelay-opt %s -p annotate-spans --print-debuginfo | filecheck %s
// RUN: xrelay-opt %s -p 'annotate-spans{source_name=dump}' --print-debuginfo | filecheck %s --check-prefix=NAMED
// RUN: xrelay-opt %s -p annotate-spans | filecheck %s --check-prefix=SAME

// Every op is located at its name in the printed program (this module as
// xrelay-opt prints it, without locations), replacing the input's locations.
// CHECK:      func.func @main(%x: tensor<2x3xf32> {{.*}}) -> tensor<3x2xf32> {
// CHECK-NEXT:   %0 = relay.nn.relu %x : {{.*}} loc("GeneratedSource":3:10)
// CHECK-NEXT:   %1 = relay.transpose %0 : {{.*}} loc("GeneratedSource":4:10)
// CHECK-NEXT:   func.return %1 : tensor<3x2xf32> loc("GeneratedSource":5:5)
// CHECK-NEXT: } loc("GeneratedSource":2:3)
// CHECK-NEXT: } loc("GeneratedSource":1:1)
// NAMED: relay.nn.relu {{.*}} loc("dump":3:10)

// Nothing but the locations changes.
// SAME:      %0 = relay.nn.relu %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
// SAME-NEXT: %1 = relay.transpose %0 : (tensor<2x3xf32>) -> tensor<3x2xf32>
func.func @main(%x: tensor<2x3xf32>) -> tensor<3x2xf32> {


  %0 = relay.nn.relu %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %1 = relay.transpose %0 : (tensor<2x3xf32>) -> tensor<3x2xf32>
  func.return %1 : tensor<3x2xf32>
}
