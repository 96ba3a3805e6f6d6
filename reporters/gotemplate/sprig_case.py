"""Word and case conversions sprig takes from goutils and xstrings (v1.1.1, v1.5.0).

``snakecase``, ``kebabcase`` and ``camelcase`` follow xstrings' word splitter (``HTTPServer``
is one word, ``  x  `` keeps its connectors as separators), ``swapcase``, ``initials`` and
``untitle`` goutils' rules; both are mirrored by hand after their sources.
"""

from __future__ import annotations

import unicodedata


def go_space(ch: str) -> bool:
    """unicode.IsSpace."""
    return ch in "\t\n\v\f\r \x85\xa0" or (ch.isspace() and ord(ch) > 0xFF)


def _b(s: str) -> bytes:
    return s.encode()


def initials(s: str) -> str:
    out = []
    gap = True
    for b in _b(s):
        ch = chr(b)
        if (go_space(ch) and b < 0x80) or b in (0x85, 0xA0):
            gap = True
        elif gap:
            out.append(ch)
            gap = False
    return "".join(out)


def uncapitalize(s: str) -> str:
    out = []
    nxt = True
    for ch in s:
        if go_space(ch):
            nxt = True
        elif nxt:
            out.append(ch.lower())
            nxt = False
            continue
        out.append(ch)
    return "".join(out)


def swapcase(s: str) -> str:
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
            ws = go_space(ch)
            out.append(ch)
    return "".join(out)


def nospace(s: str) -> str:
    data = _b(s)
    kept = bytes(b for b in data if not go_space(chr(b)))
    return s if len(kept) == len(data) else kept.decode("latin-1")


def _connector(ch: str) -> bool:
    return ch in "-_" or go_space(ch)


def _upper(ch: str) -> bool:
    return ch.isupper()


def _alpha(ch: str) -> bool:
    return ch.isalpha()


def _number(ch: str) -> bool:
    return ch.isnumeric()


def _punct(ch: str) -> bool:
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


def xstrings_case(s: str, sep: str) -> str:
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


def pascal(s: str) -> str:
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
