"""Go's ``encoding/json`` Marshal: what ``toJson`` and expr's ``toJSON`` write.

Go sorts map keys, writes ``<``, ``>`` and ``&`` as ``\\u003c``..., floats in its shortest
form with exponents from 1e21 and under 1e-6 (``1e+21``, ``1e-7``), byte slices as base64
and invalid UTF-16 halves as U+FFFD; Python's json module differs on each, so the encoder
is written out here. Values with a ``go_json`` method (a ``time.Time``) write themselves.
"""

from __future__ import annotations

import base64
from typing import Any

from orchestrator.golang.floats import format_float, json_float


class MarshalError(ValueError):
    """encoding/json refuses the value (an infinite float, a function); Go's message."""


_SHORT = {'"': '\\"', "\\": "\\\\", "\n": "\\n", "\r": "\\r", "\t": "\\t", "\b": "\\b", "\f": "\\f"}
"""The characters encoding/json writes with a short escape."""


def json_string(s: str, escape_html: bool = True) -> str:
    """A JSON string as encoding/json writes it: HTML characters, U+2028/9 and invalid
    UTF-16 halves escaped, control characters as ``\\u00XX`` but for the short escapes."""
    out = ['"']
    for ch in s:
        code = ord(ch)
        if ch in _SHORT:
            out.append(_SHORT[ch])
        elif code < 0x20 or (escape_html and ch in "<>&"):
            out.append(f"\\u00{code:02x}")
        elif ch in "\u2028\u2029":
            out.append(f"\\u{code:04x}")
        elif 0xD800 <= code <= 0xDFFF:
            out.append("\\ufffd")
        else:
            out.append(ch)
    out.append('"')
    return "".join(out)


def marshal(v: Any, *, escape_html: bool = True, indent: str | None = None, level: int = 0) -> str:
    """encoding/json's Marshal (or MarshalIndent with prefix "" and ``indent``)."""
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(int(v))
    if isinstance(v, float):
        if v != v or v in (float("inf"), float("-inf")):
            raise MarshalError(f"json: unsupported value: {format_float(v)}")
        return json_float(v)
    if isinstance(v, str):
        return json_string(v, escape_html)
    if isinstance(v, bytes | bytearray):
        return '"' + base64.b64encode(bytes(v)).decode() + '"'
    marshal_json = getattr(v, "go_json", None)
    if callable(marshal_json):
        return str(marshal_json())
    nl = "" if indent is None else "\n" + indent * (level + 1)
    end = "" if indent is None else "\n" + indent * level
    if isinstance(v, dict):
        if not v:
            return "{}"
        sep = ":" if indent is None else ": "
        parts = [
            json_string(str(k), escape_html)
            + sep
            + marshal(v[k], escape_html=escape_html, indent=indent, level=level + 1)
            for k in sorted(v, key=lambda k: str(k).encode())
        ]
        return "{" + nl + ("," + nl).join(parts) + end + "}"
    if isinstance(v, list | tuple):
        if not v:
            return "[]"
        parts = [marshal(x, escape_html=escape_html, indent=indent, level=level + 1) for x in v]
        return "[" + nl + ("," + nl).join(parts) + end + "]"
    if callable(v):
        raise MarshalError("json: unsupported type: func()")
    return "{}"
