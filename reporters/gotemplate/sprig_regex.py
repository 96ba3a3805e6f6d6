"""sprig's regular expressions (regex.go, v3.3.0) with Go's RE2 rules on top of ``re``.

Go's regexp is RE2: no look-around or back-references, ``$`` only at the very end unless
``(?m)``, ``$1``/``${name}`` in replacements, and its own rule for empty matches next to a
previous match. Patterns are translated into Python's syntax (refusing what RE2 refuses;
RE2's escapes as :mod:`orchestrator.golang.regexp` writes them) and the match loops of
``FindAll``, ``ReplaceAll`` and ``Split`` are mirrored by hand. Unlike expr's and the
engine's match-only translation, templates need the whole of Go's regexp API and its error
messages, so this translation accepts more (POSIX classes, ``(?m)``) at the cost of a
guarantee.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from functools import lru_cache

from orchestrator.golang.regexp import CLASS_ESCAPES, ESCAPES
from reporters.gotemplate.values import GoError, GoFunc, GoPanic, StrList

S = "string"

_POSIX = {
    "alnum": "0-9A-Za-z",
    "alpha": "A-Za-z",
    "ascii": "\\x00-\\x7F",
    "blank": "\\t ",
    "cntrl": "\\x00-\\x1F\\x7F",
    "digit": "0-9",
    "graph": "!-~",
    "lower": "a-z",
    "print": " -~",
    "punct": "!-/:-@[-`{-~",
    "space": "\\t\\n\\v\\f\\r ",
    "upper": "A-Z",
    "word": "0-9A-Za-z_",
    "xdigit": "0-9A-Fa-f",
}


class RegexError(GoError):
    pass


def _translate(expr: str) -> str:
    out: list[str] = []
    i = 0
    n = len(expr)
    multiline = False
    in_class = False
    while i < n:
        c = expr[i]
        if c == "\\":
            if i + 1 >= n:
                raise RegexError(
                    "error parsing regexp: trailing backslash at end of expression: ``"
                )
            d = expr[i + 1]
            if d.isdigit() and d != "0":
                raise RegexError(f"error parsing regexp: invalid escape sequence: `\\{d}`")
            if d in "pP":
                raise RegexError("unicode classes are not supported here")
            else:  # RE2's escapes where Python reads them otherwise (\s has no \v, \z)
                out.append((CLASS_ESCAPES if in_class else ESCAPES).get(d, c + d))
            i += 2
            continue
        if in_class:
            if expr.startswith("[:", i):
                end = expr.find(":]", i + 2)
                name = expr[i + 2 : end] if end > 0 else ""
                negate = name.startswith("^")
                body = _POSIX.get(name.lstrip("^"))
                if body is not None and not negate:
                    out.append(body)
                    i = end + 2
                    continue
            if c == "]":
                in_class = False
            elif c == "[":
                out.append("\\[")
                i += 1
                continue
            out.append(c)
            i += 1
            continue
        if c == "[":
            in_class = True
            out.append(c)
            i += 1
            if i < n and expr[i] == "^":
                out.append("^")
                i += 1
            if i < n and expr[i] == "]":
                out.append("\\]")
                i += 1
            continue
        if c == "(" and expr.startswith("(?", i):
            if expr.startswith("(?P<", i) or expr.startswith("(?:", i):
                out.append(expr[i : i + 3] if expr.startswith("(?:", i) else "(?P<")
                i += 3 if expr.startswith("(?:", i) else 4
                continue
            if expr.startswith("(?<", i) and not expr.startswith(("(?<=", "(?<!"), i):
                out.append("(?P<")
                i += 3
                continue
            m = re.match(r"\(\?([imsU]*)(-[imsU]*)?([:)])", expr[i:])
            if not m:
                snippet = expr[i : i + 3]
                raise RegexError(
                    f"error parsing regexp: invalid or unsupported Perl syntax: `{snippet}`"
                )
            flags = m.group(1)
            if "U" in flags or (m.group(2) and "U" in m.group(2)):
                raise RegexError("the U flag is not supported here")
            if "m" in flags:
                multiline = True
            out.append(m.group(0))
            i += len(m.group(0))
            continue
        if c == "$" and not multiline:
            out.append("\\Z")
            i += 1
            continue
        out.append(c)
        i += 1
    return "".join(out)


_MESSAGES = [
    ("missing ), unterminated subpattern", "missing closing )"),
    ("unbalanced parenthesis", "unexpected )"),
    ("unterminated character set", "missing closing ]"),
    ("nothing to repeat", "missing argument to repetition operator"),
    ("multiple repeat", "invalid nested repetition operator"),
]


_NESTED_REPEAT = re.compile(r"\((?:[^()\\]|\\.)*[+*}](?:[^()\\]|\\.)*\)[+*{]")


@lru_cache(maxsize=256)
def compile_go(expr: str) -> re.Pattern[str]:
    """Compile a Go regexp; RegexError carries Go's "error parsing regexp" wording.

    Go's RE2 runs in linear time; Python's ``re`` backtracks, so a repeated group that
    itself repeats (``(a+)+``) could hold a reporter for ever: such patterns are refused.
    """
    translated = _translate(expr)
    if _NESTED_REPEAT.search(translated):
        raise RegexError(
            f"error parsing regexp: nested repetition is refused here (it can take "
            f"exponential time): `{expr}`"
        )
    try:
        return re.compile(translated, re.ASCII)
    except re.error as exc:
        for py, go in _MESSAGES:
            if exc.msg.startswith(py):
                if go == "missing closing ]":
                    start = expr.find("[")
                    detail = expr[start:] if start >= 0 else expr
                elif go.startswith("missing argument") or go.startswith("invalid nested"):
                    pos = exc.pos or 0
                    detail = (
                        translated[pos - 1 : pos + 1]
                        if go.startswith("invalid")
                        else (translated[pos : pos + 1])
                    )
                else:
                    detail = expr
                raise RegexError(f"error parsing regexp: {go}: `{detail}`") from None
        raise RegexError(f"error parsing regexp: {exc.msg}: `{expr}`") from None


def _must(expr: str) -> re.Pattern[str]:
    try:
        return compile_go(expr)
    except RegexError as exc:
        raise GoPanic(f"regexp: Compile({_backquote(expr)}): {exc}") from None


def _backquote(expr: str) -> str:
    from orchestrator.golang.strconv import quote

    return "`" + expr + "`" if "`" not in expr else quote(expr)


def all_matches(rx: re.Pattern[str], s: str, n: int) -> Iterator[re.Match[str]]:
    """Go's allMatches: an empty match right after a previous match does not count."""
    pos = 0
    count = 0
    prev_end = -1
    end = len(s)
    while (n < 0 or count < n) and pos <= end:
        m = rx.search(s, pos)
        if m is None:
            break
        accept = True
        if m.end() == pos:
            if m.start() == prev_end:
                accept = False
            pos += 1
        else:
            pos = m.end()
        prev_end = m.end()
        if accept:
            count += 1
            yield m


def _expand(m: re.Match[str], template: str) -> str:
    out: list[str] = []
    i = 0
    while i < len(template):
        c = template[i]
        if c != "$" or i + 1 >= len(template):
            out.append(c)
            i += 1
            continue
        nxt = template[i + 1]
        if nxt == "$":
            out.append("$")
            i += 2
            continue
        if nxt == "{":
            close = template.find("}", i + 2)
            name = template[i + 2 : close] if close > 0 else ""
            if close < 0 or not re.fullmatch(r"[A-Za-z0-9_]+", name):
                out.append(c)
                i += 1
                continue
            i = close + 1
        else:
            mm = re.match(r"[A-Za-z0-9_]+", template[i + 1 :])
            if mm is None:
                out.append(c)
                i += 1
                continue
            name = mm.group(0)
            i += 1 + len(name)
        out.append(_group(m, name))
    return "".join(out)


def _group(m: re.Match[str], name: str) -> str:
    try:
        if name.isdigit():
            idx = int(name)
            value = m.group(idx) if idx <= (m.re.groups) else None
        else:
            value = m.group(name)
    except IndexError:
        return ""
    return value or ""


def replace_all(rx: re.Pattern[str], s: str, repl: Callable[[re.Match[str]], str]) -> str:
    out: list[str] = []
    last = 0
    pos = 0
    end = len(s)
    while pos <= end:
        m = rx.search(s, pos)
        if m is None:
            break
        out.append(s[last : m.start()])
        if m.end() > last or m.start() == 0:
            out.append(repl(m))
        last = m.end()
        if pos + 1 > m.end():
            pos += 1
        else:
            pos = m.end()
    out.append(s[last:])
    return "".join(out)


def split(rx: re.Pattern[str], s: str, n: int) -> StrList:
    if n == 0:
        return StrList()
    if rx.pattern and not s:
        return StrList([""])
    parts = StrList()
    beg = 0
    end = 0
    for m in all_matches(rx, s, n):
        if n > 0 and len(parts) == n - 1:
            break
        end = m.start()
        if m.end() != 0:
            parts.append(s[beg:end])
        beg = m.end()
    if end != len(s):
        parts.append(s[beg:])
    return parts


def _match(expr: str, s: str) -> bool:
    return compile_go(expr).search(s) is not None


def _quote_meta(s: str) -> str:
    return "".join("\\" + c if c in "\\.+*?()|[]{}^$" else c for c in s)


def _soft_match(expr: str, s: str) -> bool:
    try:
        return _match(expr, s)
    except RegexError:
        return False


def _pair(
    name: str,
    fn: Callable[..., object],
    params: tuple[str, ...],
    returns: str,
    must_fn: Callable[..., object],
) -> dict[str, GoFunc]:
    must = "must" + name[0].upper() + name[1:]
    return {
        name: GoFunc(fn, params, returns=returns, name=name),
        must: GoFunc(must_fn, params, returns=returns, name=must),
    }


FUNCS: dict[str, GoFunc] = {
    **_pair("regexMatch", _soft_match, (S, S), "bool", _match),
    **_pair(
        "regexFindAll",
        lambda e, s, n: StrList(m.group(0) for m in all_matches(_must(e), s, n)),
        (S, S, "int"),
        "[]string",
        lambda e, s, n: StrList(m.group(0) for m in all_matches(compile_go(e), s, n)),
    ),
    **_pair(
        "regexFind",
        lambda e, s: m.group(0) if (m := _must(e).search(s)) else "",
        (S, S),
        S,
        lambda e, s: m.group(0) if (m := compile_go(e).search(s)) else "",
    ),
    **_pair(
        "regexReplaceAll",
        lambda e, s, r: replace_all(_must(e), s, lambda m: _expand(m, r)),
        (S, S, S),
        S,
        lambda e, s, r: replace_all(compile_go(e), s, lambda m: _expand(m, r)),
    ),
    **_pair(
        "regexReplaceAllLiteral",
        lambda e, s, r: replace_all(_must(e), s, lambda m: r),
        (S, S, S),
        S,
        lambda e, s, r: replace_all(compile_go(e), s, lambda m: r),
    ),
    **_pair(
        "regexSplit",
        lambda e, s, n: split(_must(e), s, n),
        (S, S, "int"),
        "[]string",
        lambda e, s, n: split(compile_go(e), s, n),
    ),
    "regexQuoteMeta": GoFunc(_quote_meta, (S,), returns=S),
}
