"""sprig's string functions (strings.go, goutils, xstrings), after sprig v3.3.0.

Go strings are bytes: ``trunc``, ``substr`` and ``abbrev`` count bytes, which matters only
for text outside ASCII; the byte rules are kept.
"""

from __future__ import annotations

import re
from typing import Any

from reporters.gotemplate.goprintf import sprintf
from reporters.gotemplate.gostrings import quote as go_quote
from reporters.gotemplate.sprig_convert import ANY, gofunc, strval
from reporters.gotemplate.values import GoError, GoFunc, StrList, StrMap

S = "string"
INT = "int"


def _b(s: str) -> bytes:
    return s.encode()


def _s(b: bytes) -> str:
    return b.decode("utf-8", "replace")


def _go_space(ch: str) -> bool:
    return ch in "\t\n\v\f\r \x85\xa0" or (ch.isspace() and ord(ch) > 0xFF)


def trim_space(s: str) -> str:
    start, end = 0, len(s)
    while start < end and _go_space(s[start]):
        start += 1
    while end > start and _go_space(s[end - 1]):
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
    return _go_space(ch)


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


def _initials(s: str) -> str:
    out = []
    gap = True
    for b in _b(s):
        ch = chr(b)
        if (_go_space(ch) and b < 0x80) or b in (0x85, 0xA0):
            gap = True
        elif gap:
            out.append(ch)
            gap = False
    return "".join(out)


def _uncapitalize(s: str) -> str:
    out = []
    nxt = True
    for ch in s:
        if _go_space(ch):
            nxt = True
        elif nxt:
            out.append(ch.lower())
            nxt = False
            continue
        out.append(ch)
    return "".join(out)


def _swapcase(s: str) -> str:
    out = []
    ws = True
    for ch in s:
        if ch.isupper() or ch.istitle():
            out.append(ch.lower())
            ws = False
        elif ch.islower():
            out.append(ch.title() if ws else ch.upper())
            ws = False
        else:
            ws = _go_space(ch)
            out.append(ch)
    return "".join(out)


def _nospace(s: str) -> str:
    data = _b(s)
    kept = bytes(b for b in data if not _go_space(chr(b)))
    return s if len(kept) == len(data) else kept.decode("latin-1")


def _connector(ch: str) -> bool:
    return ch in "-_" or _go_space(ch)


def _upper(ch: str) -> bool:
    return ch.isupper()


def _alpha(ch: str) -> bool:
    return ch.isalpha()


def _number(ch: str) -> bool:
    return ch.isnumeric()


def _punct(ch: str) -> bool:
    import unicodedata

    return unicodedata.category(ch).startswith("P")


def _next_word(s: str) -> tuple[str, str, str]:
    """xstrings' nextWord: the kind of the next word, the word, and what remains."""
    if not s:
        return "invalid", "", ""
    r = s[0]
    i = 1
    n = len(s)
    if _connector(r):
        kind = "connector"
        while i < n and _connector(s[i]):
            i += 1
    elif _punct(r):
        kind = "punct"
        while i < n and _punct(s[i]):
            i += 1
    elif _upper(r):
        kind = "upper"
        if i < n:
            if _upper(s[i]):
                i += 1
                while i < n and _upper(s[i]):
                    i += 1
                if i < n and _alpha(s[i]):
                    i -= 1
            elif _alpha(s[i]):
                i += 1
                while i < n and _alpha(s[i]) and not _upper(s[i]):
                    i += 1
    elif _alpha(r):
        kind = "alphabet"
        while i < n and _alpha(s[i]) and not _upper(s[i]):
            i += 1
    elif _number(r):
        kind = "number"
        while i < n and _number(s[i]):
            i += 1
    else:
        kind = "other"
        while i < n and not (_connector(s[i]) or _alpha(s[i]) or _number(s[i]) or _punct(s[i])):
            i += 1
    return kind, s[:i], s[i:]


def _lower_word(out: list[str], kind: str, word: str, sep: str) -> None:
    if kind not in ("upper", "connector"):
        out.append(word)
        return
    for ch in word:
        out.append(sep if _connector(ch) else ch.lower() if ch.isupper() else ch)


def _xstrings_case(s: str, sep: str) -> str:
    """xstrings v1.5.0 camelCaseToLowerCase (ToSnakeCase, ToKebabCase)."""
    if not s:
        return ""
    out: list[str] = []
    wt, word, rest = _next_word(s)
    while rest:
        if wt != "connector":
            _lower_word(out, wt, word, sep)
        prev, last = wt, word
        wt, word, rest = _next_word(rest)
        if prev == "number":
            while wt in ("alphabet", "number"):
                _lower_word(out, wt, word, sep)
                wt, word, rest = _next_word(rest)
            if wt not in ("invalid", "punct", "connector"):
                out.append(sep)
        elif prev == "connector":
            _lower_word(out, prev, last, sep)
        elif prev == "punct":
            pass
        else:
            if wt != "number":
                if wt not in ("connector", "punct"):
                    out.append(sep)
                continue
            if not rest:
                continue
            last = word
            wt, word, rest = _next_word(rest)
            if wt != "alphabet":
                _lower_word(out, "number", last, sep)
                if wt not in ("connector", "punct"):
                    out.append(sep)
                continue
            out.append(sep)
            _lower_word(out, "number", last, sep)
            while wt in ("alphabet", "number"):
                _lower_word(out, wt, word, sep)
                wt, word, rest = _next_word(rest)
            if wt not in ("invalid", "connector", "punct"):
                out.append(sep)
    _lower_word(out, wt, word, sep)
    return "".join(out)


def _pascal(s: str) -> str:
    """xstrings v1.5.0 toCamelCase(s, isBig=true), which sprig's camelcase calls."""
    if not s:
        return ""
    out: list[str] = []
    i = 0
    r0 = ""
    first_upper = False
    while i < len(s):
        r0 = s[i]
        i += 1
        if not _connector(r0):
            first_upper = r0.isupper()
            r0 = r0.upper()
            break
        out.append(r0)
    else:
        return "".join(out)
    if i >= len(s):
        out.append(r0)
        return "".join(out)
    while i < len(s):
        r1 = r0
        r0 = s[i]
        i += 1
        if _connector(r0) and _connector(r1):
            out.append(r1)
            continue
        if _connector(r1):
            first_upper = r0.isupper()
            r0 = r0.upper()
        else:
            if first_upper:
                if r0.isupper():
                    r0 = r0.lower()
                else:
                    first_upper = False
            out.append(r1)
    out.append(r0)
    return "".join(out)


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
    "untitle": GoFunc(_uncapitalize, (S,), returns=S),
    "substr": GoFunc(_substr, (INT, INT, S), returns=S),
    "repeat": GoFunc(_repeat, (INT, S), returns=S),
    "trimall": GoFunc(lambda a, b: _go_trim(b, a), (S, S), returns=S),
    "trimAll": GoFunc(lambda a, b: _go_trim(b, a), (S, S), returns=S),
    "trimSuffix": GoFunc(
        lambda a, b: b[: -len(a)] if a and b.endswith(a) else b, (S, S), returns=S
    ),
    "trimPrefix": GoFunc(lambda a, b: b[len(a) :] if b.startswith(a) else b, (S, S), returns=S),
    "nospace": GoFunc(_nospace, (S,), returns=S),
    "initials": GoFunc(_initials, (S,), returns=S),
    "swapcase": GoFunc(_swapcase, (S,), returns=S),
    "snakecase": GoFunc(lambda s: _xstrings_case(s, "_"), (S,), returns=S),
    "kebabcase": GoFunc(lambda s: _xstrings_case(s, "-"), (S,), returns=S),
    "camelcase": GoFunc(_pascal, (S,), returns=S),
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


_ = re
