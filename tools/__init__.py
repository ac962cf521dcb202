"""xrelay.tools: the command-line drivers. Importing the package registers the
tools' test passes (``test-break-ir``, ``test-diagnostics``): the pass registry is
filled from above, it does not import its plugins."""

from xrelay.tools import test_passes as test_passes
