"""Go's numeric literals in templates: which Go types ``3``, ``1.5``, ``0x1F`` or ``'a'`` can be.

parse.newNumber decides, from the literal's text, whether it can be an int, a uint, a
float or a complex (``1e3`` is all of int, uint and float; ``1.5`` only a float), with
strconv's syntax (underscores, ``0o``/``0b`` prefixes, hex floats); the executor then picks
the type a function's parameter wants.
"""

from __future__ import annotations

import math
import re

from orchestrator.golang.strconv import UnquoteError, unquote_char
from reporters.gotemplate.nodes import NumberNode
from reporters.gotemplate.tokens import Kind

_UNDERSCORE_OK = re.compile(r"^(0[xXoObB]_?)?[0-9a-fA-F]+(_[0-9a-fA-F]+)*$")


def parse_int(text: str) -> int | None:
    """strconv.ParseInt(text, 0, 64) without the range check (None: not an integer)."""
    body = text
    sign = 1
    if body[:1] in "+-" and body:
        sign = -1 if body[0] == "-" else 1
        body = body[1:]
    if not body:
        return None
    base = 10
    digits = body
    if body[:2] in ("0x", "0X"):
        base, digits = 16, body[2:]
    elif body[:2] in ("0o", "0O"):
        base, digits = 8, body[2:]
    elif body[:2] in ("0b", "0B"):
        base, digits = 2, body[2:]
    elif body[0] == "0" and len(body) > 1:
        base, digits = 8, body[1:]
    if "_" in body:
        if not _UNDERSCORE_OK.match(body):
            return None
        digits = digits.replace("_", "")
    if not digits:
        return None
    try:
        return sign * int(digits, base)
    except ValueError:
        return None


_FLOAT = re.compile(r"^[+-]?(\d[\d_]*\.?[\d_]*([eE][+-]?[\d_]+)?|\.[\d_]+([eE][+-]?[\d_]+)?)$")
_HEX_FLOAT = re.compile(r"^[+-]?0[xX][0-9a-fA-F_]*\.?[0-9a-fA-F_]*[pP][+-]?[\d_]+$")


def parse_float(text: str) -> float | None:
    if _FLOAT.match(text):
        if "_" in text:
            return None
        try:
            value = float(text)
        except ValueError:
            return None
        return value
    if _HEX_FLOAT.match(text):
        try:
            return float.fromhex(text.replace("_", ""))
        except ValueError:
            return None
    return None


def new_number(pos: int, text: str, kind: Kind) -> NumberNode:
    """parse.newNumber: which Go types the literal can be."""
    n = NumberNode(pos, text)
    if kind is Kind.CHAR_CONSTANT:
        try:
            code = unquote_char(text)
        except UnquoteError as exc:
            raise ValueError(str(exc)) from None
        n.is_int = n.is_uint = n.is_float = True
        n.int64 = n.uint64 = code
        n.float64 = float(code)
        return n
    if kind is Kind.COMPLEX:
        raise ValueError(f"complex constants are not supported: {text}")
    if text.endswith("i"):
        imag = parse_float(text[:-1]) if text[:-1] else None
        if imag is None:
            imag_int = parse_int(text[:-1])
            imag = float(imag_int) if imag_int is not None else None
        if imag is None:
            raise ValueError(f"complex constants are not supported: {text}")
        n.is_complex = True
        n.complex128 = complex(0, imag)
        if imag == 0:
            n.is_int = n.is_uint = n.is_float = True
        return n
    u = parse_int(text) if text[:1] not in "+-" else None
    if u is not None and 0 <= u < 2**64:
        n.is_uint, n.uint64 = True, u
    i = parse_int(text)
    if i is not None and -(2**63) <= i < 2**63:
        n.is_int, n.int64 = True, i
        if i == 0:
            n.is_uint, n.uint64 = True, 0
    if n.is_int:
        n.is_float, n.float64 = True, float(n.int64)
    elif n.is_uint:
        n.is_float, n.float64 = True, float(n.uint64)
    else:
        f = parse_float(text)
        if f is not None:
            if not any(c in text for c in ".eEpP"):
                from orchestrator.golang.strconv import quote

                raise ValueError(f"integer overflow: {quote(text)}")
            n.is_float, n.float64 = True, f
            if math.isfinite(f) and f == int(f):
                if -(2**63) <= f < 2**63:
                    n.is_int, n.int64 = True, int(f)
                if 0 <= f < 2**64:
                    n.is_uint, n.uint64 = True, int(f)
    if not (n.is_int or n.is_uint or n.is_float):
        from orchestrator.golang.strconv import quote

        raise ValueError(f"illegal number syntax: {quote(text)}")
    return n
