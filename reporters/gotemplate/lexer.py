"""The tokens of a Go template, cut as Go's text/template/parse lexer cuts them.

Go's lexer is a state machine whose quirks show in what templates mean and in the wording
of errors (``{{- `` needs the space, ``.5`` is a number, ``$x+2`` is a bad character), so
it is mirrored here by hand, state for state. Positions are character offsets into the
text; :func:`byte_column` turns them into the byte columns Go reports.
"""

from __future__ import annotations

import enum
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from reporters.gotemplate.gostrings import quote as quote_go
from reporters.gotemplate.gostrings import quote_rune

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


def _has_left_trim(s: str, i: int) -> bool:
    return len(s) - i >= 2 and s[i] == "-" and is_space(s[i + 1])


def _has_right_trim(s: str, i: int) -> bool:
    return len(s) - i >= 2 and is_space(s[i]) and s[i + 1] == "-"


class Lexer:
    """Produces the items of one template text, one call of :meth:`next_item` at a time."""

    def __init__(self, text: str) -> None:
        self.input = text
        self.pos = 0
        self.start = 0
        self.line = 1
        self.start_line = 1
        self.inside_action = False
        self.paren_depth = 0
        self.item: Item | None = None
        self.break_ok = True
        self.continue_ok = True

    # -- helpers ------------------------------------------------------------------------

    def _next(self) -> str:
        if self.pos >= len(self.input):
            self.pos = len(self.input) + 1  # mark EOF like Go's atEOF
            return ""
        ch = self.input[self.pos]
        self.pos += 1
        if ch == "\n":
            self.line += 1
        return ch

    def _backup(self) -> None:
        if self.pos > len(self.input):
            self.pos = len(self.input)
            return
        if self.pos > 0:
            self.pos -= 1
            if self.input[self.pos] == "\n":
                self.line -= 1

    def _peek(self) -> str:
        return self.input[self.pos] if self.pos < len(self.input) else ""

    def _this_item(self, kind: Kind) -> Item:
        item = Item(kind, self.start, self.input[self.start : self.pos], self.start_line)
        self.start = self.pos
        self.start_line = self.line
        return item

    def _emit(self, kind: Kind) -> None:
        self.item = self._this_item(kind)

    def _ignore(self) -> None:
        self.line += self.input.count("\n", self.start, self.pos)
        self.start = self.pos
        self.start_line = self.line

    def _accept(self, valid: str) -> bool:
        ch = self._next()
        if ch and ch in valid:
            return True
        self._backup()
        return False

    def _accept_run(self, valid: str) -> None:
        while True:
            ch = self._next()
            if not ch or ch not in valid:
                break
        self._backup()

    def _errorf(self, message: str) -> None:
        self.item = Item(Kind.ERROR, self.start, message, self.start_line)
        self.start = 0
        self.pos = 0
        self.input = ""

    def _at_right_delim(self) -> tuple[bool, bool]:
        s = self.input
        if _has_right_trim(s, self.pos) and s.startswith(RIGHT_DELIM, self.pos + 2):
            return True, True
        if s.startswith(RIGHT_DELIM, self.pos):
            return True, False
        return False, False

    def _at_terminator(self) -> bool:
        ch = self._peek()
        if ch == "" or is_space(ch) or ch in ".,|:)(":
            return True
        return self.input.startswith(RIGHT_DELIM, self.pos)

    # -- the states -----------------------------------------------------------------------

    def next_item(self) -> Item:
        self.item = None
        state = self._lex_inside_action if self.inside_action else self._lex_text
        while True:
            following = state()
            if self.item is not None:
                return self.item
            if following is None:
                return Item(Kind.EOF, self.pos, "EOF", self.start_line)
            state = following

    def _lex_text(self) -> StateFn | None:
        s = self.input
        x = s.find(LEFT_DELIM, self.pos)
        if x >= 0:
            if x > self.pos:
                self.pos = x
                trim = 0
                if _has_left_trim(s, x + len(LEFT_DELIM)):
                    chunk = s[self.start : self.pos]
                    trim = len(chunk) - len(chunk.rstrip(SPACE_CHARS))
                self.pos -= trim
                self.line += s.count("\n", self.start, self.pos)
                item = self._this_item(Kind.TEXT)
                self.pos += trim
                self._ignore()
                if item.val:
                    self.item = item
                    return None
            return self._lex_left_delim
        self.pos = len(s)
        if self.pos > self.start:
            self.line += s.count("\n", self.start, self.pos)
            self._emit(Kind.TEXT)
            return None
        self._emit(Kind.EOF)
        return None

    def _lex_left_delim(self) -> StateFn | None:
        self.pos += len(LEFT_DELIM)
        trim = _has_left_trim(self.input, self.pos)
        after = 2 if trim else 0
        if self.input.startswith(LEFT_COMMENT, self.pos + after):
            self.pos += after
            self._ignore()
            return self._lex_comment
        item = self._this_item(Kind.LEFT_DELIM)
        self.inside_action = True
        self.pos += after
        self._ignore()
        self.paren_depth = 0
        self.item = item
        return None

    def _lex_comment(self) -> StateFn | None:
        self.pos += len(LEFT_COMMENT)
        x = self.input.find(RIGHT_COMMENT, self.pos)
        if x < 0:
            self._errorf("unclosed comment")
            return None
        self.pos = x + len(RIGHT_COMMENT)
        delim, trim = self._at_right_delim()
        if not delim:
            self._errorf("comment ends before closing delimiter")
            return None
        self.line += self.input.count("\n", self.start, self.pos)
        self._this_item(Kind.COMMENT)
        if trim:
            self.pos += 2
        self.pos += len(RIGHT_DELIM)
        if trim:
            rest = self.input[self.pos :]
            self.pos += len(rest) - len(rest.lstrip(SPACE_CHARS))
        self._ignore()
        return self._lex_text

    def _lex_right_delim(self) -> StateFn | None:
        _, trim = self._at_right_delim()
        if trim:
            self.pos += 2
            self._ignore()
        self.pos += len(RIGHT_DELIM)
        item = self._this_item(Kind.RIGHT_DELIM)
        if trim:
            rest = self.input[self.pos :]
            self.pos += len(rest) - len(rest.lstrip(SPACE_CHARS))
            self._ignore()
        self.inside_action = False
        self.item = item
        return None

    def _lex_inside_action(self) -> StateFn | None:
        delim, _ = self._at_right_delim()
        if delim:
            if self.paren_depth == 0:
                return self._lex_right_delim
            self._errorf("unclosed left paren")
            return None
        ch = self._next()
        if ch == "":
            self._errorf("unclosed action")
            return None
        if is_space(ch):
            self._backup()
            return self._lex_space
        if ch == "=":
            self._emit(Kind.ASSIGN)
            return None
        if ch == ":":
            if self._next() != "=":
                self._errorf("expected :=")
                return None
            self._emit(Kind.DECLARE)
            return None
        if ch == "|":
            self._emit(Kind.PIPE)
            return None
        if ch == '"':
            return self._lex_quote
        if ch == "`":
            return self._lex_raw_quote
        if ch == "$":
            return self._lex_variable
        if ch == "'":
            return self._lex_char
        if ch == ".":
            nxt = self._peek()
            if self.pos < len(self.input) and not ("0" <= nxt <= "9"):
                return self._lex_field
            self._backup()
            return self._lex_number
        if ch in "+-" or "0" <= ch <= "9":
            self._backup()
            return self._lex_number
        if is_alphanumeric(ch):
            self._backup()
            return self._lex_identifier
        if ch == "(":
            self.paren_depth += 1
            self._emit(Kind.LEFT_PAREN)
            return None
        if ch == ")":
            self.paren_depth -= 1
            if self.paren_depth < 0:
                self._errorf("unexpected right paren")
                return None
            self._emit(Kind.RIGHT_PAREN)
            return None
        if ord(ch) <= 0x7F and ch.isprintable():
            self._emit(Kind.CHAR)
            return None
        self._errorf(f"unrecognized character in action: {quote_rune(ch)}")
        return None

    def _lex_space(self) -> StateFn | None:
        spaces = 0
        while is_space(self._peek()):
            self._next()
            spaces += 1
        if _has_right_trim(self.input, self.pos - 1) and self.input.startswith(
            RIGHT_DELIM, self.pos + 1
        ):
            self._backup()
            if spaces == 1:
                return self._lex_right_delim
        self._emit(Kind.SPACE)
        return None

    def _lex_identifier(self) -> StateFn | None:
        while True:
            ch = self._next()
            if is_alphanumeric(ch):
                continue
            self._backup()
            word = self.input[self.start : self.pos]
            if not self._at_terminator():
                self._errorf(f"bad character {quote_rune(self._peek())}")
                return None
            kind = KEYWORDS.get(word)
            if kind is not None and kind > Kind.KEYWORD:
                self._emit(kind)
            elif word[0] == ".":
                self._emit(Kind.FIELD)
            elif word in ("true", "false"):
                self._emit(Kind.BOOL)
            else:
                self._emit(Kind.IDENTIFIER)
            return None

    def _lex_field(self) -> StateFn | None:
        return self._lex_field_or_variable(Kind.FIELD)

    def _lex_variable(self) -> StateFn | None:
        if self._at_terminator():
            self._emit(Kind.VARIABLE)
            return None
        return self._lex_field_or_variable(Kind.VARIABLE)

    def _lex_field_or_variable(self, kind: Kind) -> StateFn | None:
        if self._at_terminator():
            self._emit(Kind.VARIABLE if kind is Kind.VARIABLE else Kind.DOT)
            return None
        while True:
            ch = self._next()
            if not is_alphanumeric(ch):
                self._backup()
                break
        if not self._at_terminator():
            self._errorf(f"bad character {quote_rune(self._peek())}")
            return None
        self._emit(kind)
        return None

    def _lex_char(self) -> StateFn | None:
        while True:
            ch = self._next()
            if ch == "\\":
                nxt = self._next()
                if nxt not in ("", "\n"):
                    continue
                self._errorf("unterminated character constant")
                return None
            if ch in ("", "\n"):
                self._errorf("unterminated character constant")
                return None
            if ch == "'":
                break
        self._emit(Kind.CHAR_CONSTANT)
        return None

    def _lex_number(self) -> StateFn | None:
        if not self._scan_number():
            self._errorf(f"bad number syntax: {quote_go(self.input[self.start : self.pos])}")
            return None
        if self._peek() in ("+", "-") and self._peek() != "":
            if not self._scan_number() or self.input[self.pos - 1] != "i":
                self._errorf(f"bad number syntax: {quote_go(self.input[self.start : self.pos])}")
                return None
            self._emit(Kind.COMPLEX)
            return None
        self._emit(Kind.NUMBER)
        return None

    def _scan_number(self) -> bool:
        self._accept("+-")
        digits = "0123456789_"
        if self._accept("0"):
            if self._accept("xX"):
                digits = "0123456789abcdefABCDEF_"
            elif self._accept("oO"):
                digits = "01234567_"
            elif self._accept("bB"):
                digits = "01_"
        self._accept_run(digits)
        if self._accept("."):
            self._accept_run(digits)
        if len(digits) == 11 and self._accept("eE"):
            self._accept("+-")
            self._accept_run("0123456789_")
        if len(digits) == 23 and self._accept("pP"):
            self._accept("+-")
            self._accept_run("0123456789_")
        self._accept("i")
        if is_alphanumeric(self._peek()):
            self._next()
            return False
        return True

    def _lex_quote(self) -> StateFn | None:
        while True:
            ch = self._next()
            if ch == "\\":
                nxt = self._next()
                if nxt not in ("", "\n"):
                    continue
                self._errorf("unterminated quoted string")
                return None
            if ch in ("", "\n"):
                self._errorf("unterminated quoted string")
                return None
            if ch == '"':
                break
        self._emit(Kind.STRING)
        return None

    def _lex_raw_quote(self) -> StateFn | None:
        while True:
            ch = self._next()
            if ch == "":
                self._errorf("unterminated raw quoted string")
                return None
            if ch == "`":
                break
        self._emit(Kind.RAW_STRING)
        return None


def byte_column(text: str, pos: int) -> tuple[int, int]:
    """Go's line and byte column of a node at ``pos`` (ErrorContext's numbering)."""
    before = text[:pos]
    line = 1 + before.count("\n")
    nl = before.rfind("\n")
    if nl == -1:
        return line, len(before.encode())
    return line, len(before[nl + 1 :].encode())
