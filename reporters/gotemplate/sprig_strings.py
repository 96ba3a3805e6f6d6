"""sprig's string functions (strings.go, goutils, xstrings), after sprig v3.3.0.

Go strings are bytes: ``trunc``, ``substr`` and ``abbrev`` count bytes, which matters only
for text outside ASCII; the byte rules are kept.
"""

from __future__ import annotations

from typing import Any

from orchestrator.golang.strconv import quote as go_quote
from reporters.gotemplate.gofmt import sprintf
from reporters.gotemplate.sprig_case import (
    go_space,
    initials,
    nospace,
    pascal,
    swapcase,
    uncapitalize,
    xstrings_case,
)
from reporters.gotemplate.sprig_convert import ANY, gofunc, strval
from reporters.gotemplate.values import GoError, GoFunc, StrList, StrMap

S = "string"
INT = "int"


def _b(s: str) -> bytes:
    return s.encode()


def _s(b: bytes) -> str:
    return b.decode("utf-8", "replace")


def trim_space(s: str) -> str:
    start, end = 0, len(s)
    while start < end and go_space(s[start]):
        start += 1
    while end > start and go_space(s[end - 1]):
        end -= 1
    return s[start:end]


def go_title(s: str) -> str:
    """strings.Title: upper-case the first letter of each word (words split at non-letters)."""
    out = []
    prev = " "
    for ch in s:
        separator = not (ch.isalnum() or ch == "_" or ch.isalpha())
        prev_sep = _is_separator(prev)
        out.append(ch.upper() if prev_sep and not separator else ch)
        prev = ch
    return "".join(out)


def _is_separator(ch: str) -> bool:
    if ord(ch) <= 0x7F:
        return not (ch.isalnum() or ch == "_")
    if ch.isalpha() or ch.isdigit():
        return False
    return go_space(ch)


def abbreviate_full(s: str, offset: int, width: int) -> str:
    data = _b(s)
    if not data:
        return ""
    if width < 4:
        return ""
    if len(data) <= width:
        return s
    offset = min(offset, len(data))
    if len(data) - offset < width - 3:
        offset = len(data) - (width - 3)
    if offset <= 4:
        return _s(data[: width - 3]) + "..."
    if width < 7:
        return ""
    if offset + width - 3 < len(data):
        return "..." + abbreviate_full(_s(data[offset:]), 0, width - 3)
    return "..." + _s(data[len(data) - (width - 3) :])


def wrap_custom(s: str, length: int, newline: str, long_words: bool) -> str:
    data = _b(s)
    if not data:
        return ""
    nl = _b(newline or "\n")
    length = max(length, 1)
    out = bytearray()
    offset = 0
    n = len(data)
    while n - offset > length:
        if data[offset] == ord(" "):
            offset += 1
            continue
        end = length + offset + 1
        space = data[offset:end].rfind(b" ") + offset
        if space >= offset:
            out += data[offset:space] + nl
            offset = space + 1
        elif long_words:
            end = length + offset
            out += data[offset:end] + nl
            offset += length
        else:
            end = length + offset
            idx = data[end:].find(b" ")
            if idx == -1:
                out += data[offset:]
                offset = n
            else:
                space = idx + end
                out += data[offset:space] + nl
                offset = space + 1
    out += data[offset:]
    return _s(bytes(out))


@gofunc((ANY,), S, variadic=True)
def quote(*args: Any) -> str:
    return " ".join(go_quote(strval(a)) for a in args if a is not None)


@gofunc((ANY,), S, variadic=True)
def squote(*args: Any) -> str:
    return " ".join(sprintf("'%v'", a) for a in args if a is not None)


@gofunc((ANY,), S, variadic=True)
def cat(*args: Any) -> str:
    kept = [a for a in args if a is not None]
    return sprintf(" ".join(["%v"] * len(kept)), *kept)


def _trunc(c: int, s: str) -> str:
    data = _b(s)
    if c < 0 and len(data) + c > 0:
        return _s(data[len(data) + c :])
    if c >= 0 and len(data) > c:
        return _s(data[:c])
    return s


def _substr(start: int, end: int, s: str) -> str:
    data = _b(s)
    if start < 0:
        if end > len(data) or end < 0:
            raise IndexError(
                f"runtime error: slice bounds out of range [:{int(end)}] with length {len(data)}"
            )
        return _s(data[:end])
    if end < 0 or end > len(data):
        if start > len(data):
            raise IndexError(f"runtime error: slice bounds out of range [{int(start)}:{len(data)}]")
        return _s(data[start:])
    if start > end:
        raise IndexError(f"runtime error: slice bounds out of range [{int(start)}:{int(end)}]")
    return _s(data[start:end])


def _indent(n: int, s: str) -> str:
    if n < 0:
        raise ValueError("strings: negative Repeat count")
    pad = " " * n
    return pad + s.replace("\n", "\n" + pad)


def _split(sep: str, orig: str) -> StrMap:
    parts = _go_split(orig, sep, -1)
    return StrMap({f"_{i}": p for i, p in enumerate(parts)})


def _go_split(s: str, sep: str, n: int) -> list[str]:
    """strings.SplitN (n < 0: all); an empty sep splits into characters."""
    if n == 0:
        return []
    if sep == "":
        chars = list(s)
        if n > 0 and len(chars) > n:
            return [*chars[: n - 1], "".join(chars[n - 1 :])]
        return chars
    if n < 0:
        return s.split(sep)
    return s.split(sep, n - 1)


def _splitn(sep: str, n: int, orig: str) -> StrMap:
    return StrMap({f"_{i}": p for i, p in enumerate(_go_split(orig, sep, n))})


MAX_BUILT = 10_000_000
"""Characters one function may build; Go has no such cap, a reporter needs one."""


def _repeat(count: int, s: str) -> str:
    if count < 0:
        raise ValueError("strings: negative Repeat count")
    if count * len(s) > MAX_BUILT:
        raise GoError(f"repeat would build {count * len(s)} characters (at most {MAX_BUILT})")
    return s * count


def _plural(one: str, many: str, count: int) -> str:
    return one if count == 1 else many


def _go_trim(s: str, cutset: str) -> str:
    return s.strip(cutset) if cutset else s


FUNCS: dict[str, GoFunc] = {
    "abbrev": GoFunc(lambda w, s: s if w < 4 else abbreviate_full(s, 0, w), (INT, S), returns=S),
    "abbrevboth": GoFunc(
        lambda left, right, s: (
            s if right < 4 or (left > 0 and right < 7) else abbreviate_full(s, left, right)
        ),
        (INT, INT, S),
        returns=S,
    ),
    "trunc": GoFunc(_trunc, (INT, S), returns=S),
    "trim": GoFunc(trim_space, (S,), returns=S),
    "upper": GoFunc(str.upper, (S,), returns=S),
    "lower": GoFunc(str.lower, (S,), returns=S),
    "title": GoFunc(go_title, (S,), returns=S),
    "untitle": GoFunc(uncapitalize, (S,), returns=S),
    "substr": GoFunc(_substr, (INT, INT, S), returns=S),
    "repeat": GoFunc(_repeat, (INT, S), returns=S),
    "trimall": GoFunc(lambda a, b: _go_trim(b, a), (S, S), returns=S),
    "trimAll": GoFunc(lambda a, b: _go_trim(b, a), (S, S), returns=S),
    "trimSuffix": GoFunc(
        lambda a, b: b[: -len(a)] if a and b.endswith(a) else b, (S, S), returns=S
    ),
    "trimPrefix": GoFunc(lambda a, b: b[len(a) :] if b.startswith(a) else b, (S, S), returns=S),
    "nospace": GoFunc(nospace, (S,), returns=S),
    "initials": GoFunc(initials, (S,), returns=S),
    "swapcase": GoFunc(swapcase, (S,), returns=S),
    "snakecase": GoFunc(lambda s: xstrings_case(s, "_"), (S,), returns=S),
    "kebabcase": GoFunc(lambda s: xstrings_case(s, "-"), (S,), returns=S),
    "camelcase": GoFunc(pascal, (S,), returns=S),
    "wrap": GoFunc(lambda n, s: wrap_custom(s, n, "", False), (INT, S), returns=S),
    "wrapWith": GoFunc(lambda n, sep, s: wrap_custom(s, n, sep, True), (INT, S, S), returns=S),
    "contains": GoFunc(lambda sub, s: sub in s, (S, S), returns="bool"),
    "hasPrefix": GoFunc(lambda p, s: s.startswith(p), (S, S), returns="bool"),
    "hasSuffix": GoFunc(lambda p, s: s.endswith(p), (S, S), returns="bool"),
    "quote": quote,
    "squote": squote,
    "cat": cat,
    "indent": GoFunc(_indent, (INT, S), returns=S),
    "nindent": GoFunc(lambda n, s: "\n" + _indent(n, s), (INT, S), returns=S),
    "replace": GoFunc(
        lambda old, new, src: src.replace(old, new) if old else _replace_empty(src, new),
        (S, S, S),
        returns=S,
    ),
    "plural": GoFunc(_plural, (S, S, INT), returns=S),
    "toString": GoFunc(strval, (ANY,), returns=S),
    "split": GoFunc(_split, (S, S), returns="map[string]string"),
    "splitList": GoFunc(lambda sep, s: StrList(_go_split(s, sep, -1)), (S, S), returns="[]string"),
    "splitn": GoFunc(_splitn, (S, INT, S), returns="map[string]string"),
}


def _replace_empty(src: str, new: str) -> str:
    """strings.Replace with an empty old string: insert ``new`` around every character."""
    return new + new.join(src) + new if src else new
