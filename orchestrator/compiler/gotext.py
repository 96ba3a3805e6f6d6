"""Go string literals in the templates promoflow writes for Argo Events Sensors."""

from __future__ import annotations

import json


def go_string(text: str) -> str:
    """``text`` as a Go string literal inside a template action.

    JSON's quoting is Go's for everything JSON escapes once non-ASCII characters are left
    as they are (Go would refuse JSON's ``\\ud83d``-style surrogate escapes); quoting keeps
    a ``{{`` in a name or route from being read as template syntax."""
    return json.dumps(text, ensure_ascii=False)
