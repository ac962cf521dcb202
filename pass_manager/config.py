"""Registered PassContext configuration options.

As in TVM, every config key must be registered with a type and a default before a
``PassContext`` accepts it; values are checked and converted by the registered type,
and an unknown key is an error listing the closest registered keys.
"""

from __future__ import annotations

import dataclasses
import difflib
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, cast


class PassConfigError(AttributeError):
    """An unregistered config key, or a value of the wrong type (an ``AttributeError``
    like TVM's)."""


@dataclass(frozen=True)
class ConfigOption:
    name: str
    type: type
    default: Any
    doc: str = ""

    @property
    def type_name(self) -> str:
        return self.type.__name__

    def convert(self, value: Any) -> Any:
        """``value`` checked and converted to the option's type."""
        if value is None:
            raise PassConfigError(f"Config option {self.name} is None")
        expected = self.type
        if expected is bool:
            if isinstance(value, bool):
                return value
            if isinstance(value, int) and value in (0, 1):
                return bool(value)
        elif expected is int:
            if isinstance(value, int) and not isinstance(value, bool):
                return value
        elif expected is float:
            if isinstance(value, int | float) and not isinstance(value, bool):
                return float(value)
        elif isinstance(value, expected):
            return value
        elif dataclasses.is_dataclass(expected) and isinstance(value, Mapping):
            return _build_dataclass(expected, cast(Mapping[str, Any], value))
        raise PassConfigError(
            f"Expect config {self.name} to have type {self.type_name}, but instead get "
            f"{type(value).__name__} ({value!r})"
        )

    def parse(self, text: str) -> Any:
        """Convert a command-line string (``--pass-config key=value``)."""
        if self.type is bool:
            lowered = text.strip().lower()
            if lowered in ("1", "true", "on", "yes"):
                return True
            if lowered in ("0", "false", "off", "no"):
                return False
        elif self.type is int:
            try:
                return int(text)
            except ValueError:
                pass
        elif self.type is float:
            try:
                return float(text)
            except ValueError:
                pass
        elif self.type is str:
            return text
        raise PassConfigError(
            f"Expect config {self.name} to have type {self.type_name}, but instead get "
            f"'{text}'"
        )


def _build_dataclass(cls: type, fields: Mapping[str, Any]) -> Any:
    """An object-typed option from a dict (TVM builds config objects by reflection):
    missing fields take their defaults, an unknown field is a ``TypeError``."""
    known = {f.name for f in dataclasses.fields(cls)}
    for key in fields:
        if key not in known:
            raise TypeError(f"Type {cls.__name__} does not have field {key}")
    return cls(**fields)


_OPTIONS: dict[str, ConfigOption] = {}


def register_config(name: str, type: type, default: Any, doc: str = "") -> ConfigOption:
    """Register a PassContext config option (TVM's ``TVM_REGISTER_PASS_CONFIG_OPTION``).

    Registering the same name twice with the same type is allowed (the last default
    wins); with another type it is an error.
    """
    existing = _OPTIONS.get(name)
    if existing is not None and existing.type is not type:
        raise ValueError(
            f"config option {name} is already registered as {existing.type_name}"
        )
    option = ConfigOption(name, type, None, doc)
    option = ConfigOption(name, type, option.convert(default), doc)
    _OPTIONS[name] = option
    return option


def lookup_config(name: str) -> ConfigOption:
    option = _OPTIONS.get(name)
    if option is None:
        close = difflib.get_close_matches(name, list(_OPTIONS), n=5, cutoff=0.5)
        candidates = close or sorted(_OPTIONS)
        raise PassConfigError(
            f"Invalid config option '{name}' candidates are: {', '.join(candidates)}"
        )
    return option


def list_configs() -> dict[str, dict[str, str]]:
    """Every registered option: ``{name: {"type": "bool", "default": ..., "doc": ...}}``."""
    return {
        name: {"type": opt.type_name, "default": repr(opt.default), "doc": opt.doc}
        for name, opt in sorted(_OPTIONS.items())
    }


TESTING_IMMUTABLE_MODULE = register_config(
    "testing.immutable_module",
    bool,
    False,
    "check that passes which promise not to mutate their input module (Python passes "
    "from module_pass/function_pass) leave it unchanged",
)
VERIFY_EACH = register_config(
    "xrelay.verify_each",
    bool,
    True,
    "verify the IR after every pass and name the pass that broke it",
)
CACHE_ANALYSES = register_config(
    "xrelay.cache_analyses",
    bool,
    True,
    "cache analyses (types, call graph, ...) between passes and recompute only what a "
    "pass invalidated; off: every request computes (for comparisons)",
)
FUSE_MAX_DEPTH = register_config(
    "relay.FuseOps.max_depth", int, 256, "the largest number of ops in one fused group"
)
FOLD_MAX_ELEMENTS = register_config(
    "relay.FoldConstant.max_elements",
    int,
    1 << 24,
    "FoldConstant leaves an op alone when one of its results has more elements "
    "(bounded work and memory for huge broadcasts)",
)
MAX_WORK = register_config(
    "xrelay.max_work",
    int,
    1 << 36,
    "xrelay.build refuses a program whose run would cost more (elements computed or "
    "read, plus multiply-adds: about 2**31 for ResNet-18) instead of compiling code "
    "that runs for hours (huge broadcasts)",
)
FUSE_LINK_PARAMS = register_config(
    "relay.FuseOps.link_params", bool, False, "keep constants inside fused functions"
)
KEEP_ORIG_OUTPUT_DTYPE = register_config(
    "relay.ToMixedPrecision.keep_orig_output_dtype",
    bool,
    False,
    "ToMixedPrecision casts the function results back to their original dtypes",
)
BUILD_MIXED_PRECISION_TYPE = register_config(
    "xrelay.mixed_precision_type",
    str,
    "",
    "relay.build's pipeline runs ToMixedPrecision to this type (bfloat16, float16) "
    "after SimplifyExpr, keeping the results' dtypes; empty: float32 throughout "
    "(xrelay.build(precision=...) sets it)",
)
