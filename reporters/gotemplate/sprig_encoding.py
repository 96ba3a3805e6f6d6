"""sprig's encodings (v3.3.0): base64, base32, JSON (Go's encoding/json), hashes.

``toJson`` is Go's ``json.Marshal``: keys sorted, ``<``, ``>`` and ``&`` written as
``\\u003c``..., floats in Go's shortest form (``1e+21`` becomes ``1e21``); Python's json
module differs on each, so the encoder is written out here.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
import zlib
from typing import Any

from orchestrator.golang.floats import json_float
from reporters.gotemplate.sprig_convert import ANY
from reporters.gotemplate.values import GoError, GoFunc

S = "string"


def _b64dec(v: str) -> str:
    try:
        data = base64.b64decode(v.encode(), validate=True)
    except (binascii.Error, ValueError):
        return _corrupt(
            v, 4, set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/")
        )
    if len(v) % 4:
        return _corrupt(
            v, 4, set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/")
        )
    return data.decode("utf-8", "replace")


def _corrupt(v: str, block: int, alphabet: set[str]) -> str:
    """encoding/base64's CorruptInputError text: the byte offset of the first bad byte."""
    data = v.encode()
    stripped = data.rstrip(b"=")
    for i, b in enumerate(data):
        ch = chr(b)
        if ch in ("\r", "\n"):
            continue
        if ch == "=":
            return f"illegal base64 data at input byte {max(i, 0)}"
        if ch not in alphabet:
            return f"illegal base64 data at input byte {i}"
    size = len(stripped)
    return f"illegal base64 data at input byte {size // block * block if size % block else size}"


def _b32dec(v: str) -> str:
    try:
        data = base64.b32decode(v.encode())
    except (binascii.Error, ValueError):
        return "illegal base32 data at input byte 0"
    return data.decode("utf-8", "replace")


def json_string(s: str, escape_html: bool) -> str:
    out = ['"']
    for ch in s:
        code = ord(ch)
        if ch == '"':
            out.append('\\"')
        elif ch == "\\":
            out.append("\\\\")
        elif ch == "\n":
            out.append("\\n")
        elif ch == "\r":
            out.append("\\r")
        elif ch == "\t":
            out.append("\\t")
        elif ch == "\b":
            out.append("\\b")
        elif ch == "\f":
            out.append("\\f")
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
            raise GoError(f"json: unsupported value: {json_float_text(v)}")
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
        raise GoError("json: unsupported type: func()")
    return "{}"


def json_float_text(v: float) -> str:
    from orchestrator.golang.floats import format_float

    return format_float(v)


def _to_json(v: Any) -> str:
    try:
        return marshal(v)
    except GoError:
        return ""


def _must_to_json(v: Any) -> str:
    return marshal(v)


def _to_pretty(v: Any) -> str:
    try:
        return marshal(v, indent="  ")
    except GoError:
        return ""


def _to_raw(v: Any) -> str:
    return marshal(v, escape_html=False)


def _no_constants(name: str) -> Any:
    raise ValueError(f"invalid character '{name[0]}' looking for beginning of value")


def _number(text: str) -> float:
    value = float(text)
    if value in (float("inf"), float("-inf")):
        raise GoError(f"json: cannot unmarshal number {text} into Go value of type float64")
    return value


def _decode(v: str) -> Any:
    if not v.strip():
        raise GoError("unexpected end of JSON input")
    try:
        return json.loads(v, parse_constant=_no_constants, parse_int=_number, parse_float=_number)
    except json.JSONDecodeError as exc:
        if exc.pos >= len(v.rstrip()):
            raise GoError("unexpected end of JSON input") from None
        ch = v[exc.pos]
        if exc.msg.startswith("Extra data"):
            raise GoError(f"invalid character '{ch}' after top-level value") from None
        raise GoError(f"invalid character '{ch}' looking for beginning of value") from None
    except GoError:
        raise
    except ValueError as exc:
        raise GoError(str(exc)) from None


def _from_json(v: str) -> Any:
    try:
        return _decode(v)
    except GoError:
        return None


def _hash(algo: str) -> GoFunc:
    return GoFunc(lambda s: hashlib.new(algo, s.encode()).hexdigest(), (S,), returns=S)


FUNCS: dict[str, GoFunc] = {
    "b64enc": GoFunc(lambda s: base64.b64encode(s.encode()).decode(), (S,), returns=S),
    "b64dec": GoFunc(_b64dec, (S,), returns=S),
    "b32enc": GoFunc(lambda s: base64.b32encode(s.encode()).decode(), (S,), returns=S),
    "b32dec": GoFunc(_b32dec, (S,), returns=S),
    "toJson": GoFunc(_to_json, (ANY,), returns=S),
    "mustToJson": GoFunc(_must_to_json, (ANY,), returns=S),
    "toPrettyJson": GoFunc(_to_pretty, (ANY,), returns=S),
    "mustToPrettyJson": GoFunc(lambda v: marshal(v, indent="  "), (ANY,), returns=S),
    "toRawJson": GoFunc(_to_raw, (ANY,), returns=S),
    "mustToRawJson": GoFunc(_to_raw, (ANY,), returns=S),
    "fromJson": GoFunc(_from_json, (S,), returns=ANY),
    "mustFromJson": GoFunc(_decode, (S,), returns=ANY),
    "sha1sum": _hash("sha1"),
    "sha256sum": _hash("sha256"),
    "sha512sum": _hash("sha512"),
    "adler32sum": GoFunc(lambda s: str(zlib.adler32(s.encode())), (S,), returns=S),
}
