"""Does a stored object already say what promoflow would send? Equal up to empty values.

The Argo Server stores what it is sent as its Go types serialise it: a struct field that is
not a pointer is written even when empty (``arguments: {}``, ``inputs: {}``, a container's
``name: ""`` and ``resources: {}``) and an empty string marked ``omitempty`` is dropped
(``env[].value: ""``). Compared as sent, every template would look changed on every
``promoflow apply``. An absent value and an empty one (``{}``, ``[]``, ``""``, ``null``)
mean the same to Argo, so they compare equal here; anything else must match exactly.
Pure, no imports from the rest of the package.
"""

from __future__ import annotations

from typing import Any


def is_empty(value: Any) -> bool:
    return value is None or (isinstance(value, dict | list | str) and not value)


def same_up_to_empty(a: Any, b: Any) -> bool:
    """``a`` and ``b`` hold the same values once empty ones are taken as absent."""
    if isinstance(a, dict) and isinstance(b, dict):
        return all(same_up_to_empty(a.get(key), b.get(key)) for key in a.keys() | b.keys())
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(same_up_to_empty(x, y) for x, y in zip(a, b, strict=True))
    if is_empty(a) and is_empty(b):
        return True
    return bool(a == b and type(a) is type(b))
