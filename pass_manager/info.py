"""``PassInfo``: the metadata every pass carries (TVM's ``tvm.transform.PassInfo``)."""

from __future__ import annotations

from collections.abc import Iterable


class PassInfo:
    """A pass's name, the lowest opt_level at which a Sequential runs it, and the names
    of the passes a Sequential runs right before it."""

    __slots__ = ("kind", "name", "opt_level", "required", "traceable")

    def __init__(
        self,
        opt_level: int,
        name: str,
        required: Iterable[str] | None = None,
        traceable: bool = False,
    ):
        if not isinstance(name, str) or not name:  # pyright: ignore[reportUnnecessaryIsInstance]
            raise TypeError(f"a pass name must be a non-empty string, got {name!r}")
        if required is not None and not isinstance(required, list | tuple):
            raise TypeError("Required is expected to be the type of list/tuple.")
        self.opt_level = int(opt_level)
        self.name = name
        self.required: tuple[str, ...] = tuple(required or ())
        self.traceable = traceable
        self.kind = "module"
        """"module", "function" or "sequential": set by the pass that owns this info."""

    def __repr__(self) -> str:
        return (
            f"The meta data of the pass - pass name: {self.name}, opt_level: "
            f"{self.opt_level}, required passes: [{', '.join(self.required)}]\n"
        )

    __str__ = __repr__

    def __eq__(self, other: object) -> bool:
        return isinstance(other, PassInfo) and (
            self.name,
            self.opt_level,
            self.required,
        ) == (other.name, other.opt_level, other.required)

    def __hash__(self) -> int:
        return hash((self.name, self.opt_level, self.required))
