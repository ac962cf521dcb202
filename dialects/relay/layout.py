"""Relay's data layout strings (``"NCHW"``, ``"NHWC"``, ``"NCHW8c"``, ``"OIHW16i16o"``).

A layout names the axes of a tensor in order, one axis per dimension:

* a *primal* axis is an upper-case letter (``N``, ``C``, ``H``, ``W``, ``O``, ``I``...);
  its dimension holds the (outer part of the) whole extent of that logical axis;
* a *sub-axis* is a positive factor followed by the lower-case letter of its primal axis
  (``8c``): the primal axis was split, the sub-axis is the inner part of extent
  ``factor`` and the primal dimension keeps ``extent / factor``.

Every axis appears at most once, and a sub-axis needs its primal axis in the same layout.
The empty string is the layout of a scalar (no axes).

API
---

``Layout.parse(s)``
    parse a layout string; raises :class:`ValueError` naming what is wrong (duplicate
    axis, sub-axis without its primal axis, zero or missing factor, other characters).
``layout.axes``
    the axes in order, as :class:`LayoutAxis` (``letter`` and ``factor``, ``None`` for a
    primal axis); ``layout.name`` / ``str(layout)`` give the string back.
``layout.primal``
    the layout with its sub-axes removed (``NCHW8c`` → ``NCHW``);
    ``layout.primal_letters`` lists their letters in order.
``layout.index_of(letter)``
    position of the axis with that letter (``"C"`` finds the primal axis, ``"c"`` the
    sub-axis), ``-1`` if absent (TVM's ``Layout::IndexOf``).
``layout.factor_of(letter)``
    the factor of the sub-axis of ``letter`` (either case), ``-1`` when the axis is not
    split (TVM's ``Layout::FactorOf``).
``layout.shape_from_primal(shape)``
    a shape given in ``layout.primal`` order → the shape in this layout (split dims must be
    divisible by their factor).
``layout.to_primal_shape(shape)``
    a shape in this layout → the shape in ``layout.primal`` order.
``layout.transform_shape(shape, dst)``
    a shape in this layout → the shape in layout ``dst`` (same primal axes; raises
    ``ValueError`` when a split dim is not divisible).
``transform_array(array, src, dst)``
    the data of a tensor stored in layout ``src`` rearranged into layout ``dst`` (numpy
    reshape + transpose only; Relay's ``layout_transform``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np


@dataclass(frozen=True)
class LayoutAxis:
    """One axis of a layout: ``C`` (primal, ``factor is None``) or ``8c`` (a sub-axis)."""

    letter: str
    factor: int | None = None

    @property
    def is_primal(self) -> bool:
        return self.factor is None

    @property
    def primal_letter(self) -> str:
        """The upper-case letter of the logical axis this axis belongs to."""
        return self.letter.upper()

    def __str__(self) -> str:
        return self.letter if self.factor is None else f"{self.factor}{self.letter}"


class Layout:
    """A parsed layout string (see the module docstring)."""

    def __init__(self, axes: Sequence[LayoutAxis]):
        self._axes = tuple(axes)
        _validate(self._axes, self.name)

    # -- construction ------------------------------------------------------------------

    @staticmethod
    def parse(s: str | Layout) -> Layout:
        """Parse a layout string such as ``"NCHW8c"``; raises ``ValueError`` when
        malformed."""
        if isinstance(s, Layout):
            return s
        axes: list[LayoutAxis] = []
        digits = ""
        for ch in s:
            if "0" <= ch <= "9":
                digits += ch
            elif "A" <= ch <= "Z":
                if digits:
                    raise ValueError(
                        f"invalid layout '{s}': factor {digits} before the primal axis "
                        f"'{ch}' (only sub-axes, written in lower case, take a factor)"
                    )
                axes.append(LayoutAxis(ch))
            elif "a" <= ch <= "z":
                if not digits:
                    raise ValueError(
                        f"invalid layout '{s}': sub-axis '{ch}' has no factor (write "
                        f"e.g. '8{ch}')"
                    )
                factor = int(digits)
                if factor == 0:
                    raise ValueError(
                        f"invalid layout '{s}': sub-axis '{ch}' has factor 0 (factors "
                        "must be positive)"
                    )
                axes.append(LayoutAxis(ch, factor))
                digits = ""
            else:
                raise ValueError(
                    f"invalid layout '{s}': unexpected character '{ch}' (axes are "
                    "letters, sub-axes a factor and a lower-case letter)"
                )
        if digits:
            raise ValueError(
                f"invalid layout '{s}': factor {digits} at the end is not followed by a "
                "sub-axis letter"
            )
        return Layout(axes)

    # -- queries ------------------------------------------------------------------------

    @property
    def axes(self) -> tuple[LayoutAxis, ...]:
        return self._axes

    @property
    def name(self) -> str:
        return "".join(str(a) for a in self._axes)

    @property
    def ndim(self) -> int:
        return len(self._axes)

    def __len__(self) -> int:
        return len(self._axes)

    def __str__(self) -> str:
        return self.name

    def __repr__(self) -> str:
        return f"Layout({self.name!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Layout) and other.axes == self.axes

    def __hash__(self) -> int:
        return hash(self._axes)

    @property
    def primal(self) -> Layout:
        """The layout with the sub-axes removed (``NCHW8c`` → ``NCHW``)."""
        return Layout([a for a in self._axes if a.is_primal])

    @property
    def primal_letters(self) -> tuple[str, ...]:
        return tuple(a.letter for a in self._axes if a.is_primal)

    def index_of(self, letter: str) -> int:
        """Position of the axis written ``letter`` (case matters), ``-1`` if absent."""
        for i, a in enumerate(self._axes):
            if a.letter == letter:
                return i
        return -1

    def factor_of(self, letter: str) -> int:
        """Factor of the sub-axis of ``letter`` (either case); ``-1`` if not split."""
        sub = letter.lower()
        for a in self._axes:
            if a.letter == sub and a.factor is not None:
                return a.factor
        return -1

    def contains(self, letter: str) -> bool:
        return self.index_of(letter) >= 0

    # -- shapes -------------------------------------------------------------------------

    def to_primal_shape(self, shape: Sequence[int]) -> tuple[int, ...]:
        """A shape in this layout → the shape in ``self.primal`` order (each split
        axis merged back: outer * factor)."""
        if len(shape) != self.ndim:
            raise ValueError(
                f"shape {list(shape)} has rank {len(shape)} but layout '{self.name}' "
                f"has {self.ndim} axes"
            )
        out: list[int] = []
        for i, a in enumerate(self._axes):
            if not a.is_primal:
                continue
            size = int(shape[i])
            factor = self.factor_of(a.letter)
            if factor > 0:
                inner = int(shape[self.index_of(a.letter.lower())])
                if inner != factor:
                    raise ValueError(
                        f"dimension {inner} of sub-axis '{factor}{a.letter.lower()}' in "
                        f"layout '{self.name}' differs from its factor {factor}"
                    )
                size *= factor
            out.append(size)
        return tuple(out)

    def shape_from_primal(self, shape: Sequence[int]) -> tuple[int, ...]:
        """A shape in ``self.primal`` order → the shape in this layout; a split axis
        must be divisible by its factor."""
        letters = self.primal_letters
        if len(shape) != len(letters):
            raise ValueError(
                f"shape {list(shape)} has rank {len(shape)} but layout "
                f"'{self.primal.name}' has {len(letters)} axes"
            )
        extent = {ltr: int(d) for ltr, d in zip(letters, shape, strict=True)}
        out: list[int] = []
        for a in self._axes:
            if a.factor is not None:
                out.append(a.factor)
                continue
            size = extent[a.letter]
            factor = self.factor_of(a.letter)
            if factor > 0:
                if size % factor:
                    raise ValueError(
                        f"axis {a.letter} of size {size} cannot be split by {factor} "
                        f"for layout '{self.name}'"
                    )
                size //= factor
            out.append(size)
        return tuple(out)

    def _check_same_primal(self, dst: Layout) -> None:
        if sorted(self.primal_letters) != sorted(dst.primal_letters):
            raise ValueError(
                f"cannot convert layout '{self.name}' to '{dst.name}': their primal "
                f"axes differ ({self.primal.name} vs {dst.primal.name})"
            )

    def transform_shape(
        self, shape: Sequence[int], dst: Layout | str
    ) -> tuple[int, ...]:
        """A shape in this layout → the shape in layout ``dst``."""
        dst = Layout.parse(dst)
        self._check_same_primal(dst)
        primal = dict(
            zip(self.primal_letters, self.to_primal_shape(shape), strict=True)
        )
        return dst.shape_from_primal([primal[ltr] for ltr in dst.primal_letters])


def _validate(axes: Sequence[LayoutAxis], name: str) -> None:
    seen: set[str] = set()
    for a in axes:
        if a.letter in seen:
            raise ValueError(f"invalid layout '{name}': duplicate axis '{a.letter}'")
        seen.add(a.letter)
    for a in axes:
        if not a.is_primal and a.primal_letter not in seen:
            raise ValueError(
                f"invalid layout '{name}': sub-axis '{a}' has no primal axis "
                f"'{a.primal_letter}'"
            )


def transform_array(array: Any, src: Layout | str, dst: Layout | str) -> Any:
    """The tensor ``array`` stored in layout ``src`` rearranged into layout ``dst``.

    Implemented with two reshapes and two transposes: first every split axis is merged
    back into its primal axis (giving the array in ``src.primal`` order), then the
    primal axes are split by ``dst``'s factors and permuted into ``dst``'s order.
    """
    src, dst = Layout.parse(src), Layout.parse(dst)
    arr = np.asarray(array)
    src._check_same_primal(dst)  # pyright: ignore[reportPrivateUsage]
    primal_shape = src.to_primal_shape(arr.shape)

    # 1. bring each sub-axis right after its primal axis, then merge the pairs
    order: list[int] = []
    for ltr in src.primal_letters:
        order.append(src.index_of(ltr))
        sub = src.index_of(ltr.lower())
        if sub >= 0:
            order.append(sub)
    arr = arr.transpose(order).reshape(primal_shape)

    # 2. split each primal axis that dst splits, then permute into dst's order
    labels: list[str] = []
    split_shape: list[int] = []
    for ltr, size in zip(src.primal_letters, primal_shape, strict=True):
        factor = dst.factor_of(ltr)
        if factor > 0:
            if size % factor:
                raise ValueError(
                    f"axis {ltr} of size {size} cannot be split by {factor} for layout "
                    f"'{dst.name}'"
                )
            labels += [ltr, ltr.lower()]
            split_shape += [size // factor, factor]
        else:
            labels.append(ltr)
            split_shape.append(size)
    arr = arr.reshape(split_shape)
    perm = [labels.index(a.letter) for a in dst.axes]
    return np.ascontiguousarray(arr.transpose(perm))
