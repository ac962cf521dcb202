// An intermediate value (931 TiB) larger than any address space: running it must
// end in a one-line out-of-memory error naming that value.
func.func @main(%x: tensor<256xf32>) -> tensor<256xf32> {
  %0 = relay.broadcast_to %x {shape = array<i64: 1000000, 1000000, 256>} : (tensor<256xf32>) -> tensor<1000000x1000000x256xf32>
  %1 = relay.sum %0 {axis = array<i64: 0, 1>} : (tensor<1000000x1000000x256xf32>) -> tensor<256xf32>
  func.return %1 : tensor<256xf32>
}
