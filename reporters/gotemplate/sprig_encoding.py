"""sprig's encodings (v3.3.0): base64, base32, JSON (Go's encoding/json), hashes.

``toJson`` is Go's ``json.Marshal`` (:mod:`orchestrator.golang.jsonenc`).
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
import zlib
from typing import Any

from orchestrator.golang import jsonenc
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


def marshal(v: Any, *, escape_html: bool = True, indent: str | None = None) -> str:
    """encoding/json's Marshal; what it refuses is the function's error."""
    try:
        return jsonenc.marshal(v, escape_html=escape_html, indent=indent)
    except jsonenc.MarshalError as exc:
        raise GoError(str(exc)) from None


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
