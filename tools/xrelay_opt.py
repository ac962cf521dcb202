"""``xrelay-opt``: ``xdsl-opt`` with the relay dialect and xrelay's passes.

Every ``xdsl-opt`` flag keeps working; xrelay's dialects and passes come from the
``xdsl.universe`` plugin (and are added here too, so the driver also works from a
source tree that is not installed).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from xdsl.xdsl_opt_main import xDSLOptMain

from xrelay.dialects.relay import printing
from xrelay.tools import universe


class XRelayOptMain(xDSLOptMain):
    """The ``xrelay-opt`` driver."""

    def register_all_dialects(self) -> None:
        super().register_all_dialects()
        for name, factory in universe.all_dialects().items():
            if name not in self.ctx.registered_dialect_names:
                self.ctx.register_dialect(name, factory)

    def register_all_passes(self) -> None:
        super().register_all_passes()
        for name, factory in universe.all_passes().items():
            self.register_pass(name, factory)

    def register_all_arguments(self, arg_parser: argparse.ArgumentParser) -> None:
        super().register_all_arguments(arg_parser)
        arg_parser.add_argument(
            "--elide-constants",
            nargs="?",
            type=int,
            const=printing.DEFAULT_ELIDE_LIMIT,
            default=None,
            metavar="N",
            help="print constants with more than N elements (default "
            f"{printing.DEFAULT_ELIDE_LIMIT}) as dense_resource<__elided__>",
        )

    def run(self) -> None:
        with printing.elide_constants(self.args.elide_constants):
            super().run()


def main(argv: Sequence[str] | None = None) -> None:
    XRelayOptMain(args=list(argv) if argv is not None else None).run()


if __name__ == "__main__":
    main(sys.argv[1:])
