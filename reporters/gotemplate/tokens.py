"""The vocabulary of Go's template lexer: token kinds, tokens, and character classes.

Shared by the lexer, the parser (which names tokens in its messages) and the error
positions (Go reports byte columns, not character columns).
"""

from __future__ import annotations

import enum
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from orchestrator.golang.strconv import quote as quote_go

SPACE_CHARS = " \t\r\n"
StateFn = Callable[[], Any]
LEFT_DELIM = "{{"
RIGHT_DELIM = "}}"
LEFT_COMMENT = "/*"
RIGHT_COMMENT = "*/"


class Kind(enum.IntEnum):
    """Token kinds, in Go's order: every kind after KEYWORD is a keyword."""

    ERROR = enum.auto()
    BOOL = enum.auto()
    CHAR = enum.auto()
    CHAR_CONSTANT = enum.auto()
    COMMENT = enum.auto()
    COMPLEX = enum.auto()
    ASSIGN = enum.auto()
    DECLARE = enum.auto()
    EOF = enum.auto()
    FIELD = enum.auto()
    IDENTIFIER = enum.auto()
    LEFT_DELIM = enum.auto()
    LEFT_PAREN = enum.auto()
    NUMBER = enum.auto()
    PIPE = enum.auto()
    RAW_STRING = enum.auto()
    RIGHT_DELIM = enum.auto()
    RIGHT_PAREN = enum.auto()
    SPACE = enum.auto()
    STRING = enum.auto()
    TEXT = enum.auto()
    VARIABLE = enum.auto()
    KEYWORD = enum.auto()
    BLOCK = enum.auto()
    BREAK = enum.auto()
    CONTINUE = enum.auto()
    DOT = enum.auto()
    DEFINE = enum.auto()
    ELSE = enum.auto()
    END = enum.auto()
    IF = enum.auto()
    NIL = enum.auto()
    RANGE = enum.auto()
    TEMPLATE = enum.auto()
    WITH = enum.auto()


KEYWORDS = {
    ".": Kind.DOT,
    "block": Kind.BLOCK,
    "break": Kind.BREAK,
    "continue": Kind.CONTINUE,
    "define": Kind.DEFINE,
    "else": Kind.ELSE,
    "end": Kind.END,
    "if": Kind.IF,
    "range": Kind.RANGE,
    "nil": Kind.NIL,
    "template": Kind.TEMPLATE,
    "with": Kind.WITH,
}


@dataclass(frozen=True)
class Item:
    """One token: its kind, where it starts, its text (or error message) and its line."""

    kind: Kind
    pos: int
    val: str
    line: int

    def __str__(self) -> str:
        """The token as Go's parser names it in "unexpected ..." messages."""
        if self.kind is Kind.EOF:
            return "EOF"
        if self.kind is Kind.ERROR:
            return self.val
        if self.kind > Kind.KEYWORD:
            return f"<{self.val}>"
        if len(self.val.encode()) > 10:
            return quote_go(self.val[:10]) + "..."
        return quote_go(self.val)


def is_space(ch: str) -> bool:
    return ch in SPACE_CHARS and ch != ""


def is_alphanumeric(ch: str) -> bool:
    """Go's unicode.IsLetter or IsDigit, or an underscore."""
    if ch == "" or ch is None:
        return False
    if ch == "_":
        return True
    cat = unicodedata.category(ch)
    return cat.startswith("L") or cat == "Nd"


def has_left_trim(s: str, i: int) -> bool:
    return len(s) - i >= 2 and s[i] == "-" and is_space(s[i + 1])


def has_right_trim(s: str, i: int) -> bool:
    return len(s) - i >= 2 and is_space(s[i]) and s[i + 1] == "-"


def byte_column(text: str, pos: int) -> tuple[int, int]:
    """Go's line and byte column of a node at ``pos`` (ErrorContext's numbering)."""
    before = text[:pos]
    line = 1 + before.count("\n")
    nl = before.rfind("\n")
    if nl == -1:
        return line, len(before.encode())
    return line, len(before[nl + 1 :].encode())
