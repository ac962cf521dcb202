"""``relay.ScopeBuilder``: build a body of ``let`` bindings and ``if`` scopes
imperatively (TVM's ``relay.ScopeBuilder``)::

    sb = relay.ScopeBuilder()
    t = sb.let("t", relay.add(x, x))
    with sb.if_scope(cond):
        sb.ret(t)
    with sb.else_scope():
        sb.ret(relay.negative(t))
    body = sb.get()
"""

from __future__ import annotations

from collections.abc import Generator
from contextlib import contextmanager

from xrelay.frontend.relay.expr import Expr, If, Let, TupleWrapper, Var, to_expr
from xrelay.frontend.relay.ty import TypeLike


class _Scope:
    def __init__(self) -> None:
        self.bindings: list[tuple[Var, Expr]] = []
        self.ret: Expr | None = None


class ScopeBuilder:
    """Collects ``let`` bindings per scope; :meth:`get` gives the nested ``Let``s."""

    def __init__(self) -> None:
        self._scopes: list[_Scope] = [_Scope()]
        self._pending_if: tuple[Expr, Expr] | None = None

    def let(
        self, var: str | Var | tuple[str, TypeLike], value: Expr | TupleWrapper
    ) -> Var:
        """Bind ``value`` to ``var`` (a Var, a name, or ``(name, type)``)."""
        if isinstance(var, str):
            var = Var(var)
        elif isinstance(var, tuple):
            var = Var(var[0], var[1])
        self._scopes[-1].bindings.append((var, to_expr(value)))
        return var

    def ret(self, value: Expr | TupleWrapper) -> None:
        """The value of the current scope."""
        scope = self._scopes[-1]
        if scope.ret is not None:
            raise ValueError("ret was called twice in one scope")
        scope.ret = to_expr(value)

    @contextmanager
    def if_scope(self, cond: Expr) -> Generator[None]:
        """The then branch; an :meth:`else_scope` must follow."""
        self._scopes.append(_Scope())
        yield
        then = self._close()
        self._pending_if = (to_expr(cond), then)

    @contextmanager
    def else_scope(self) -> Generator[None]:
        """The else branch; the ``If`` becomes the value of the enclosing scope."""
        if self._pending_if is None:
            raise ValueError("else_scope must follow an if_scope")
        cond, then = self._pending_if
        self._pending_if = None
        self._scopes.append(_Scope())
        yield
        other = self._close()
        self.ret(If(cond, then, other))

    def _close(self) -> Expr:
        scope = self._scopes.pop()
        return _nest(scope)

    def get(self) -> Expr:
        """The body built so far (the outermost scope)."""
        if len(self._scopes) != 1:
            raise ValueError("a scope is still open")
        return _nest(self._scopes[0])


def _nest(scope: _Scope) -> Expr:
    if scope.ret is None:
        raise ValueError("the scope has no value: call ret() in it")
    body = scope.ret
    for var, value in reversed(scope.bindings):
        body = Let(var, value, body)
    return body
