"""Go's YAML resolver, mirrored by hand: what a plain scalar is to Helm, Argo CD and kustomize.

Go's YAML decides what a plain scalar is (a string, an int, a float, a bool, null or a
timestamp) in ``resolve.go``, and yaml.v2 and yaml.v3 do not always agree: ``y`` is true
to yaml.v2 and a string to yaml.v3. Go cannot run here, so the resolvers of
go.yaml.in/yaml/v2 v2.4.3 and gopkg.in/yaml.v3 v3.0.1, with the ``strconv`` and
``time.Parse`` rules they lean on, are mirrored by hand, and tests/vectors/goyaml proves the
mirror against what the real libraries return. Which characters make the scalar is the
scanner's question, answered in :mod:`orchestrator.yamlscalars`; this module starts from a
plain scalar's text.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Any, Final


@dataclass(frozen=True)
class GoScalar:
    """A scalar as Go's YAML resolves it.

    ``tag`` is the tag the resolver settles on; ``type`` the dynamic Go type the value has
    when decoded into ``interface{}`` (``string``, ``int``, ``uint64``, ``float64``, ``bool``,
    ``<nil>``, ``time.Time``) and ``value`` that value in Python: numbers as numbers, a
    ``time.Time`` as its RFC 3339 text. yaml.v2 hands a timestamp over as the ``string`` it
    was written as; yaml.v3 as a ``time.Time``.
    """

    tag: str
    type: str
    value: str | int | float | bool | None

    def is_string(self, text: str) -> bool:
        return self.type == "string" and self.value == text


# -- Go's resolver (resolve.go) ------------------------------------------------------------

_V2_WORDS: Final[dict[str, tuple[str, Any]]] = {
    **{w: ("!!bool", True) for w in ("y", "Y", "yes", "Yes", "YES", "on", "On", "ON")},
    **{w: ("!!bool", False) for w in ("n", "N", "no", "No", "NO", "off", "Off", "OFF")},
}
_COMMON_WORDS: Final[dict[str, tuple[str, Any]]] = {
    **{w: ("!!bool", True) for w in ("true", "True", "TRUE")},
    **{w: ("!!bool", False) for w in ("false", "False", "FALSE")},
    **{w: ("!!null", None) for w in ("", "~", "null", "Null", "NULL")},
    **{w: ("!!float", math.nan) for w in (".nan", ".NaN", ".NAN")},
    **{w: ("!!float", math.inf) for w in (".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF")},
    **{w: ("!!float", -math.inf) for w in ("-.inf", "-.Inf", "-.INF")},
}
_V2_ALL_WORDS: Final = {**_V2_WORDS, **_COMMON_WORDS}
_GO_TYPES: Final[dict[type, str]] = {bool: "bool", float: "float64", str: "string"}
_YAML_STYLE_FLOAT: Final = re.compile(r"[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?")
_INT64: Final = 1 << 63
_UINT64_MAX: Final = (1 << 64) - 1


def _hint(text: str) -> str:
    """resolveTable: what the first byte says the scalar may be."""
    if not text:
        return "N"
    first = text[0]
    if first in "+-":
        return "S"
    if first in "0123456789":
        return "D"
    if first in "yYnNtTfFoO~":
        return "M"
    return "." if first == "." else ""


def resolve_plain(text: str, *, v3: bool) -> GoScalar:
    """Go's ``resolve("", text)`` for a plain scalar, and the type ``interface{}`` gets."""
    if text == "<<" and v3:  # yaml.v3's parser tags a plain << itself, a merge key or not
        return GoScalar("!!merge", "string", text)
    hint = _hint(text)
    if hint:
        words = _COMMON_WORDS if v3 else _V2_ALL_WORDS
        if text in words:
            tag, value = words[text]
            return GoScalar(tag, "<nil>" if value is None else _GO_TYPES[type(value)], value)
        if hint == ".":
            number = _parse_float(text)
            if number is not None:
                return GoScalar("!!float", "float64", number)
        elif hint in "DS":
            resolved = _number_or_time(text, v3)
            if resolved is not None:
                return resolved
    return GoScalar("!!str", "string", text)


def _number_or_time(text: str, v3: bool) -> GoScalar | None:
    instant = _timestamp(text)
    if instant is not None:
        # yaml.v2 keeps a timestamp decoded into interface{} as the string it was
        return (
            GoScalar("!!timestamp", "time.Time", instant)
            if v3
            else GoScalar("!!timestamp", "string", text)
        )
    plain = text.replace("_", "")
    found = _integer(plain, 0)
    if found is None and _YAML_STYLE_FLOAT.fullmatch(plain):
        number = _parse_float(plain)
        if number is not None:
            return GoScalar("!!float", "float64", number)
    # then 0b101 and -0b101 (and, in yaml.v3, 0o17 and -0o17) with the digits after the
    # prefix handed to strconv as they are: 0b+1 is 1
    for prefix, base in (("0b", 2), ("0o", 8)) if v3 else (("0b", 2),):
        if found is not None:
            break
        if plain.startswith(prefix):
            found = _integer(plain[2:], base)
        elif plain.startswith("-" + prefix):
            found = _integer("-" + plain[3:], base)
    return found


def _integer(text: str, base: int) -> GoScalar | None:
    """ParseInt, then ParseUint: an ``int``, or a ``uint64`` past int64."""
    signed = _parse_int(text, base)
    if signed is not None:
        return GoScalar("!!int", "int", signed)
    unsigned = _parse_uint(text, base)
    return None if unsigned is None else GoScalar("!!int", "uint64", unsigned)


def _parse_uint(text: str, base: int) -> int | None:
    """``strconv.ParseUint(text, base, 64)`` on text without underscores."""
    if not text:
        return None
    if base == 0:
        base = 10
        if text[0] == "0":
            prefix = text[1:2].lower()
            if len(text) >= 3 and prefix in ("b", "o", "x"):
                base = {"b": 2, "o": 8, "x": 16}[prefix]
                text = text[2:]
            else:
                base = 8
                text = text[1:]
    number = 0
    for ch in text:
        if "0" <= ch <= "9":
            digit = ord(ch) - ord("0")
        elif ch.isascii() and ch.isalpha():
            digit = ord(ch.lower()) - ord("a") + 10
        else:
            return None
        if digit >= base:
            return None
        number = number * base + digit
        if number > _UINT64_MAX:
            return None
    return number


def _parse_int(text: str, base: int) -> int | None:
    """``strconv.ParseInt(text, base, 64)`` on text without underscores."""
    if not text:
        return None
    negative = text[0] == "-"
    magnitude = _parse_uint(text[1:] if text[0] in "+-" else text, base)
    if magnitude is None:
        return None
    if negative:
        return -magnitude if magnitude <= _INT64 else None
    return magnitude if magnitude < _INT64 else None


_GO_DOT_FLOAT: Final = re.compile(r"\.([0-9_]*)([eE][-+]?[0-9][0-9_]*)?")


def _parse_float(text: str) -> float | None:
    """``strconv.ParseFloat(text, 64)`` for the decimal text the resolver hands it (a
    ``yamlStyleFloat`` match, or text starting with ``.``); ``None`` on a syntax error or
    when the value overflows (Go's ErrRange)."""
    if not _YAML_STYLE_FLOAT.fullmatch(text):
        match = _GO_DOT_FLOAT.fullmatch(text)
        if match is None or not any(c in "0123456789" for c in match.group(1)):
            return None
        if "_" in text and not _underscores_ok(text):
            return None
    number = float(text.replace("_", ""))
    return None if math.isinf(number) else number


def _underscores_ok(text: str) -> bool:
    """strconv's underscoreOK: an underscore only ever sits between two digits."""
    saw = "^"
    for ch in text:
        if "0" <= ch <= "9":
            saw = "0"
        elif ch == "_":
            if saw != "0":
                return False
            saw = "_"
        else:
            if saw == "_":
                return False
            saw = "!"
    return saw != "_"


# -- Go's parseTimestamp (time.Parse with four layouts) --------------------------------------

_LAYOUTS: Final = (
    ("date", b"T", "clock", "zone"),
    ("date", b"t", "clock", "zone"),
    ("date", b" ", "clock"),
    ("date",),
)


def _timestamp(text: str) -> str | None:
    """The instant (RFC 3339, as Go formats a ``time.Time``) when ``text`` is a YAML
    timestamp to Go, else ``None``: four digits and ``-``, then one of the layouts
    ``2006-1-2T15:4:5.999999999Z07:00`` (or ``t``), ``2006-1-2 15:4:5.999999999``,
    ``2006-1-2`` under ``time.Parse``'s rules (bytes, not characters)."""
    raw = text.encode()
    if len(raw) < 5 or not raw[:4].isdigit() or raw[4:5] != b"-":
        return None
    for layout in _LAYOUTS:
        parsed = _parse_layout(layout, raw)
        if parsed is not None:
            return parsed
    return None


def _getnum(value: bytes, fixed: bool) -> tuple[int, bytes] | None:
    if not value[:1].isdigit():
        return None
    if not value[1:2].isdigit():
        return None if fixed else (value[0] - 48, value[1:])
    return (value[0] - 48) * 10 + value[1] - 48, value[2:]


def _parse_layout(layout: tuple[Any, ...], value: bytes) -> str | None:
    year = int(value[:4])
    value = value[5:]
    month_rest = _getnum(value, False)
    if month_rest is None or not 1 <= month_rest[0] <= 12 or month_rest[1][:1] != b"-":
        return None
    month, value = month_rest[0], month_rest[1][1:]
    day_rest = _getnum(value, False)
    if day_rest is None:
        return None
    day, value = day_rest
    clock = (0, 0, 0, 0)
    offset: int | None = None
    if len(layout) > 1:
        separator = layout[1]
        if separator == b" ":
            if value[:1] not in (b" ", b""):
                return None
            value = value.lstrip(b" ")
        elif value[:1] != separator:
            return None
        else:
            value = value[1:]
        parsed_clock = _parse_clock(value)
        if parsed_clock is None:
            return None
        clock, value = parsed_clock
        if len(layout) > 3:
            parsed_zone = _parse_zone(value)
            if parsed_zone is None:
                return None
            offset, value = parsed_zone
    if value or not 1 <= day <= _days_in(month, year):
        return None
    return _rfc3339(year, month, day, clock, offset or 0)


def _parse_clock(value: bytes) -> tuple[tuple[int, int, int, int], bytes] | None:
    fields = []
    for i, limit in enumerate((24, 60, 60)):
        if i:
            if value[:1] != b":":
                return None
            value = value[1:]
        got = _getnum(value, False)
        if got is None or got[0] >= limit:
            return None
        fields.append(got[0])
        value = got[1]
    nanos = 0
    if len(value) >= 2 and value[:1] in (b".", b",") and value[1:2].isdigit():
        n = 1
        while n < len(value) and 48 <= value[n] <= 57:
            n += 1
        digits = value[1 : min(n, 10)]
        nanos = int(digits) * 10 ** (9 - len(digits))
        value = value[n:]
    return (fields[0], fields[1], fields[2], nanos), value


def _parse_zone(value: bytes) -> tuple[int, bytes] | None:
    if value[:1] == b"Z":
        return 0, value[1:]
    if len(value) < 6 or value[3:4] != b":":
        return None
    hours, minutes = _getnum(value[1:3], True), _getnum(value[4:6], True)
    if hours is None or minutes is None or hours[0] > 24 or minutes[0] > 60:
        return None
    sign = value[:1]
    if sign not in (b"+", b"-"):
        return None
    seconds = (hours[0] * 60 + minutes[0]) * 60
    return (-seconds if sign == b"-" else seconds), value[6:]


def _days_in(month: int, year: int) -> int:
    if month == 2:
        leap = year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)
        return 29 if leap else 28
    return 30 if month in (4, 6, 9, 11) else 31


def _rfc3339(year: int, month: int, day: int, clock: tuple[int, int, int, int], offset: int) -> str:
    hour, minute, second, nanos = clock
    text = f"{year:04d}-{month:02d}-{day:02d}T{hour:02d}:{minute:02d}:{second:02d}"
    if nanos:
        text += "." + f"{nanos:09d}".rstrip("0")
    if offset == 0:
        return text + "Z"
    minutes = abs(offset) // 60
    return text + ("-" if offset < 0 else "+") + f"{minutes // 60:02d}:{minutes % 60:02d}"
