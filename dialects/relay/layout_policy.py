"""The CPU layout policy the ops' ``alter_layout`` hooks ask for block sizes.

The policy lives beside the kernels that run the blocked layouts
(:mod:`xrelay.lowering.cpu_layout`), above the dialect: importing the lowering
installs it here (the pass registry imports the lowering before any pass is looked
up, so every pipeline has it). An op asking before that gets a
:class:`LayoutPolicyMissingError`.
"""

from __future__ import annotations

from typing import Any


class LayoutPolicyMissingError(RuntimeError):
    """The lowering that owns the CPU layout policy was never imported."""


_POLICY: list[Any] = []


def install(policy: Any) -> None:
    """Install ``policy`` (a module or object with ``is_cpu_target``,
    ``choose_conv2d_blocking``, ``choose_grouped_conv2d_blocking``,
    ``choose_dense_packing`` and ``choose_dense_split``)."""
    _POLICY[:] = [policy]


def current() -> Any:
    """The installed policy."""
    if not _POLICY:
        raise LayoutPolicyMissingError(
            "the CPU layout policy is installed by xrelay.lowering: import it first"
        )
    return _POLICY[0]
