"""expr's lexer: text to tokens, with the rune spans expr gives them.

Mirrored by hand from expr v1.17.7 ``parser/lexer`` (state functions over runes) because the
positions, the token boundaries (``not in``, ``?.``, ``..`` after a number) and the first
error's wording and place are part of what a user sees; tests/vectors/expr proves it.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from reporters.expr.errors import ExprSyntaxError, Location
from reporters.expr.gotext import is_alphanumeric, is_space, quote, rune_u

KEYWORDS = frozenset({"in", "or", "and", "matches", "contains", "startsWith", "endsWith", "let",
                      "if", "else"})  # fmt: skip
NEGATABLE = frozenset({"in", "matches", "contains", "startsWith", "endsWith"})


class Kind(Enum):
    IDENTIFIER = "Identifier"
    NUMBER = "Number"
    STRING = "String"
    OPERATOR = "Operator"
    BRACKET = "Bracket"
    EOF = "EOF"


@dataclass(frozen=True)
class Token:
    kind: Kind
    value: str
    start: int
    end: int

    def is_(self, kind: Kind, *values: str) -> bool:
        return self.kind is kind and (not values or self.value in values)

    def __str__(self) -> str:
        """``Token.String``: ``Kind("value")``, or the kind alone for an empty value."""
        return self.kind.value if not self.value else f"{self.kind.value}({quote(self.value)})"


class _Stop(Exception):
    """The first lexing error was recorded: stop scanning."""


_ESCAPES = {"a": "\a", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t", "v": "\v",
            "\\": "\\", "'": "'", '"': '"', "`": "`", "?": "?"}  # fmt: skip
_HEX = "0123456789abcdefABCDEF"
_MAX_RUNE = 0x10FFFF


def _rune(value: int) -> str:
    """What ``utf8.EncodeRune`` writes: surrogate halves become U+FFFD."""
    return "\ufffd" if 0xD800 <= value <= 0xDFFF else chr(value)


def unescape(word: str) -> str:
    """expr's ``unescape`` of a quoted literal (quotes included); ValueError with its
    message when it fails."""
    value = word.replace("\r\n", "\n").replace("\r", "\n")
    if len(value) < 2 or value[0] != value[-1] or value[0] not in "\"'":
        raise ValueError("unable to unescape string")
    text, out, i = value[1:-1], [], 0
    while i < len(text):
        char = text[i]
        if char != "\\":
            out.append(char)
            i += 1
            continue
        if i + 1 >= len(text):
            raise ValueError("unable to unescape string, found '\\' as last character")
        code, i = text[i + 1], i + 2
        if code in _ESCAPES:
            out.append(_ESCAPES[code])
        elif code == "u" and text[i : i + 1] == "{":
            end = text.find("}", i + 1)
            digits = text[i + 1 : end] if end >= 0 else text[i + 1 :]
            if end < 0 or not digits or len(digits) > 6 or any(d not in _HEX for d in digits):
                raise ValueError("unable to unescape string")
            number = int(digits, 16)
            if number > _MAX_RUNE:
                raise ValueError("unable to unescape string")
            out.append(_rune(number))
            i = end + 1
        elif code in "xXuU":
            size = {"x": 2, "X": 2, "u": 4, "U": 8}[code]
            digits = text[i : i + size]
            if len(digits) < size or any(d not in _HEX for d in digits):
                raise ValueError("unable to unescape string")
            number = int(digits, 16)
            if number > _MAX_RUNE:
                raise ValueError("unable to unescape string")
            out.append(_rune(number))
            i += size
        elif code in "0123":
            digits = text[i : i + 2]
            if len(digits) < 2 or any(d not in "01234567" for d in digits):
                raise ValueError("unable to unescape octal sequence in string")
            out.append(chr(int(code + digits, 8)))
            i += 2
        else:
            raise ValueError("unable to unescape string")
    return "".join(out)


class Lexer:
    """One pass over the source; :meth:`tokens` returns every token up to and with EOF, or
    raises the first error as expr reports it."""

    def __init__(self, source: str) -> None:
        self.source = source
        self.start = 0
        self.end = 0
        self.eof = False
        self.out: list[Token] = []

    # -- the primitives of lexer.go ------------------------------------------------------------

    def next(self) -> str:
        if self.end >= len(self.source):
            self.eof = True
            return ""
        char = self.source[self.end]
        self.end += 1
        return char

    def peek(self) -> str:
        return self.source[self.end] if self.end < len(self.source) else ""

    def backup(self) -> None:
        if self.eof:
            self.eof = False
        elif self.end > 0:
            self.end -= 1

    def word(self) -> str:
        return self.source[self.start : self.end]

    def emit(self, kind: Kind, value: str | None = None) -> None:
        self.out.append(Token(kind, self.word() if value is None else value, self.start, self.end))
        self.start = self.end

    def accept(self, valid: str) -> bool:
        char = self.peek()
        if char and char in valid:
            self.next()
            return True
        return False

    def accept_run(self, valid: str) -> None:
        while self.accept(valid):
            pass

    def error(self, message: str) -> _Stop:
        end = self.end + (1 if self.eof else 0)
        raise ExprSyntaxError(message, self.source, Location(end - 1, end))

    # -- states --------------------------------------------------------------------------------

    def tokens(self) -> list[Token]:
        while True:
            char = self.next()
            if char == "":
                start = max(self.end - 1, 0)
                self.out.append(Token(Kind.EOF, "", start, self.end))
                return self.out
            self.root(char)

    def root(self, char: str) -> None:
        if is_space(char):
            self.start = self.end
        elif char in "'\"":
            self.scan_string(char)
            try:
                value = unescape(self.word())
            except ValueError as exc:
                raise self.error(str(exc)) from None
            self.emit(Kind.STRING, value)
        elif char == "`":
            self.scan_raw_string()
        elif "0" <= char <= "9":
            self.backup()
            self.number()
        elif char == "?":
            self.accept(".?")
            self.emit(Kind.OPERATOR)
        elif char == "/":
            self.slash()
        elif char == "#":
            self.pointer()
        elif char == "|":
            self.accept("|")
            self.emit(Kind.OPERATOR)
        elif char == ":":
            self.accept(":")
            self.emit(Kind.OPERATOR)
        elif char in "([{)]}":
            self.emit(Kind.BRACKET)
        elif char in ",;%+-^":
            self.emit(Kind.OPERATOR)
        elif char in "&!=*<>":
            self.accept("&=*")
            self.emit(Kind.OPERATOR)
        elif char == ".":
            self.backup()
            self.dot()
        elif is_alphanumeric(char):
            self.backup()
            self.identifier()
        else:
            raise self.error(f"unrecognized character: {rune_u(char)}")

    def number(self) -> None:
        digits = "0123456789_"
        if self.accept("0"):
            if self.accept("xX"):
                digits = "0123456789abcdefABCDEF_"
            elif self.accept("oO"):
                digits = "01234567_"
            elif self.accept("bB"):
                digits = "01_"
        self.accept_run(digits)
        end = self.end
        if self.accept("."):
            if self.peek() == ".":
                self.end = end
                self.emit(Kind.NUMBER)
                return
            self.accept_run(digits)
        if self.accept("eE"):
            self.accept("+-")
            self.accept_run(digits)
        char = self.peek()
        if char and is_alphanumeric(char):
            self.next()
            raise self.error(f"bad number syntax: {quote(self.word())}")
        self.emit(Kind.NUMBER)

    def dot(self) -> None:
        self.next()
        if self.accept("0123456789"):
            self.backup()
            self.number()
            return
        self.accept(".")
        self.emit(Kind.OPERATOR)

    def identifier(self) -> None:
        while True:
            char = self.next()
            if not (char and is_alphanumeric(char)):
                self.backup()
                break
        word = self.word()
        if word == "not":
            self.not_()
        elif word in KEYWORDS:
            self.emit(Kind.OPERATOR)
        else:
            self.emit(Kind.IDENTIFIER)

    def not_(self) -> None:
        self.emit(Kind.OPERATOR)
        self.accept_run(" ")
        self.start = self.end
        end = self.end
        while True:
            char = self.next()
            if not (char and is_alphanumeric(char)):
                self.backup()
                break
        if self.word() in NEGATABLE:
            self.emit(Kind.OPERATOR)
        else:
            self.end = end

    def slash(self) -> None:
        if self.accept("/"):
            while self.next() not in ("", "\n"):
                pass
            self.start = self.end
        elif self.accept("*"):
            while True:
                char = self.next()
                if char == "":
                    raise self.error("unclosed comment")
                if char == "*" and self.accept("/"):
                    break
            self.start = self.end
        else:
            self.emit(Kind.OPERATOR)

    def pointer(self) -> None:
        self.accept("#")
        self.emit(Kind.OPERATOR)
        while True:
            char = self.next()
            if not (char and is_alphanumeric(char)):
                self.backup()
                if self.word():
                    self.emit(Kind.IDENTIFIER)
                return

    def scan_digits(self, char: str, base: int, count: int) -> str:
        while count > 0 and char and _digit(char) < base:
            char = self.next()
            count -= 1
        if count > 0:
            raise self.error("invalid char escape")
        return char

    def scan_escape(self, quote_char: str) -> str:
        char = self.next()
        if char and char in "abfnrtv\\" + quote_char:
            return self.next()
        if char and char in "01234567":
            return self.scan_digits(char, 8, 3)
        if char == "x":
            return self.scan_digits(self.next(), 16, 2)
        if char == "u":
            if self.peek() == "{":
                self.next()
                digits = 0
                while self.peek() != "}":
                    if _digit(self.peek()) >= 16 or digits >= 6:
                        raise self.error("invalid char escape")
                    self.next()
                    digits += 1
                if digits == 0:
                    raise self.error("invalid char escape")
                self.next()
                return self.next()
            return self.scan_digits(self.next(), 16, 4)
        if char == "U":
            return self.scan_digits(self.next(), 16, 8)
        raise self.error("invalid char escape")

    def scan_string(self, quote_char: str) -> None:
        char = self.next()
        while char != quote_char:
            if char in ("\n", ""):
                raise self.error("literal not terminated")
            char = self.scan_escape(quote_char) if char == "\\" else self.next()

    def scan_raw_string(self) -> None:
        while True:
            char = self.next()
            while char == "`" and self.peek() == "`":
                self.next()
                char = self.next()
            if char == "`":
                break
            if char == "":
                raise self.error("literal not terminated")
        raw = self.source[self.start + 1 : self.end - 1]
        self.emit(Kind.STRING, raw.replace("``", "`"))


def _digit(char: str) -> int:
    if not char:
        return 16
    if "0" <= char <= "9":
        return ord(char) - ord("0")
    lowered = char.lower()
    if "a" <= lowered <= "f" and char.isascii():
        return ord(lowered) - ord("a") + 10
    return 16


def tokenize(source: str) -> tuple[list[Token], ExprSyntaxError | None]:
    """The tokens up to the first lexing error, and that error. expr lexes as its parser
    asks for tokens, so the parser decides whether the error is reached (:mod:`.parser`)."""
    lexer = Lexer(source)
    try:
        return lexer.tokens(), None
    except ExprSyntaxError as exc:
        return lexer.out, exc
