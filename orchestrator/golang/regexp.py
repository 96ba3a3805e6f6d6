"""Go's RE2 patterns run with Python's ``re``, where the two agree on whether text matches.

expr's ``matches`` and Argo Workflows' ``when`` (``=~``, ``!~``) match with Go's ``regexp``
(RE2 syntax, leftmost-first, linear time). Python reads much of the same text differently,
so a pattern is translated element by element and anything whose meaning differs is
refused (:class:`PatternUnsupported`, with what to write instead) rather than guessed:

* accepted: literal characters, ``\\`` before punctuation, ``.``, ``^``, ``$`` (end of text
  only, as in RE2: Python's ``$`` would also match before a final newline), ``\\A``, ``\\z``,
  ``\\d \\D \\w \\W \\s \\S \\b`` (ASCII, as in RE2; RE2's ``\\s`` has no ``\\v``),
  ``\\t \\n \\r \\f \\v``, classes with ranges and those escapes, ``(...)``, ``(?:...)``,
  ``(?P<name>...)``, ``|``, ``* + ?`` and ``{n}``, ``{n,}``, ``{n,m}`` (up to 1000), each
  optionally lazy;
* flags ``(?i)`` and ``(?s)`` at the start of the pattern; ``(?i)`` only where pattern and
  text are ASCII (RE2 folds case by Unicode rules: K with the Kelvin sign);
* refused: ``\\B`` (Python's never matches empty text, RE2's does), other flags, flags
  inside the pattern, lookarounds and backreferences (not RE2), ``\\p{..}``, ``\\Q..\\E``,
  ``\\x..`` and other escapes, POSIX classes ``[[:alpha:]]``, a ``{`` that is not a repeat
  (text in RE2, a repeat to Python in ``{,3}``; ``{01}`` is text in RE2 too), a repeat of a
  repeat (``a**``, ``a*+``: an error in RE2, possessive in Python), a counted repeat inside
  another (RE2 limits their product), and an unbounded repeat inside another (``(a+)*``:
  Python would backtrack exponentially where RE2 runs in linear time);
* invalid patterns are refused too, as not every RE2 error message is mirrored.

Only whether a pattern matches is used, so greedy or lazy and leftmost-first choices give
the same answer in both engines. sprig's find and replace functions need Go's whole match
loop and RE2's error messages, so templates translate with ``reporters.gotemplate.sprig_regex``.
"""

from __future__ import annotations

import re
import string
from dataclasses import dataclass
from functools import lru_cache

MAX_REPEAT = 1000
MAX_LENGTH = 2000
_PUNCT = frozenset(string.punctuation)
ESCAPES = {"d": r"\d", "D": r"\D", "w": r"\w", "W": r"\W", "s": r"[\t\n\f\r ]",
            "S": r"[^\t\n\f\r ]", "b": r"\b", "A": r"\A", "z": r"\Z",
            "t": r"\t", "n": r"\n", "r": r"\r", "f": r"\f", "v": r"\v"}  # fmt: skip
"""RE2's escapes outside a class, as Python writes them (ASCII, and ``\\s`` without ``\\v``)."""
CLASS_ESCAPES = {"d": r"\d", "D": r"\D", "w": r"\w", "W": r"\W", "s": r"\t\n\f\r ",
                  "t": r"\t", "n": r"\n", "r": r"\r", "f": r"\f", "v": r"\v"}  # fmt: skip
"""RE2's escapes inside a class, as Python writes them."""
_REPEAT = re.compile(r"\{(0|[1-9][0-9]*)(,(0|[1-9][0-9]*)?)?\}")
"""A counted repeat as RE2 reads one: a count with a leading zero makes ``{`` plain text."""


class PatternError(ValueError):
    """The pattern is invalid in RE2 too (message as Go words it)."""


class PatternUnsupported(ValueError):
    """A pattern whose meaning this translation does not guarantee."""

    def __init__(self, message: str, hint: str) -> None:
        super().__init__(message)
        self.hint = hint


HINT = (
    "use literal text, classes such as [a-z0-9], \\d \\w \\s, groups, | and the repeats "
    "* + ? {n,m}; or compare with ==, startsWith, endsWith or contains"
)


@dataclass
class _Piece:
    text: str
    unbounded: bool  # contains an unbounded repeat
    repeatable: bool
    counted: bool = False  # contains a counted repeat {n,m}


def _joined(separator: str, pieces: list[_Piece]) -> _Piece:
    """A sequence or an alternation of pieces: repeatable, and holding what they hold."""
    return _Piece(
        separator.join(p.text for p in pieces),
        any(p.unbounded for p in pieces),
        True,
        any(p.counted for p in pieces),
    )


class _Translator:
    def __init__(self, pattern: str, shown: str) -> None:
        self.pattern = pattern
        self.shown = shown
        self.i = 0

    def refuse(self, what: str) -> PatternUnsupported:
        return PatternUnsupported(
            f"regular expression {self.shown!r}: {what} is not evaluated here", HINT
        )

    def peek(self) -> str:
        return self.pattern[self.i] if self.i < len(self.pattern) else ""

    def alternation(self, depth: int) -> _Piece:
        branches = [self.sequence(depth)]
        while self.peek() == "|":
            self.i += 1
            branches.append(self.sequence(depth))
        return _joined("|", branches)

    def sequence(self, depth: int) -> _Piece:
        parts: list[_Piece] = []
        while self.peek() not in ("", "|", ")"):
            atom = self.atom(depth)
            parts.append(self.repeat(atom))
        return _joined("", parts)

    def repeat(self, atom: _Piece) -> _Piece:
        char = self.peek()
        count = None
        if char == "{":
            match = _REPEAT.match(self.pattern, self.i)
            if not match:
                raise self.refuse("a '{' that is not a repeat")
            low = int(match.group(1))
            high = match.group(3)
            if low > MAX_REPEAT or (high and int(high) > MAX_REPEAT):
                raise self.refuse("a repeat over 1000")
            if high and int(high) < low:
                raise self.refuse("an invalid repeat")
            count = match.group(0)
            unbounded = match.group(2) is not None and not high
            self.i = match.end()
        elif char in ("*", "+", "?"):
            count = char
            unbounded = char != "?"
            self.i += 1
        else:
            return atom
        if not atom.repeatable:
            raise self.refuse("a repeat of nothing or of an anchor")
        if unbounded and atom.unbounded:
            raise self.refuse("an unbounded repeat inside another")
        counted = char == "{"
        if counted and atom.counted:
            raise self.refuse("a counted repeat inside another")
        lazy = ""
        if self.peek() == "?":
            lazy = "?"
            self.i += 1
        if self.peek() in ("*", "+", "?", "{") and self.peek():
            raise self.refuse("a repeat of a repeat")
        return _Piece(
            atom.text + count + lazy, unbounded or atom.unbounded, False, counted or atom.counted
        )

    def atom(self, depth: int) -> _Piece:
        char = self.peek()
        self.i += 1
        if char == "(":
            if depth > 50:
                raise self.refuse("nesting this deep")
            prefix = "("
            if self.pattern.startswith("?:", self.i):
                prefix, self.i = "(?:", self.i + 2
            elif self.pattern.startswith("?P<", self.i):
                end = self.pattern.find(">", self.i)
                name = self.pattern[self.i + 3 : end] if end > 0 else ""
                if not name.isidentifier() or not name.isascii():
                    raise self.refuse("this group name")
                prefix, self.i = f"(?P<{name}>", end + 1
            elif self.peek() == "?":
                raise self.refuse(
                    "a group flag or lookaround '(?' other than (?:...) and (?P<name>...)"
                )
            inner = self.alternation(depth + 1)
            if self.peek() != ")":
                raise self.refuse("an unclosed group")
            self.i += 1
            return _Piece(prefix + inner.text + ")", inner.unbounded, True, inner.counted)
        if char in (")", "*", "+", "?"):
            raise self.refuse(f"a bare {char!r}")
        if char == "{":
            raise self.refuse("a '{' that is not a repeat")
        if char == "[":
            return _Piece(self.char_class(), False, True)
        if char == ".":
            return _Piece(".", False, True)
        if char == "^":
            return _Piece("^", False, False)
        if char == "$":
            return _Piece(r"\Z", False, False)
        if char == "\\":
            code = self.peek()
            self.i += 1
            if code in _PUNCT:
                return _Piece(re.escape(code), False, True)
            if code in ESCAPES:
                anchor = code in "bAz"
                return _Piece(ESCAPES[code], False, not anchor)
            raise self.refuse(f"the escape \\{code}")
        if char == "]" or char == "}":
            return _Piece(re.escape(char), False, True)
        return _Piece(re.escape(char), False, True)

    def char_class(self) -> str:
        out = "["
        if self.peek() == "^":
            out += "^"
            self.i += 1
        first = True
        while True:
            char = self.peek()
            if char == "":
                raise self.refuse("an unclosed class")
            if char == "]" and not first:
                self.i += 1
                return out + "]"
            if char == "[" and self.pattern.startswith("[:", self.i):
                raise self.refuse("a POSIX class")
            low = self.class_char()
            if self.peek() == "-" and self.pattern[self.i + 1 : self.i + 2] not in ("]", ""):
                self.i += 1
                high = self.class_char()
                if (len(low) != 1 and not low.startswith("\\")) or (
                    low.startswith("\\") and len(low) > 2
                ):
                    raise self.refuse("a range from a class escape")
                if _value(low) > _value(high):
                    raise self.refuse("a backwards range")
                out += low + "-" + high
            else:
                out += low
            first = False

    def class_char(self) -> str:
        char = self.peek()
        self.i += 1
        if char == "\\":
            code = self.peek()
            self.i += 1
            if code in _PUNCT:
                return "\\" + code
            if code in CLASS_ESCAPES:
                return CLASS_ESCAPES[code]
            raise self.refuse(f"the escape \\{code} in a class")
        if char in "[&~|-" and self.pattern[self.i : self.i + 1] == char:
            raise self.refuse(f"a doubled {char!r} in a class")
        if char in "[]\\^-&~|":
            return "\\" + char
        return char


def _value(text: str) -> int:
    return ord(text[-1])


_FLAGS = re.compile(r"\(\?([is]+)\)")


@lru_cache(maxsize=512)
def compile_re2(pattern: str) -> tuple[re.Pattern[str], bool]:
    """The Python pattern that matches what RE2 matches for ``pattern``, and whether it folds
    case (then it is exact only on ASCII text: see :func:`matches`)."""
    if len(pattern) > MAX_LENGTH:
        raise PatternUnsupported(f"a regular expression of {len(pattern)} characters", HINT)
    flags = _FLAGS.match(pattern)
    letters = flags.group(1) if flags else ""
    body = pattern[flags.end() :] if flags else pattern
    translator = _Translator(body, shown=pattern)
    piece = translator.alternation(0)
    if translator.i != len(body):
        raise translator.refuse("an unbalanced ')'")
    options = re.ASCII | (re.IGNORECASE if "i" in letters else 0)
    options |= re.DOTALL if "s" in letters else 0
    try:
        return re.compile(piece.text, options), "i" in letters
    except re.error as exc:
        raise translator.refuse(f"this pattern ({exc})") from None


def matches(pattern: str, text: str) -> bool:
    """``regexp.MatchString``. A case-folding pattern (``(?i)``) folds as RE2 does only on
    ASCII: RE2 also folds K with the Kelvin sign and s with the long s, Python with re.ASCII
    neither, so non-ASCII text or pattern is refused there."""
    compiled, folds = compile_re2(pattern)
    if folds and not (text.isascii() and pattern.isascii()):
        raise PatternUnsupported(
            f"regular expression {pattern!r}: case folding (?i) on non-ASCII text",
            "compare lower(x) with a lower-case pattern instead",
        )
    return compiled.search(text) is not None
