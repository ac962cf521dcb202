"""``xrelay.target`` (TVM's ``tvm.target``): a compilation target and the current one.

    with Target("llvm -mcpu=skylake-avx512"):
        mod = relay.transform.AlterOpLayout()(mod)   # reads the current target

``Target(text)`` keeps the target string; ``kind`` is its first word, ``mcpu`` /
``mattr`` / ``keys`` its options. xrelay compiles for the host CPU only: the target
chooses the layout policy of AlterOpLayout (CPU targets block convolutions), not the
code generator.
"""

from __future__ import annotations

import threading
from types import TracebackType

_CPU_KINDS = ("llvm", "c")
_MAX_FUNCTION_ARGS = {"opencl": 128, "metal": 31}
"""TVM's default kernel-parameter limits of the target kinds that have one."""


class _Stack(threading.local):
    """The entered targets of one thread (as PassContext's stack: a ``with
    Target(...)`` on one thread is not current on another)."""

    def __init__(self) -> None:
        self.items: list[Target] = []


_stack = _Stack()


class Target:
    """A target string with TVM's accessors; a context manager making it current
    on this thread."""

    def __init__(self, target: str | Target, host: str | Target | None = None):
        text = target.text if isinstance(target, Target) else str(target)
        words = text.split()
        if not words:
            raise ValueError("a target needs a kind (llvm, c, ...)")
        self.text = " ".join(words)
        self.kind = words[0]
        self.attrs: dict[str, str] = {}
        for word in words[1:]:
            if not word.startswith("-"):
                raise ValueError(f"target option {word!r} must start with '-'")
            name, _, value = word.lstrip("-").partition("=")
            self.attrs[name] = value
        self.host = Target(host) if isinstance(host, str) else host

    @property
    def mcpu(self) -> str:
        return self.attrs.get("mcpu", "")

    @property
    def mattr(self) -> list[str]:
        value = self.attrs.get("mattr", "")
        return [a for a in value.split(",") if a]

    @property
    def keys(self) -> list[str]:
        keys = [k for k in self.attrs.get("keys", "").split(",") if k]
        if not keys and self.kind in _CPU_KINDS:
            keys = ["cpu"]
        return keys

    @property
    def max_function_args(self) -> int:
        """The most parameters a fused kernel may take (``-max_function_args=N``, else
        the kind's default: 128 for opencl, 31 for metal; 0 means no limit)."""
        value = self.attrs.get("max_function_args")
        if value is not None:
            return int(value)
        return _MAX_FUNCTION_ARGS.get(self.kind, 0)

    def __enter__(self) -> Target:
        _stack.items.append(self)
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        _stack.items.pop()

    @staticmethod
    def current(allow_none: bool = True) -> Target | None:
        """The innermost ``with Target(...)`` of this thread, or None."""
        items = _stack.items
        if items:
            return items[-1]
        if not allow_none:
            raise ValueError("no target is set: use `with Target(...)`")
        return None

    def __str__(self) -> str:
        return self.text

    def __repr__(self) -> str:
        return f"Target({self.text!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Target) and other.text == self.text

    def __hash__(self) -> int:
        return hash(self.text)


def current_target_text(default: str) -> str:
    """The current target's string, or ``default``."""
    found = Target.current()
    return default if found is None else found.text


class VirtualDevice:
    """Where a value lives (TVM's ``VirtualDevice(device, target)``): xrelay runs
    every value on the host CPU, so one can be built and compared, but no pass
    places values by it."""

    def __init__(
        self, device: object = None, target: object = None, memory_scope: str = ""
    ):
        self.device = device
        self.target = target
        self.memory_scope = memory_scope

    def __repr__(self) -> str:
        return f"VirtualDevice({self.device!r}, {self.target!r})"
