"""JSON for other programs to read: strict JSON, which has no NaN or infinities.

Python's ``json`` writes ``NaN`` and ``Infinity`` by default, which JavaScript's ``JSON.parse`` and
other strict parsers refuse. Every ``--json`` line and every JSON file the commands write for a
reader (solver results, tournament reports, training summaries) goes through :func:`dumps`: a
number that is not finite (an estimate with nothing to estimate from, say) becomes ``null``, and
numpy numbers and arrays become plain JSON.

>>> import numpy as np
>>> dumps({"value": float("nan"), "games": np.int64(3), "rates": np.array([0.5, np.inf])})
'{"value": null, "games": 3, "rates": [0.5, null]}'
"""

from __future__ import annotations

import json
import math
from typing import Any

import numpy as np


def finite(value: Any) -> Any:
    """``value`` with every non-finite float (at any depth of dicts, lists and tuples) as ``None``."""
    if isinstance(value, dict):
        return {key: finite(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [finite(item) for item in value]
    if isinstance(value, np.ndarray):
        return finite(value.tolist())
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    if isinstance(value, np.integer):
        return int(value)
    if isinstance(value, (float, np.floating)):
        value = float(value)
        return value if math.isfinite(value) else None
    return value


def dumps(data: Any, **kwargs) -> str:
    """``json.dumps`` of :func:`finite` ``(data)``, refusing anything that would not be strict JSON.

    ``kwargs`` go to ``json.dumps`` (``indent``, ``default`` for other objects; what ``default``
    returns must be finite too).
    """
    return json.dumps(finite(data), allow_nan=False, **kwargs)


__all__ = ["dumps", "finite"]
