"""Go's ways of quoting text and classifying runes, where expr's messages and lexer use them.

The lexer decides what is a space, a letter or a digit with Go's ``unicode`` package, and
its messages quote with ``strconv.Quote`` (``%q``, ``%#v``) and ``%#U``, which are
:mod:`orchestrator.golang.strconv`'s. Python's
``str.isprintable`` and ``unicodedata`` categories agree with Go's ``unicode.IsPrint``,
``IsLetter`` and ``IsDigit`` rune for rune, save for Unicode version drift on new scripts.
"""

from __future__ import annotations

import unicodedata

from orchestrator.golang.strconv import is_print, quote
from orchestrator.golang.strconv import quote_rune as rune_u

__all__ = [
    "is_alphanumeric",
    "is_digit",
    "is_identifier",
    "is_letter",
    "is_print",
    "is_space",
    "quote",
    "rune_u",
]

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
