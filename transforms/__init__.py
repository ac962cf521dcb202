"""Relay's passes on xrelay's IR, one module per pass.

Importing this package imports every module in it (:class:`~xrelay.load_once.LoadModules`,
the way every xrelay table is filled), and each pass module registers its pass(es)
with :func:`xrelay.pass_manager.register_pass`; nothing needs listing here.
"""

from __future__ import annotations

from xrelay.load_once import LoadModules

load_passes = LoadModules(__name__, __path__)
"""Imports every pass module of this package, once."""

load_passes()
