"""Regular expressions in the part of RE2 syntax where Go and Python agree.

Argo matches ``when`` patterns (``=~``, ``!~``) and expr-lang's ``matches`` with Go's
``regexp`` (RE2). Python's ``re`` reads much of the same syntax differently: ``$`` also
matches before a final newline, ``\\s`` includes ``\\v``, ``{,3}`` is a repeat where RE2 sees
text, ``[[:alpha:]]`` is a POSIX class only in RE2, lookarounds exist only in Python. So a
pattern is checked against this whitelist and anything else is refused, never guessed:

* literal characters (``\\`` escapes ASCII punctuation), ``.``, ``^``, ``$``;
* ``\\d \\D \\w \\W \\s \\S \\b`` (ASCII, as in RE2) and ``\\t \\n \\r \\f \\v``;
* classes ``[a-z0-9_]``, ``[^...]`` with literal characters, ranges and ``\\d \\D \\w \\W \\s``;
* groups ``(...)`` and ``(?:...)``, alternation ``|``;
* ``* + ?`` and ``{n}``, ``{n,}``, ``{n,m}`` (counts up to 1000), each optionally lazy (``?``).

Refused: flags ``(?i)``, lookarounds and other ``(?...)``, backreferences, ``\\A \\z \\B \\Q
\\p \\x`` and other escapes, POSIX classes, a bare ``{ } ]``, a quantifier on nothing, on an
anchor or on another quantifier, counted repeats inside counted repeats (RE2 limits their
product), and unbounded repeats inside unbounded repeats (``(a+)*``: Python backtracks where
RE2 runs in linear time). Only whether a pattern matches is ever used, so greedy and lazy
repeats, and RE2's leftmost-first choice, give the same answer in both engines.
"""

from __future__ import annotations

import re
import string
from dataclasses import dataclass

from orchestrator.engine.errors import EngineError

__all__ = ["PatternError", "compile_re2"]

MAX_REPEAT = 1000
"""RE2's largest repeat count."""
MAX_DEPTH = 50
MAX_LENGTH = 1000
_PUNCTUATION = frozenset(string.punctuation)
_CONTROL = frozenset("tnrfv")
_CLASSES = frozenset("dDwW")
_SPACE = "\\t\\n\\f\\r "
"""RE2's ``\\s``: no vertical tab, unlike Python's."""
_REPEAT = re.compile(r"\{(0|[1-9][0-9]*)(,(0|[1-9][0-9]*)?)?\}")
_DOUBLED = ("--", "&&", "~~", "||")
"""Set operations Python reserves inside classes (it warns), literal text for RE2."""


class PatternError(EngineError):
    """A pattern outside the supported RE2 syntax (or invalid in RE2 itself)."""


@dataclass(frozen=True)
class _Piece:
    """Translated text, and what a quantifier applied to it needs to know."""

    text: str
    consumes: bool
    """Can match at least one character (a group of anchors cannot be repeated)."""
    counted: bool = False
    """Contains an ``{n,m}`` repeat."""
    unbounded: bool = False
    """Contains ``*``, ``+`` or ``{n,}``."""
    anchor: bool = False


class _Translator:
    def __init__(self, source: str) -> None:
        self.source = source
        self.pos = 0
        self.depth = 0

    def refuse(self, what: str) -> PatternError:
        return PatternError(
            f"regular expression '{self.source}': {what} is not supported in a local run "
            "(only the RE2 syntax Go and Python read alike)"
        )

    def peek(self, size: int = 1) -> str:
        return self.source[self.pos : self.pos + size]

    def translate(self) -> str:
        if len(self.source) > MAX_LENGTH:
            raise self.refuse(f"a pattern longer than {MAX_LENGTH} characters")
        piece = self.alternation()
        if self.pos < len(self.source):
            raise self.refuse("an unbalanced ')'")
        return piece.text

    def alternation(self) -> _Piece:
        branches = [self.sequence()]
        while self.peek() == "|":
            self.pos += 1
            branches.append(self.sequence())
        return _Piece(
            "|".join(b.text for b in branches),
            any(b.consumes for b in branches),
            any(b.counted for b in branches),
            any(b.unbounded for b in branches),
        )

    def sequence(self) -> _Piece:
        pieces: list[_Piece] = []
        while self.pos < len(self.source) and self.peek() not in "|)":
            pieces.append(self.quantified(self.atom()))
        return _Piece(
            "".join(p.text for p in pieces),
            any(p.consumes for p in pieces),
            any(p.counted for p in pieces),
            any(p.unbounded for p in pieces),
        )

    def quantifier(self) -> tuple[str, bool, bool] | None:
        """The quantifier at the cursor: (text, counted, unbounded), or None."""
        char = self.peek()
        if char in ("*", "+", "?"):
            self.pos += 1
            return char, False, char != "?"
        if char != "{":
            return None
        match = _REPEAT.match(self.source, self.pos)
        if match is None:
            raise self.refuse("a '{' that is not a repeat count (escape it as \\{)")
        low, comma, high = match.group(1), match.group(2), match.group(3)
        if int(low) > MAX_REPEAT or (high is not None and int(high) > MAX_REPEAT):
            raise self.refuse(f"a repeat count above {MAX_REPEAT}")
        if high is not None and int(high) < int(low):
            raise self.refuse(f"the repeat {match.group(0)}")
        self.pos = match.end()
        return match.group(0), True, bool(comma) and high is None

    def quantified(self, piece: _Piece) -> _Piece:
        found = self.quantifier()
        if found is None:
            return piece
        text, counted, unbounded = found
        if piece.anchor or not piece.consumes:
            raise self.refuse(f"a repeat '{text}' of something that matches no character")
        if counted and piece.counted:
            raise self.refuse("a counted repeat inside a counted repeat")
        if unbounded and piece.unbounded:
            raise self.refuse("an unbounded repeat inside an unbounded repeat")
        if self.peek() == "?":
            self.pos += 1
            text += "?"
        if self.peek() in ("*", "+", "?", "{"):
            raise self.refuse(f"a repeat of a repeat ('{text}{self.peek()}')")
        return _Piece(
            piece.text + text,
            True,
            counted or piece.counted,
            unbounded or piece.unbounded,
        )

    def atom(self) -> _Piece:
        char = self.peek()
        self.pos += 1
        if char == "(":
            return self.group()
        if char == "[":
            return self.char_class()
        if char == "\\":
            return self.escape()
        if char == ".":
            return _Piece(".", True)
        if char == "^":
            return _Piece("^", False, anchor=True)
        if char == "$":
            return _Piece("\\Z", False, anchor=True)  # RE2's $ is the end of the text
        if char in "*+?{":
            raise self.refuse(f"a repeat '{char}' with nothing before it")
        if char in "]}":
            raise self.refuse(f"a bare '{char}' (escape it as \\{char})")
        return _Piece(re.escape(char), True)

    def group(self) -> _Piece:
        opening = "("
        if self.peek() == "?":
            if self.peek(2) != "?:":
                raise self.refuse("a group flag or lookaround '(?'")
            self.pos += 2
            opening = "(?:"
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise self.refuse(f"groups nested deeper than {MAX_DEPTH}")
        inner = self.alternation()
        if self.peek() != ")":
            raise self.refuse("an unclosed '('")
        self.pos += 1
        self.depth -= 1
        return _Piece(f"{opening}{inner.text})", inner.consumes, inner.counted, inner.unbounded)

    def escape(self) -> _Piece:
        char = self.peek()
        self.pos += 1
        if char in _CLASSES or char in _CONTROL:
            return _Piece("\\" + char, True)
        if char == "s":
            return _Piece(f"[{_SPACE}]", True)
        if char == "S":
            return _Piece(f"[^{_SPACE}]", True)
        if char == "b":
            return _Piece("\\b", False, anchor=True)
        if char in _PUNCTUATION:
            return _Piece(re.escape(char), True)
        raise self.refuse(f"the escape '\\{char}'" if char else "a trailing '\\'")

    def class_member(self) -> str:
        """The literal character that ends a class range."""
        char = self.peek()
        if char == "" or char in "[]\\":
            raise self.refuse(f"the class range end '{char}'")
        self.pos += 1
        return char

    def char_class(self) -> _Piece:
        out = "^" if self.peek() == "^" else ""
        self.pos += len(out)
        first = True
        while True:
            char = self.peek()
            if char == "":
                raise self.refuse("an unclosed '['")
            if char == "]" and not first:
                self.pos += 1
                return _Piece(f"[{out}]", True)
            if self.peek(2) in _DOUBLED:
                raise self.refuse(f"'{self.peek(2)}' inside a class")
            if char == "[":
                raise self.refuse("a '[' inside a class (POSIX classes such as [:alpha:])")
            self.pos += 1
            if char == "\\":
                out += self.class_escape()
            elif char == "-" and not first and self.peek() != "]":
                raise self.refuse("a '-' inside a class that is not first, last or a range")
            elif self.peek() == "-" and self.peek(2) != "-]":
                self.pos += 1
                end = self.class_member()
                if ord(end) < ord(char):
                    raise self.refuse(f"the class range {char}-{end}")
                out += f"{re.escape(char)}-{re.escape(end)}"
            else:
                out += re.escape(char)
            first = False

    def class_escape(self) -> str:
        escaped = self.peek()
        self.pos += 1
        if escaped in _CLASSES or escaped in _CONTROL:
            return "\\" + escaped
        if escaped == "s":
            return _SPACE
        if escaped in _PUNCTUATION:
            return re.escape(escaped)
        raise self.refuse(f"the escape '\\{escaped}' inside a class")


def compile_re2(source: str) -> re.Pattern[str]:
    """``regexp.Compile`` for the supported syntax; :class:`PatternError` otherwise. Use
    ``search`` with the result (Go's ``Match``/``MatchString`` find a match anywhere)."""
    return re.compile(_Translator(source).translate(), re.ASCII)
