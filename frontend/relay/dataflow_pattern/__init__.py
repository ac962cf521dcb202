"""Relay's pattern language (``tvm.relay.dataflow_pattern``): match expressions,
rewrite the matches with callbacks, and partition them into functions.

    from xrelay.relay.dataflow_pattern import is_op, wildcard, is_constant

    conv = is_op("nn.conv2d")(wildcard(), is_constant())
    pat = is_op("nn.relu")(is_op("nn.bias_add")(conv, is_constant()))
    pat.match(expr)                                  # bool
    pat.partition(expr, attrs={"Composite": "conv_bias_relu"})

    class Fold(DFPatternCallback):
        def __init__(self):
            super().__init__()
            self.pattern = ...
        def callback(self, pre, post, node_map):
            return ...                               # the replacement of the match
    rewrite(Fold(), expr)

:mod:`.matcher` has the matching rules, :mod:`.rewrite` those of grouping,
``rewrite`` and ``partition``.
"""

from __future__ import annotations

from xrelay.frontend.relay.dataflow_pattern.matcher import match as match
from xrelay.frontend.relay.dataflow_pattern.pattern import AltPattern as AltPattern
from xrelay.frontend.relay.dataflow_pattern.pattern import AttrPattern as AttrPattern
from xrelay.frontend.relay.dataflow_pattern.pattern import CallPattern as CallPattern
from xrelay.frontend.relay.dataflow_pattern.pattern import (
    ConstantPattern as ConstantPattern,
)
from xrelay.frontend.relay.dataflow_pattern.pattern import (
    DataTypePattern as DataTypePattern,
)
from xrelay.frontend.relay.dataflow_pattern.pattern import DFPattern as DFPattern
from xrelay.frontend.relay.dataflow_pattern.pattern import (
    DominatorPattern as DominatorPattern,
)
from xrelay.frontend.relay.dataflow_pattern.pattern import ExprPattern as ExprPattern
from xrelay.frontend.relay.dataflow_pattern.pattern import (
    FunctionPattern as FunctionPattern,
)
from xrelay.frontend.relay.dataflow_pattern.pattern import IfPattern as IfPattern
from xrelay.frontend.relay.dataflow_pattern.pattern import LetPattern as LetPattern
from xrelay.frontend.relay.dataflow_pattern.pattern import ShapePattern as ShapePattern
from xrelay.frontend.relay.dataflow_pattern.pattern import (
    TupleGetItemPattern as TupleGetItemPattern,
)
from xrelay.frontend.relay.dataflow_pattern.pattern import TuplePattern as TuplePattern
from xrelay.frontend.relay.dataflow_pattern.pattern import TypePattern as TypePattern
from xrelay.frontend.relay.dataflow_pattern.pattern import VarPattern as VarPattern
from xrelay.frontend.relay.dataflow_pattern.pattern import (
    WildcardPattern as WildcardPattern,
)
from xrelay.frontend.relay.dataflow_pattern.pattern import dominates as dominates
from xrelay.frontend.relay.dataflow_pattern.pattern import has_attr as has_attr
from xrelay.frontend.relay.dataflow_pattern.pattern import has_dtype as has_dtype
from xrelay.frontend.relay.dataflow_pattern.pattern import has_shape as has_shape
from xrelay.frontend.relay.dataflow_pattern.pattern import has_type as has_type
from xrelay.frontend.relay.dataflow_pattern.pattern import is_constant as is_constant
from xrelay.frontend.relay.dataflow_pattern.pattern import is_expr as is_expr
from xrelay.frontend.relay.dataflow_pattern.pattern import is_if as is_if
from xrelay.frontend.relay.dataflow_pattern.pattern import is_let as is_let
from xrelay.frontend.relay.dataflow_pattern.pattern import is_op as is_op
from xrelay.frontend.relay.dataflow_pattern.pattern import is_tuple as is_tuple
from xrelay.frontend.relay.dataflow_pattern.pattern import (
    is_tuple_get_item as is_tuple_get_item,
)
from xrelay.frontend.relay.dataflow_pattern.pattern import is_var as is_var
from xrelay.frontend.relay.dataflow_pattern.pattern import wildcard as wildcard
from xrelay.frontend.relay.dataflow_pattern.rewrite import (
    DFPatternCallback as DFPatternCallback,
)
from xrelay.frontend.relay.dataflow_pattern.rewrite import partition as partition
from xrelay.frontend.relay.dataflow_pattern.rewrite import rewrite as rewrite
