"""Go's ways of quoting text and classifying runes, where expr's messages and lexer use them.

The lexer decides what is a space, a letter or a digit with Go's ``unicode`` package, and
its messages quote with ``strconv.Quote`` (``%q``, ``%#v``) and ``%#U``. Python's
``str.isprintable`` and ``unicodedata`` categories agree with Go's ``unicode.IsPrint``,
``IsLetter`` and ``IsDigit`` rune for rune, save for Unicode version drift on new scripts.
"""

from __future__ import annotations

import unicodedata

_GO_SPACE = frozenset("\t\n\v\f\r \x85\xa0")


def is_space(char: str) -> bool:
    """``unicode.IsSpace``: the Latin-1 spaces, then category Zs/Zl/Zp."""
    if char in _GO_SPACE:
        return True
    return ord(char) > 0xFF and unicodedata.category(char) in ("Zs", "Zl", "Zp")


def is_letter(char: str) -> bool:
    return unicodedata.category(char).startswith("L")


def is_digit(char: str) -> bool:
    return unicodedata.category(char) == "Nd"


def is_alphanumeric(char: str) -> bool:
    """expr's ``utils.IsAlphaNumeric``: ``_``, ``$``, letters and decimal digits."""
    return char in "_$" or is_letter(char) or is_digit(char)


def is_identifier(text: str) -> bool:
    """expr's ``utils.IsValidIdentifier``."""
    return bool(text) and not is_digit(text[0]) and all(is_alphanumeric(c) for c in text)


def is_print(char: str) -> bool:
    """``strconv.IsPrint``: letters, marks, numbers, punctuation, symbols and ASCII space."""
    return char == " " or char.isprintable()


def quote(text: str) -> str:
    """``strconv.Quote``: printable runes as they are, the rest escaped."""
    out = ['"']
    for char in text:
        code = ord(char)
        if char in '"\\':
            out.append("\\" + char)
        elif is_print(char):
            out.append(char)
        elif char in "\a\b\f\n\r\t\v":
            out.append("\\" + "abfnrtv"["\a\b\f\n\r\t\v".index(char)])
        elif code < 0x20 or code == 0x7F:
            out.append(f"\\x{code:02x}")
        elif 0xD800 <= code <= 0xDFFF:
            out.append("\\ufffd")
        elif code < 0x10000:
            out.append(f"\\u{code:04x}")
        else:
            out.append(f"\\U{code:08x}")
    out.append('"')
    return "".join(out)


def rune_u(char: str) -> str:
    """``%#U``: ``U+0040 '@'``, without the quoted rune when it is not printable."""
    code = f"U+{ord(char):04X}"
    return f"{code} '{char}'" if is_print(char) else code
