"""A pass plugin for the tests of --load-pass-plugin: an xrelay pass registered with
register_pass (with an option) and an xDSL ModulePass."""

import sys
from dataclasses import dataclass
from typing import Any

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp, StringAttr
from xdsl.passes import ModulePass

from xrelay.pass_manager import Pass, PassContext, PassInfo, register_pass


@register_pass("TagOps", options=[("tag", str, "seen", "the text of the tags")])
class TagOps(Pass):
    """Tag every relay op with a plugin.tag attribute."""

    def __init__(self, tag: str = "seen") -> None:
        self.tag = tag
        self.info = PassInfo(0, "TagOps")

    def apply(self, op: ModuleOp, ctx: PassContext, kind: Any) -> ModuleOp:
        for inner in op.walk():
            if inner.name.startswith("relay."):
                inner.attributes["plugin.tag"] = StringAttr(self.tag)
        return op


@dataclass(frozen=True)
class CountOps(ModulePass):
    """Print the number of ops on stderr."""

    name = "count-ops"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        print(f"count-ops: {len(list(op.walk()))} ops", file=sys.stderr)
