// --load-pass-plugin PATH_OR_MODULE: the passes a plugin registers (xrelay's
// register_pass, with options) and the xDSL passes it defines join -p.

// By path:
// RUN: xrelay-opt %s --load-pass-plugin %S/../inputs/pass_plugin.py -p 'tag-ops{tag="t1"},count-ops' 2>%t.err | filecheck %s
// RUN: filecheck %s --check-prefix=COUNT --input-file %t.err
// By module name:
// RUN: env PYTHONPATH=%S/../inputs xrelay-opt %s --load-pass-plugin pass_plugin -p 'tag-ops{tag="t1"}' | filecheck %s
// --list-passes and --help show its passes and options:
// RUN: xrelay-opt --load-pass-plugin %S/../inputs/pass_plugin.py --list-passes | filecheck %s --check-prefix=LIST
// RUN: xrelay-opt --load-pass-plugin=%S/../inputs/pass_plugin.py --help | filecheck %s --check-prefix=HELP
// Without the plugin, the pass is unknown:
// RUN: not xrelay-opt %s -p tag-ops 2>&1 | filecheck %s --check-prefix=UNKNOWN
// Bad plugins are one line and exit code 1:
// RUN: not xrelay-opt %s --load-pass-plugin %S/../inputs/no_such_plugin.py -p tag-ops 2>&1 | filecheck %s --check-prefix=NOFILE
// RUN: not xrelay-opt %s --load-pass-plugin no_such_plugin_module 2>&1 | filecheck %s --check-prefix=NOMOD
// RUN: not xrelay-opt %s --load-pass-plugin %S/../inputs/broken_plugin.py 2>&1 | filecheck %s --check-prefix=BROKEN
// RUN: not xrelay-opt %s --load-pass-plugin %S/../inputs/model.mlir 2>&1 | filecheck %s --check-prefix=NOTPY

// CHECK: relay.nn.relu %x {plugin.tag = "t1"}
// COUNT: count-ops: 4 ops
// LIST: tag-ops  TagOps
// LIST-NEXT: tag: str = "seen"  the text of the tags
// LIST: count-ops
// HELP: tag-ops{tag=str}
// UNKNOWN: xrelay-opt: error: unknown pass 'tag-ops'
// NOFILE: xrelay-opt: error: --load-pass-plugin {{.*}}no_such_plugin.py: no such file
// NOFILE-NOT: Traceback
// NOMOD: xrelay-opt: error: --load-pass-plugin no_such_plugin_module: no module named 'no_such_plugin_module'
// BROKEN: xrelay-opt: error: --load-pass-plugin {{.*}}broken_plugin.py: the plugin failed to load: RuntimeError: this plugin is broken on purpose
// NOTPY: xrelay-opt: error: --load-pass-plugin {{.*}}model.mlir: not a Python file (.py)

func.func @main(%x: tensor<2xf32>) -> tensor<2xf32> {
  %0 = relay.nn.relu %x : (tensor<2xf32>) -> tensor<2xf32>
  func.return %0 : tensor<2xf32>
}
