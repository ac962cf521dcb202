"""Where the benchmarks find the shared models: ``$XRELAY_SHARED_MODELS``, else
``../shared/models`` beside the project (``--models`` overrides both)."""

from __future__ import annotations

import os
from pathlib import Path

SHARED_MODELS = Path(
    os.environ.get(
        "XRELAY_SHARED_MODELS",
        Path(__file__).resolve().parents[2] / "shared" / "models",
    )
)
