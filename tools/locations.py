"""Source locations for the command-line tools: :mod:`xrelay.dialects.locations`."""

from xrelay.dialects.locations import LocatingParser, location_of, parse_mlir

__all__ = ["LocatingParser", "location_of", "parse_mlir"]
