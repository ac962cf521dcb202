"""The ``relay`` dialect: Relay's operators in SSA form on builtin tensor types.

Every op class lives in one of the family modules and is re-exported here; the
:data:`Relay` dialect object bundles them for registration in an xDSL ``Context``.
"""

from __future__ import annotations

from xdsl.ir import Dialect, Operation

from xrelay.dialects.relay.algorithm import *  # noqa: F403
from xrelay.dialects.relay.algorithm import ALGORITHM_OPS
from xrelay.dialects.relay.annotation import *  # noqa: F403
from xrelay.dialects.relay.annotation import ANNOTATION_OPS
from xrelay.dialects.relay.base import (
    IncompleteTypeError as IncompleteTypeError,
)
from xrelay.dialects.relay.base import (
    OpPattern as OpPattern,
)
from xrelay.dialects.relay.base import (
    RelayOp as RelayOp,
)
from xrelay.dialects.relay.base import (
    TypeRelationError as TypeRelationError,
)
from xrelay.dialects.relay.bitwise import *  # noqa: F403
from xrelay.dialects.relay.bitwise import BITWISE_OPS
from xrelay.dialects.relay.deformable import *  # noqa: F403
from xrelay.dialects.relay.deformable import DEFORMABLE_OPS
from xrelay.dialects.relay.elementwise import *  # noqa: F403
from xrelay.dialects.relay.elementwise import ELEMENTWISE_OPS
from xrelay.dialects.relay.image import *  # noqa: F403
from xrelay.dialects.relay.image import IMAGE_OPS
from xrelay.dialects.relay.indexing import *  # noqa: F403
from xrelay.dialects.relay.indexing import INDEXING_OPS
from xrelay.dialects.relay.linalg import *  # noqa: F403
from xrelay.dialects.relay.linalg import LINALG_OPS
from xrelay.dialects.relay.nn import *  # noqa: F403
from xrelay.dialects.relay.nn import CONTRIB_NN_OPS, NN_OPS
from xrelay.dialects.relay.normalization import *  # noqa: F403
from xrelay.dialects.relay.normalization import NORMALIZATION_OPS
from xrelay.dialects.relay.pooling import *  # noqa: F403
from xrelay.dialects.relay.pooling import POOLING_OPS
from xrelay.dialects.relay.qnn import *  # noqa: F403
from xrelay.dialects.relay.qnn import QNN_OPS
from xrelay.dialects.relay.reduce import *  # noqa: F403
from xrelay.dialects.relay.reduce import REDUCE_OPS
from xrelay.dialects.relay.resize import *  # noqa: F403
from xrelay.dialects.relay.resize import RESIZE_OPS
from xrelay.dialects.relay.slice_like import *  # noqa: F403
from xrelay.dialects.relay.slice_like import SLICE_LIKE_OPS
from xrelay.dialects.relay.structural import *  # noqa: F403
from xrelay.dialects.relay.structural import (
    FUNCTION_ATTRIBUTES as FUNCTION_ATTRIBUTES,
)
from xrelay.dialects.relay.structural import (
    INLINE as INLINE,
)
from xrelay.dialects.relay.structural import (
    PRIMITIVE as PRIMITIVE,
)
from xrelay.dialects.relay.structural import (
    SKIP_OPTIMIZATION as SKIP_OPTIMIZATION,
)
from xrelay.dialects.relay.structural import (
    STRUCTURAL_OPS as STRUCTURAL_OPS,
)
from xrelay.dialects.relay.structural import (
    ConstantOp as ConstantOp,
)
from xrelay.dialects.relay.structural import (
    dense_from_numpy as dense_from_numpy,
)
from xrelay.dialects.relay.structural import (
    numpy_from_dense as numpy_from_dense,
)
from xrelay.dialects.relay.transform import *  # noqa: F403
from xrelay.dialects.relay.transform import TRANSFORM_OPS
from xrelay.dialects.relay.vision import *  # noqa: F403
from xrelay.dialects.relay.vision import VISION_OPS

ALL_OPS: list[type[RelayOp]] = [
    *STRUCTURAL_OPS,
    *ELEMENTWISE_OPS,
    *BITWISE_OPS,
    *NN_OPS,
    *CONTRIB_NN_OPS,
    *POOLING_OPS,
    *NORMALIZATION_OPS,
    *REDUCE_OPS,
    *TRANSFORM_OPS,
    *INDEXING_OPS,
    *ALGORITHM_OPS,
    *LINALG_OPS,
    *IMAGE_OPS,
    *RESIZE_OPS,
    *DEFORMABLE_OPS,
    *SLICE_LIKE_OPS,
    *VISION_OPS,
    *QNN_OPS,
    *ANNOTATION_OPS,
]
"""Every op of the dialect."""

OPS_BY_NAME: dict[str, type[RelayOp]] = {op.name: op for op in ALL_OPS}

Relay = Dialect("relay", list[type[Operation]](ALL_OPS), [])
