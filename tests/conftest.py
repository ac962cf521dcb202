"""Shared fixtures: an xDSL context with the dialects xrelay uses, and a parser."""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Callable

import pytest
from xdsl.context import Context
from xdsl.dialects.builtin import Builtin, ModuleOp
from xdsl.dialects.func import Func
from xdsl.parser import Parser

from xrelay.dialects.relay import Relay

_CACHE_DIR = tempfile.mkdtemp(prefix="xrelay-test-cache-")


def pytest_configure(config: pytest.Config) -> None:
    """Builds made by the tests (and the subprocesses they start) use a compile
    cache of their own, never the user's."""
    os.environ["XRELAY_CACHE_DIR"] = _CACHE_DIR


def pytest_unconfigure(config: pytest.Config) -> None:
    shutil.rmtree(_CACHE_DIR, ignore_errors=True)


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
