"""Shared fixtures: an xDSL context with the dialects xrelay uses, and a parser."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from xdsl.context import Context
from xdsl.dialects.builtin import Builtin, ModuleOp
from xdsl.dialects.func import Func
from xdsl.parser import Parser

from xrelay.dialects.relay import Relay


@pytest.fixture
def ctx() -> Context:
    context = Context()
    for dialect in (Builtin, Func, Relay):
        context.load_dialect(dialect)
    return context


@pytest.fixture
def parse(ctx: Context) -> Callable[[str], ModuleOp]:
    def _parse(text: str) -> ModuleOp:
        return Parser(ctx, text).parse_module()

    return _parse
