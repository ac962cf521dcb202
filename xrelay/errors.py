"""The error every layer raises for bad input: the tools report it as one line
(:mod:`xrelay.tools.diagnostics`)."""

from __future__ import annotations


class UserError(Exception):
    """An error the user caused, with an optional ``file:line:col`` location."""

    def __init__(self, message: str, location: str | None = None):
        super().__init__(message)
        self.message = message
        self.location = location
