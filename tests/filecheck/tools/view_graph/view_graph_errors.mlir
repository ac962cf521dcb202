// Errors are one line.
// RUN: rm -rf %t && mkdir -p %t
// RUN: not xrelay-opt %s -p 'view-graph{func="nope"}' 2>&1 | filecheck %s --check-prefix=FUNC
// RUN: not xrelay-opt %s -p 'view-graph{path="%t/missing/g.dot"}' 2>&1 | filecheck %s --check-prefix=WRITE
// RUN: echo '{"k": "slow"}' > %t/bad.json
// RUN: not xrelay-opt %s -p 'view-graph{times="%t/bad.json"}' 2>&1 | filecheck %s --check-prefix=TIMES
// RUN: not xrelay-opt %s -p 'view-graph{times="%t/absent.json"}' 2>&1 | filecheck %s --check-prefix=ABSENT
// Without Graphviz, a picture is a clear error (the DOT is still written).
// RUN: env XRELAY_DOT=no-such-dot not xrelay-opt %s -p 'view-graph{path="%t/g.svg"}' 2>&1 | filecheck %s --check-prefix=NODOT
// RUN: filecheck %s --check-prefix=DOT < %t/g.dot

// FUNC: xrelay-opt: error: view-graph: the module has no function @nope
// WRITE: xrelay-opt: error: view-graph: cannot write {{.*}}missing/g.dot: No such file or directory
// TIMES: xrelay-opt: error: view-graph: {{.*}}bad.json: expected an object of kernel name to milliseconds
// ABSENT: xrelay-opt: error: view-graph: cannot read times {{.*}}absent.json: No such file or directory
// NODOT: xrelay-opt: error: view-graph: cannot render {{.*}}g.svg: Graphviz's 'dot' is not installed (Debian: apt-get install graphviz); the DOT is in {{.*}}g.dot
// DOT: digraph "main"

func.func @main(%x: tensor<2xf32>) -> tensor<2xf32> {
  %0 = relay.nn.relu %x : (tensor<2xf32>) -> tensor<2xf32>
  func.return %0 : tensor<2xf32>
}
