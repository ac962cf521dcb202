"""ConvertLayout: rewrite a function to the data layouts the user asks for, with as few
``layout_transform``s as possible (mirrors Relay's ``ConvertLayout``: function pass,
opt_level 3, requires InferType and CanonicalizeOps).

``desired_layouts`` maps op names to the layouts wanted for their operands, e.g.
``{"nn.conv2d": ["NHWC", "default"], "nn.max_pool2d": ["NHWC"]}`` (op names with or
without the ``relay.`` prefix). Convolutions take a data and a kernel layout
(``"default"`` lets the op choose the kernel layout: ``OIHW`` for ``NCHW``, ``HWIO``
for ``NHWC``); pools take one layout. Only ops with a ``convert_layout`` hook can be
named (``nn.conv2d``, ``nn.conv2d_transpose`` and the 2-D pools); every other op
follows its producers through its layout rule (element-wise and broadcast ops,
``bias_add``, reductions, ``pad``, ``concatenate``, ``transpose``, ``squeeze``,
``strided_slice``, ``split``, pools, normalisations), or gets its operands back in
their original layout. The function's inputs are transformed at the entry and its
results back at the exit (see :mod:`xrelay.transforms._layout_rewrite`).

On the command line the map is one string option::

    xrelay-opt -p 'convert-layout{desired-layouts="nn.conv2d=NHWC:default,nn.max_pool2d=NHWC"}'

entries ``op=layout[:layout...]`` separated by ``,`` (or ``;``), layouts by ``:``.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from types import TracebackType
from typing import Any, ClassVar

from xdsl.dialects.func import FuncOp
from xdsl.ir import Attribute
from xdsl.utils.exceptions import DiagnosticException

from xrelay.dialects.relay import OPS_BY_NAME, frontend_calls
from xrelay.dialects.relay.base import RelayOp
from xrelay.dialects.relay.layout import Layout
from xrelay.dialects.relay.layout_rules import Replacement
from xrelay.dialects.relay.op_attrs import CONVERT_OP_LAYOUT, get_op_attr
from xrelay.pass_manager import FunctionPass, PassContext, PassInfo, register_pass
from xrelay.pass_manager.options import normalise, option
from xrelay.transforms._layout_rewrite import LayoutRewriter

DesiredLayouts = Mapping[str, Sequence[str]]


class ConvertLayoutError(DiagnosticException, ValueError):
    """The desired layouts are malformed or name an op that cannot be converted."""


def convertible_ops() -> list[str]:
    """The ops with a ``convert_layout`` hook, by name."""
    return sorted(name for name, cls in OPS_BY_NAME.items() if cls.DESIRED_LAYOUTS)


def parse_desired_layouts(text: str) -> dict[str, list[str]]:
    """``"nn.conv2d=NHWC:default,nn.max_pool2d=NHWC"`` → ``{"nn.conv2d": ["NHWC",
    "default"], "nn.max_pool2d": ["NHWC"]}`` (entries separated by ``,`` or ``;``)."""
    out: dict[str, list[str]] = {}
    for entry in text.replace(";", ",").split(","):
        entry = entry.strip()
        if not entry:
            continue
        op, sep, layouts = entry.partition("=")
        op = op.strip()
        if not sep or not op or not layouts.strip():
            raise ConvertLayoutError(
                f"desired-layouts entry '{entry}' is not op=layout[:layout...] (e.g. "
                "nn.conv2d=NHWC:default)"
            )
        if op in out:
            raise ConvertLayoutError(f"desired-layouts names {op} twice")
        out[op] = [x.strip() for x in layouts.split(":")]
    return out


def check_desired_layouts(
    desired: DesiredLayouts | str,
) -> dict[type[RelayOp], list[str]]:
    """The desired layouts by op class, checked: known ops with a ``convert_layout``
    hook, one layout per role the op declares, well-formed layout strings."""
    if isinstance(desired, str):
        desired = parse_desired_layouts(desired)
    out: dict[type[RelayOp], list[str]] = {}
    for name, layouts in desired.items():
        if isinstance(layouts, str):
            layouts = [layouts]
        full = name if name.startswith("relay.") else f"relay.{name}"
        cls = OPS_BY_NAME.get(full)
        if cls is None:
            raise ConvertLayoutError(f"desired layouts name an unknown op '{name}'")
        roles = cls.DESIRED_LAYOUTS
        if get_op_attr(full, CONVERT_OP_LAYOUT) is not None:
            out[cls] = [str(x) for x in layouts]  # a registered hook takes them as is
            continue
        if not roles:
            raise ConvertLayoutError(
                f"{full} has no layout conversion; ops that convert: "
                f"{', '.join(convertible_ops())}"
            )
        if len(layouts) != len(roles):
            raise ConvertLayoutError(
                f"{full} takes {len(roles)} desired layout(s) ({', '.join(roles)}), "
                f"got {len(layouts)}: {list(layouts)}"
            )
        for role, layout in zip(roles, layouts, strict=True):
            if layout == "default":
                if role == roles[0]:
                    raise ConvertLayoutError(
                        f"the desired {role} layout of {full} cannot be 'default'"
                    )
                continue
            try:
                Layout.parse(layout)
            except ValueError as e:
                raise ConvertLayoutError(
                    f"desired {role} layout of {full}: {e}"
                ) from None
        if cls in out:
            raise ConvertLayoutError(f"desired layouts name {full} twice")
        out[cls] = [str(x) for x in layouts]
    return out


class LayoutConfig:
    """Relay's ``relay.transform.LayoutConfig``: inside ``with
    LayoutConfig(skip_layers=[0, 2]):`` ConvertLayout leaves the listed layers (the
    ops marked ``IS_LAYER``, convolutions, counted in program order from 0 over
    every function it converts) in their layouts; the ops after them still
    follow."""

    _local: ClassVar[threading.local] = threading.local()

    def __init__(self, skip_layers: Iterable[int] | None = None):
        self.skip_layers = {int(k) for k in skip_layers or ()}
        self.current_layer = 0

    @classmethod
    def current(cls) -> LayoutConfig | None:
        """The innermost active config, or ``None``."""
        stack: list[LayoutConfig] = getattr(cls._local, "stack", [])
        return stack[-1] if stack else None

    def check_skip(self) -> bool:
        """Whether the next layer is skipped (and count it)."""
        skip = self.current_layer in self.skip_layers
        self.current_layer += 1
        return skip

    def __enter__(self) -> LayoutConfig:
        stack: list[LayoutConfig] = getattr(self._local, "stack", [])
        self._local.stack = [*stack, self]
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        value: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        stack: list[LayoutConfig] = getattr(self._local, "stack", [])
        self._local.stack = stack[:-1]


def convert_layout(func: FuncOp, desired: DesiredLayouts | str) -> bool:
    """Convert the layouts of one function in place; True if it changed."""
    table = check_desired_layouts(desired)
    config = LayoutConfig.current()

    def hook(op: RelayOp, types: Sequence[Attribute]) -> RelayOp | Replacement | None:
        layouts = table.get(type(op))
        if layouts is None:
            return None
        if config is not None and op.IS_LAYER and config.check_skip():
            return None
        user = get_op_attr(op.name, CONVERT_OP_LAYOUT)
        if user is not None:
            run = frontend_calls.require(frontend_calls.RUN_CONVERT_HOOK)
            return run(user, op, types, layouts)
        return op.convert_layout(layouts, types)

    return LayoutRewriter(hook).rewrite(func)


@register_pass("ConvertLayout")
@dataclass(frozen=True, eq=False, repr=False)
class ConvertLayout(FunctionPass):
    """Convert the layouts of convolutions and pools to ``desired_layouts`` and let
    the other ops follow, inserting as few ``layout_transform``s as possible (Relay's
    ConvertLayout: function pass, opt_level 3, requires InferType, CanonicalizeOps).
    ``desired_layouts`` is checked and normalised to ``{op name: [layouts]}``.
    """

    desired_layouts: DesiredLayouts | str = option(
        "",
        "op=layout[:layout...] entries, e.g. nn.conv2d=NHWC:default",
        parse_as=str,
    )

    def __post_init__(self) -> None:
        table = check_desired_layouts(self.desired_layouts)
        normalise(
            self,
            "desired_layouts",
            {cls.name: layouts for cls, layouts in table.items()},
        )
        super().__init__(
            self._run, PassInfo(3, "ConvertLayout", ["InferType", "CanonicalizeOps"])
        )

    def _run(self, func: FuncOp, mod: Any, ctx: PassContext) -> FuncOp:
        if not convert_layout(func, self.desired_layouts):
            ctx.analyses.preserve()  # nothing changed
        return func
