"""Parameter names ↔ SSA name hints, reversibly.

A model's inputs keep their names exactly (ONNX names such as ``data_0``,
``conv1/x:0`` or ``input.1``), but an SSA name hint can only spell
``[A-Za-z_$.-][A-Za-z0-9_$.-]*``, and xDSL drops a trailing ``_<digits>`` from every
hint (its printer appends those to tell values apart). :func:`encode_name` maps any
name to a hint that survives both, changing only what cannot be spelled:

* a character outside ``[A-Za-z0-9_.-]``, ``$`` itself, and a leading digit become
  ``$xx`` per UTF-8 byte (``conv1/x:0`` → ``conv1$2fx$3a0``);
* a name ending in ``_<digits>`` (then any ``_``) gets one more ``_``
  (``data_0`` → ``data_0_``, ``data_0_`` → ``data_0__``).

:func:`decode_name` undoes it, so the IR, the compiled model's input list and every
API that takes an input name (``set_input``, ``lib(**named)``, ``xrelay-run
--input``, ``params``) use the original name.
"""

from __future__ import annotations

import re

_PLAIN = re.compile(r"[A-Za-z0-9_.-]")
_DIGIT_TAIL = re.compile(r"_\d+_*$")
_PROTECTED_TAIL = re.compile(r"_\d+_+$")
_ESCAPE = re.compile(r"(?:\$[0-9a-f]{2})+")


def _escape(char: str) -> str:
    return "".join(f"${b:02x}" for b in char.encode("utf-8"))


def encode_name(name: str) -> str:
    """The SSA name hint standing for ``name`` (see the module docstring)."""
    chars = [c if _PLAIN.fullmatch(c) else _escape(c) for c in name]
    if chars and chars[0].isdigit():
        chars[0] = _escape(chars[0])
    hint = "".join(chars) or "$"
    if _DIGIT_TAIL.search(hint):
        hint += "_"
    return hint


def decode_name(hint: str) -> str:
    """The name :func:`encode_name` made ``hint`` from (a hint it cannot have made
    is returned with what it can decode)."""
    if hint == "$":
        return ""
    if _PROTECTED_TAIL.search(hint):
        hint = hint[:-1]

    def unescape(m: re.Match[str]) -> str:
        raw = bytes(
            int(m.group(0)[i + 1 : i + 3], 16) for i in range(0, len(m.group(0)), 3)
        )
        return raw.decode("utf-8", errors="replace")

    return _ESCAPE.sub(unescape, hint)
