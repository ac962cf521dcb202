"""The ``view-graph`` pass and its Graphviz rendering: :mod:`xrelay.transforms.view_graph`."""

from xrelay.transforms.view_graph import (
    GraphError,
    ViewGraph,
    dot_program,
    entry_function,
    read_times,
    to_dot,
    write_graph,
)

__all__ = [
    "GraphError",
    "ViewGraph",
    "dot_program",
    "entry_function",
    "read_times",
    "to_dot",
    "write_graph",
]
