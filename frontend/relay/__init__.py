"""``xrelay.relay``: a ``tvm.relay``-shaped Python API for building relay programs.

Port a TVM script by changing its imports::

    from xrelay import relay

    x = relay.var("x", shape=(1, 3))
    y = relay.nn.relu(relay.add(x, relay.const(np.ones((1, 3), "float32"))))
    mod = IRModule.from_expr(relay.Function([x], y))   # a builtin.module of func.func
    out = relay.create_executor(mod=mod).evaluate()(np.zeros((1, 3), "float32"))

Expressions form a lazy DAG; the IR is made when a Function is put in an
:class:`IRModule` (:mod:`.emitter` explains how each kind of expression is emitted).
"""

from __future__ import annotations

from xrelay.frontend.relay import analysis as analysis
from xrelay.frontend.relay import backend as backend
from xrelay.frontend.relay import build_module as build_module
from xrelay.frontend.relay import dataflow_pattern as dataflow_pattern
from xrelay.frontend.relay import expr_functor as expr_functor
from xrelay.frontend.relay import frontend as frontend
from xrelay.frontend.relay import op as op
from xrelay.frontend.relay import pass_function as pass_function
from xrelay.frontend.relay import qnn as qnn
from xrelay.frontend.relay import testing as testing
from xrelay.frontend.relay import transform as transform
from xrelay.frontend.relay.build_module import build as build
from xrelay.frontend.relay.build_module import optimize as optimize
from xrelay.frontend.relay.emitter import BuildError as BuildError
from xrelay.frontend.relay.executor import Executor as Executor
from xrelay.frontend.relay.executor import create_executor as create_executor
from xrelay.frontend.relay.expr import Attrs as Attrs
from xrelay.frontend.relay.expr import Call as Call
from xrelay.frontend.relay.expr import Constant as Constant
from xrelay.frontend.relay.expr import Expr as Expr
from xrelay.frontend.relay.expr import GlobalVar as GlobalVar
from xrelay.frontend.relay.expr import If as If
from xrelay.frontend.relay.expr import Let as Let
from xrelay.frontend.relay.expr import NDArray as NDArray
from xrelay.frontend.relay.expr import SourceName as SourceName
from xrelay.frontend.relay.expr import Span as Span
from xrelay.frontend.relay.expr import Tuple as Tuple
from xrelay.frontend.relay.expr import TupleGetItem as TupleGetItem
from xrelay.frontend.relay.expr import TupleWrapper as TupleWrapper
from xrelay.frontend.relay.expr import Var as Var
from xrelay.frontend.relay.expr import const as const
from xrelay.frontend.relay.expr import var as var
from xrelay.frontend.relay.expr_functor import ExprFunctor as ExprFunctor
from xrelay.frontend.relay.expr_functor import ExprMutator as ExprMutator
from xrelay.frontend.relay.expr_functor import ExprVisitor as ExprVisitor
from xrelay.frontend.relay.function import Function as Function
from xrelay.frontend.relay.function_view import FunctionView as FunctionView
from xrelay.frontend.relay.module import IRModule as IRModule
from xrelay.frontend.relay.op import annotation as annotation
from xrelay.frontend.relay.op import image as image
from xrelay.frontend.relay.op import nn as nn
from xrelay.frontend.relay.op import vision as vision
from xrelay.frontend.relay.op.algorithm import *  # noqa: F403
from xrelay.frontend.relay.op.bitwise import *  # noqa: F403
from xrelay.frontend.relay.op.indexing import *  # noqa: F403
from xrelay.frontend.relay.op.reduce import *  # noqa: F403
from xrelay.frontend.relay.op.tensor import *  # noqa: F403
from xrelay.frontend.relay.op.transform import *  # noqa: F403
from xrelay.frontend.relay.scope_builder import ScopeBuilder as ScopeBuilder
from xrelay.frontend.relay.text_parser import RelayTextError as RelayTextError
from xrelay.frontend.relay.text_parser import fromtext as fromtext
from xrelay.frontend.relay.text_parser import parse as parse
from xrelay.frontend.relay.text_parser import parse_expr as parse_expr
from xrelay.frontend.relay.text_printer import to_relay_text as to_relay_text
from xrelay.frontend.relay.ty import Any as Any
from xrelay.frontend.relay.ty import FuncType as FuncType
from xrelay.frontend.relay.ty import GlobalTypeVar as GlobalTypeVar
from xrelay.frontend.relay.ty import IncompleteType as IncompleteType
from xrelay.frontend.relay.ty import TensorType as TensorType
from xrelay.frontend.relay.ty import TupleType as TupleType
from xrelay.frontend.relay.ty import Type as Type
from xrelay.frontend.relay.ty import TypeKind as TypeKind
from xrelay.frontend.relay.ty import TypeVar as TypeVar
from xrelay.frontend.relay.ty import scalar_type as scalar_type
from xrelay.frontend.relay.unsupported import *  # noqa: F403
