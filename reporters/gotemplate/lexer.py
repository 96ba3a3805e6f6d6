"""The tokens of a Go template, cut as Go's text/template/parse lexer cuts them.

Go's lexer is a state machine whose quirks show in what templates mean and in the wording
of errors (``{{- `` needs the space, ``.5`` is a number, ``$x+2`` is a bad character), so
it is mirrored here by hand, state for state. Positions are character offsets into the
text; :func:`byte_column` turns them into the byte columns Go reports.
"""

from __future__ import annotations

from orchestrator.golang.strconv import quote as quote_go
from orchestrator.golang.strconv import quote_rune
from reporters.gotemplate.tokens import (
    KEYWORDS,
    LEFT_COMMENT,
    LEFT_DELIM,
    RIGHT_COMMENT,
    RIGHT_DELIM,
    SPACE_CHARS,
    Item,
    Kind,
    StateFn,
    byte_column,
    has_left_trim,
    has_right_trim,
    is_alphanumeric,
    is_space,
)

__all__ = ["Item", "Kind", "Lexer", "byte_column"]


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

    def _emit(self, kind: Kind) -> StateFn | None:
        """Hand the pending text over as one item; the state machine then pauses."""
        self.item = self._this_item(kind)
        return None

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

    def _errorf(self, message: str) -> StateFn | None:
        self.item = Item(Kind.ERROR, self.start, message, self.start_line)
        self.start = 0
        self.pos = 0
        self.input = ""
        return None

    def _at_right_delim(self) -> tuple[bool, bool]:
        s = self.input
        if has_right_trim(s, self.pos) and s.startswith(RIGHT_DELIM, self.pos + 2):
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
                if has_left_trim(s, x + len(LEFT_DELIM)):
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
            return self._emit(Kind.TEXT)
        self._emit(Kind.EOF)
        return None

    def _lex_left_delim(self) -> StateFn | None:
        self.pos += len(LEFT_DELIM)
        trim = has_left_trim(self.input, self.pos)
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
            return self._errorf("unclosed comment")
        self.pos = x + len(RIGHT_COMMENT)
        delim, trim = self._at_right_delim()
        if not delim:
            return self._errorf("comment ends before closing delimiter")
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
            return self._errorf("unclosed left paren")
        ch = self._next()
        if ch == "":
            return self._errorf("unclosed action")
        if is_space(ch):
            self._backup()
            return self._lex_space
        if ch == "=":
            return self._emit(Kind.ASSIGN)
        if ch == ":":
            if self._next() != "=":
                return self._errorf("expected :=")
            self._emit(Kind.DECLARE)
            return None
        if ch == "|":
            return self._emit(Kind.PIPE)
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
            return self._emit(Kind.LEFT_PAREN)
        if ch == ")":
            self.paren_depth -= 1
            if self.paren_depth < 0:
                return self._errorf("unexpected right paren")
            self._emit(Kind.RIGHT_PAREN)
            return None
        if ord(ch) <= 0x7F and ch.isprintable():
            return self._emit(Kind.CHAR)
        self._errorf(f"unrecognized character in action: {quote_rune(ch)}")
        return None

    def _lex_space(self) -> StateFn | None:
        spaces = 0
        while is_space(self._peek()):
            self._next()
            spaces += 1
        if has_right_trim(self.input, self.pos - 1) and self.input.startswith(
            RIGHT_DELIM, self.pos + 1
        ):
            self._backup()
            if spaces == 1:
                return self._lex_right_delim
        return self._emit(Kind.SPACE)

    def _lex_identifier(self) -> StateFn | None:
        while True:
            ch = self._next()
            if is_alphanumeric(ch):
                continue
            self._backup()
            word = self.input[self.start : self.pos]
            if not self._at_terminator():
                return self._errorf(f"bad character {quote_rune(self._peek())}")
            kind = KEYWORDS.get(word)
            if kind is not None and kind > Kind.KEYWORD:
                return self._emit(kind)
            if word[0] == ".":
                return self._emit(Kind.FIELD)
            if word in ("true", "false"):
                return self._emit(Kind.BOOL)
            return self._emit(Kind.IDENTIFIER)

    def _lex_field(self) -> StateFn | None:
        return self._lex_field_or_variable(Kind.FIELD)

    def _lex_variable(self) -> StateFn | None:
        if self._at_terminator():
            return self._emit(Kind.VARIABLE)
        return self._lex_field_or_variable(Kind.VARIABLE)

    def _lex_field_or_variable(self, kind: Kind) -> StateFn | None:
        if self._at_terminator():
            return self._emit(Kind.VARIABLE if kind is Kind.VARIABLE else Kind.DOT)
        while True:
            ch = self._next()
            if not is_alphanumeric(ch):
                self._backup()
                break
        if not self._at_terminator():
            return self._errorf(f"bad character {quote_rune(self._peek())}")
        self._emit(kind)
        return None

    def _lex_char(self) -> StateFn | None:
        while True:
            ch = self._next()
            if ch == "\\":
                nxt = self._next()
                if nxt not in ("", "\n"):
                    continue
                return self._errorf("unterminated character constant")
            if ch in ("", "\n"):
                return self._errorf("unterminated character constant")
            if ch == "'":
                break
        return self._emit(Kind.CHAR_CONSTANT)

    def _lex_number(self) -> StateFn | None:
        if not self._scan_number():
            return self._errorf(f"bad number syntax: {quote_go(self.input[self.start : self.pos])}")
        if self._peek() in ("+", "-") and self._peek() != "":
            if not self._scan_number() or self.input[self.pos - 1] != "i":
                return self._errorf(
                    f"bad number syntax: {quote_go(self.input[self.start : self.pos])}"
                )
            self._emit(Kind.COMPLEX)
            return None
        return self._emit(Kind.NUMBER)

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
                return self._errorf("unterminated quoted string")
            if ch in ("", "\n"):
                return self._errorf("unterminated quoted string")
            if ch == '"':
                break
        return self._emit(Kind.STRING)

    def _lex_raw_quote(self) -> StateFn | None:
        while True:
            ch = self._next()
            if ch == "":
                return self._errorf("unterminated raw quoted string")
            if ch == "`":
                break
        return self._emit(Kind.RAW_STRING)
