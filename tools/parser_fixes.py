"""xDSL parser fixes: :mod:`xrelay.dialects.parser_fixes`."""

from xrelay.dialects.parser_fixes import install

__all__ = ["install"]
