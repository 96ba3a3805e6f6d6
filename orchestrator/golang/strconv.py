"""Go's ``strconv`` quoting and unquoting, which Go's messages and literals use.

Python's ``repr`` and ``json`` quote differently from ``strconv.Quote`` (which keeps
printable Unicode, writes ``\\x7f`` and ``\\u00a0``); expr's and text/template's error
messages quote with it (``%q``, ``%#v``, ``%#U``) and template string literals follow Go's
escape rules, so both directions are written out here.
"""

from __future__ import annotations

_ESCAPES = {
    "\a": "\\a",
    "\b": "\\b",
    "\f": "\\f",
    "\n": "\\n",
    "\r": "\\r",
    "\t": "\\t",
    "\v": "\\v",
    "\\": "\\\\",
}
_UNESCAPES = {"a": "\a", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t", "v": "\v"}


def is_print(ch: str) -> bool:
    """unicode.IsPrint: letters, marks, numbers, punctuation, symbols and the ASCII space."""
    return ch == " " or (ch.isprintable() and ch not in "\u2028\u2029")


def _escape(ch: str, quote_char: str, ascii_only: bool) -> str:
    if ch == quote_char:
        return "\\" + ch
    if ch in _ESCAPES:
        return _ESCAPES[ch]
    code = ord(ch)
    if is_print(ch) and not (ascii_only and code > 0x7E):
        return ch
    if code < 0x20 or code == 0x7F:
        return f"\\x{code:02x}"
    if 0xD800 <= code <= 0xDFFF:
        return "\\ufffd"
    if code < 0x10000:
        return f"\\u{code:04x}"
    return f"\\U{code:08x}"


def quote(text: str, *, ascii_only: bool = False) -> str:
    """strconv.Quote (or QuoteToASCII)."""
    return '"' + "".join(_escape(ch, '"', ascii_only) for ch in text) + '"'


def quote_rune(ch: str) -> str:
    """fmt's ``%#U``: ``U+0023 '#'`` (the character only when printable)."""
    code = ord(ch) if ch else 0xFFFD
    head = f"U+{code:04X}"
    if ch and is_print(ch):
        return f"{head} '{ch}'"
    return head


def quote_char(code: int, *, ascii_only: bool = False) -> str:
    """strconv.QuoteRune, used by ``%q`` on integers."""
    if code > 0x10FFFF or 0xD800 <= code <= 0xDFFF or code < 0:
        code = 0xFFFD
    return "'" + _escape(chr(code), "'", ascii_only) + "'"


class UnquoteError(ValueError):
    """strconv's ErrSyntax: the literal is not valid Go."""


def _unescape_one(s: str, i: int, quote_char: str) -> tuple[str, int]:
    """Decode the character at ``s[i]`` (maybe an escape); return it and the next index."""
    ch = s[i]
    if ch != "\\":
        if ch == quote_char:
            raise UnquoteError("invalid syntax")
        return ch, i + 1
    if i + 1 >= len(s):
        raise UnquoteError("invalid syntax")
    c = s[i + 1]
    if c in _UNESCAPES:
        return _UNESCAPES[c], i + 2
    if c == "\\":
        return "\\", i + 2
    if c in "'\"":
        if c != quote_char:
            raise UnquoteError("invalid syntax")
        return c, i + 2
    if c in "xuU":
        size = {"x": 2, "u": 4, "U": 8}[c]
        digits = s[i + 2 : i + 2 + size]
        if len(digits) != size or any(d not in "0123456789abcdefABCDEF" for d in digits):
            raise UnquoteError("invalid syntax")
        code = int(digits, 16)
        if c != "x" and (code > 0x10FFFF or 0xD800 <= code <= 0xDFFF):
            raise UnquoteError("invalid syntax")
        return chr(code), i + 2 + size
    if c in "01234567":
        digits = s[i + 1 : i + 4]
        if len(digits) != 3 or any(d not in "01234567" for d in digits):
            raise UnquoteError("invalid syntax")
        code = int(digits, 8)
        if code > 255:
            raise UnquoteError("invalid syntax")
        return chr(code), i + 4
    raise UnquoteError("invalid syntax")


def unquote(literal: str) -> str:
    """strconv.Unquote for a double-quoted or back-quoted literal."""
    if len(literal) < 2 or literal[0] != literal[-1]:
        raise UnquoteError("invalid syntax")
    body = literal[1:-1]
    if literal[0] == "`":
        if "`" in body:
            raise UnquoteError("invalid syntax")
        return body.replace("\r", "")
    if literal[0] != '"' or "\n" in body:
        raise UnquoteError("invalid syntax")
    out: list[str] = []
    i = 0
    while i < len(body):
        ch, i = _unescape_one(body, i, '"')
        out.append(ch)
    return "".join(out)


def unquote_char(literal: str) -> int:
    """The value of a character constant such as ``'a'`` or ``'\\n'``."""
    body = literal[1:-1] if len(literal) >= 2 and literal[-1] == "'" else None
    if not body:
        raise UnquoteError(f"malformed character constant: {literal}")
    try:
        ch, end = _unescape_one(body, 0, "'")
    except UnquoteError:
        raise UnquoteError(f"malformed character constant: {literal}") from None
    if end != len(body):
        raise UnquoteError(f"malformed character constant: {literal}")
    return ord(ch)
