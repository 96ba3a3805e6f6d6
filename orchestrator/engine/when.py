"""``when`` on DAG tasks and steps: a documented subset, evaluated exactly as Argo does.

Argo (``shouldExecute`` in ``workflow/controller/steps.go``, v4.0.5) substitutes ``{{...}}``
into the text, parses it with govaluate (``v3.0.1-0.20250325060307-7625b7f8c03d``), turns
every bare word into a string and evaluates it without parameters. This module evaluates the
subset below with that library's results and error messages (checked against vectors the
real library produced: ``tests/vectors/govaluate``) and refuses the rest with
:class:`WhenRefused`, naming the construct: before the run for the text as written
(:func:`check_when`, where a reference stands for any value), and as an Error node when a
substituted value leads outside the subset.

Supported, with govaluate's meaning:

* bare words ``YES``, ``v2`` (ASCII letters, digits, ``_``; first a letter) and quoted text
  ``'a b'``/``"a b"`` (``\\`` keeps the next character): strings; ``true``, ``false``;
  decimal numbers ``7``, ``1.5``, ``.5``, also after a ``-``: float64; parentheses;
* ``== !=``: same type and value; ``< <= > >=``: two numbers, or two strings (byte order);
* ``=~ !~`` with a quoted or bare-word pattern (syntax: :mod:`.re2subset`): RE2 search in a
  string; ``x in (a, b)``: equal to one of the values;
* ``&& ||`` between booleans, short-circuiting; ``!`` before ``true``/``false``, a number or
  a parenthesis.

Refused: quoted text govaluate may read as a date or time (``'2024-01-02'``, ``'3:04PM'``,
``'Mon Jan 2 ...'``: a number for it), hex ``0x1F``, exponents ``1e5``, digits glued to
letters, chained comparisons ``a == b == c``, ``a.b`` outside quotes (a field access),
``[name]``, arithmetic ``+ - * / % **`` (unquoted ``release-1.2`` is a subtraction), bitwise
``& | ^ << >> ~``, ternary ``? :`` and ``??``, any other run of symbols (``&&!``, ``==-1``,
``=``: one invalid token for govaluate), ``\\`` or non-ASCII outside quotes, functions, and
malformed text.

Type errors (``abc > 5``, ``5 && true``), a result that is not a boolean and a text of only
spaces end the node in Error with Argo's message; an empty text runs the node.
"""

from __future__ import annotations

import re
import string
from dataclasses import dataclass
from typing import Any, NoReturn

from orchestrator.engine.errors import EngineError
from orchestrator.engine.gotext import go_value_text
from orchestrator.engine.re2subset import PatternError, compile_re2

__all__ = ["WhenError", "WhenRefused", "check_when", "should_execute"]

HOLE = "\ue000"
"""Stands for a ``{{...}}`` reference while :func:`check_when` reads the written text."""
_REFERENCE = re.compile(r"\{\{.*?\}\}", re.DOTALL)
_SPACE = frozenset(" \t\n\r\v\f")
_LETTERS = frozenset(string.ascii_letters)
_WORD = frozenset(string.ascii_letters + string.digits + "_.")
_NUMBER = frozenset(string.digits + ".")
_SYMBOL = frozenset(string.punctuation) - frozenset("()[]'\"\\")
_DECIMAL = re.compile(r"[0-9]{1,30}(\.[0-9]{0,30})?|\.[0-9]{1,30}")
_DATE = re.compile(
    r"\s*(?:[+-]?[0-9]{3,4}-[0-9]|[0-9]{1,2}:[0-9]|(?:sun|mon|tue|wed|thu|fri|sat)\s)",
    re.IGNORECASE,
)
"""A superset of what govaluate's ``tryParseTime`` layouts accept: such text is refused."""
MAX_TOKENS, MAX_DEPTH = 400, 50
"""Longer or deeper text is refused (it would only exhaust Python's recursion)."""
_COMPARATORS = frozenset({"==", "!=", "<", "<=", ">", ">="})
_MATCHERS = frozenset({"=~", "!~"})
_OPERATORS = _COMPARATORS | _MATCHERS | {"&&", "||", "!", "-"}
_REFUSED = {
    **dict.fromkeys(("+", "*", "/", "%", "**"), "arithmetic"),
    **dict.fromkeys(("&", "|", "^", "<<", ">>", "~"), "the bitwise operator"),
    **dict.fromkeys(("?", ":"), "the ternary operator"),
    "??": "the coalescing operator",
}
LOGICAL_ERROR = "Value '{}' cannot be used with the logical operator '{}', it is not a bool"
COMPARATOR_ERROR = "Value '{}' cannot be used with the comparator '{}', it is not a number"
PREFIX_ERROR = "Value '{}' cannot be used with the prefix '{}'"


class WhenError(EngineError):
    """Argo would end the node in Error; the message is Argo's."""


class WhenRefused(WhenError):
    """The text is outside the subset this module evaluates exactly; the message names the
    construct and the expression."""


class _Failure(Exception):
    """govaluate's evaluation error (Argo wraps it)."""


@dataclass(frozen=True)
class _Token:
    kind: str
    """``value`` (a literal), ``op`` (operator text, ``in`` included), ``(``, ``)``, ``,``."""
    value: str | float | bool
    hole: bool = False
    """Template text: the value comes from a reference (its type is unknown)."""


@dataclass(frozen=True)
class _Node:
    op: str
    """``lit``, ``!``, ``in``, ``=~``, ``!~``, ``&&``, ``||`` or a comparator."""
    args: tuple[Any, ...]
    """The operands (nodes); a value for ``lit``, a compiled pattern for ``=~``/``!~``."""


class _Reader:
    """Tokens, then a tree by recursive descent (``||`` < ``&&`` < comparisons < operands);
    :class:`WhenRefused` for anything outside the subset."""

    def __init__(self, text: str, shown: str, template: bool) -> None:
        self.text, self.shown, self.template = text, shown, template
        self.letters = _LETTERS | {HOLE} if template else _LETTERS
        self.tokens = self.tokenize()
        self.pos = self.depth = 0
        if len(self.tokens) > MAX_TOKENS:
            self.refuse(f"more than {MAX_TOKENS} tokens")

    def refuse(self, what: str) -> NoReturn:
        what = what.replace(HOLE, "{{...}}")
        raise WhenRefused(f"cannot evaluate when '{self.shown}' locally: {what}")

    # -- tokens ------------------------------------------------------------------------------

    def tokenize(self) -> list[_Token]:
        """Split as govaluate's lexer splits the text of the subset (a run of symbols is one
        token, a word runs on over digits, ``_`` and ``.``)."""
        text, pos, out = self.text, 0, list[_Token]()
        while pos < len(text):
            char, end = text[pos], pos + 1
            if char in "'\"":
                end = self.quoted(pos, out)
            elif char in "(),":
                out.append(_Token(char, char))
            elif char in _NUMBER:
                end = self.scan(pos, _NUMBER)
                out.append(self.number(text[pos:end], text[end : end + 1]))
            elif char in self.letters:
                end = self.scan(pos, self.letters | _WORD)
                out.append(self.word(text[pos:end]))
            elif char in _SYMBOL:
                end = self.scan(pos, _SYMBOL)
                out.append(self.symbols(text[pos:end]))
            elif char not in _SPACE:
                self.refuse(f"the character {char!r} outside quotes")
            pos = end
        return out

    def scan(self, pos: int, chars: frozenset[str]) -> int:
        while pos < len(self.text) and self.text[pos] in chars:
            pos += 1
        return pos

    def quoted(self, pos: int, out: list[_Token]) -> int:
        """govaluate ends a string at either quote; ``\\`` keeps the next character."""
        text, start, chars = self.text, pos, []
        pos += 1
        while pos < len(text) and text[pos] not in "'\"":
            if text[pos] == "\\":
                if pos + 1 == len(text):
                    self.refuse("a backslash at the end of the text")
                pos += 1
            chars.append(text[pos])
            pos += 1
        if pos == len(text):
            self.refuse(f"an unclosed string {text[start:]}")
        if text[pos] != text[start]:
            self.refuse(f"a string opened with {text[start]} and closed with {text[pos]}")
        value = "".join(chars)
        hole = self.template and HOLE in value
        if not hole and _DATE.match(value):
            self.refuse(f"the quoted text '{value}', which govaluate reads as a date")
        out.append(_Token("value", value, hole=hole))
        return pos + 1

    def number(self, raw: str, following: str) -> _Token:
        if following and following in self.letters | _WORD:
            self.refuse(f"'{raw}{following}' (hex, exponents, digits glued to letters)")
        if not _DECIMAL.fullmatch(raw):
            self.refuse(f"the number '{raw}'")
        return _Token("value", float(raw))

    def word(self, word: str) -> _Token:
        if "." in word:
            self.refuse(f"'{word}' (a dot outside quotes is a field access in govaluate)")
        if word in ("in", "IN"):
            return _Token("op", "in")
        if word in ("true", "false"):
            return _Token("value", word == "true")
        return _Token("value", word, hole=HOLE in word)

    def symbols(self, run: str) -> _Token:
        if run in _OPERATORS:
            return _Token("op", run)
        if run in _REFUSED:
            self.refuse(f"{_REFUSED[run]} '{run}'")
        self.refuse(f"'{run}', which govaluate reads as one unknown operator")

    # -- tree --------------------------------------------------------------------------------

    def peek(self) -> _Token | None:
        return self.tokens[self.pos] if self.pos < len(self.tokens) else None

    def next(self, wanted: str) -> _Token:
        token = self.peek()
        if token is None:
            self.refuse(f"the text ends where {wanted} should follow")
        self.pos += 1
        return token

    def take(self, kind: str, *values: str) -> _Token | None:
        token = self.peek()
        if token is None or token.kind != kind or (values and token.value not in values):
            return None
        self.pos += 1
        return token

    def unexpected(self, token: _Token, wanted: str) -> NoReturn:
        shown = go_value_text(token.value) if token.kind == "value" else str(token.value)
        if token.kind == "op" and token.value == "-":
            self.refuse("arithmetic '-' (unquoted, release-1.2 is a subtraction)")
        self.refuse(f"'{shown}' where {wanted} should be")

    def parse(self) -> _Node | None:
        if not self.tokens:
            return None
        node = self.disjunction()
        token = self.peek()
        if token is not None:
            self.unexpected(token, "an operator or the end")
        return node

    def disjunction(self) -> _Node:
        node = self.conjunction()
        while self.take("op", "||"):
            node = _Node("||", (node, self.conjunction()))
        return node

    def conjunction(self) -> _Node:
        node = self.comparison()
        while self.take("op", "&&"):
            node = _Node("&&", (node, self.comparison()))
        return node

    def comparison(self) -> _Node:
        left = self.operand()
        token = self.take("op", *_COMPARATORS, *_MATCHERS, "in")
        if token is None:
            return left
        op = str(token.value)
        if op in _MATCHERS:
            node = _Node(op, (left, self.pattern(op)))
        elif op == "in":
            node = _Node("in", (left, *self.items()))
        else:
            node = _Node(op, (left, self.operand()))
        if self.take("op", *_COMPARATORS, *_MATCHERS, "in"):
            self.refuse("a chained comparison (a == b == c)")
        return node

    def operand(self) -> _Node:
        token = self.next("a value")
        if token.kind == "value":
            return _Node("lit", (token.value,))
        if token.kind == "(":
            return self.group()
        if token.kind == "op" and token.value == "-":
            return self.negative()
        if token.kind != "op" or token.value != "!":
            self.unexpected(token, "a value")
        token = self.next("a value after '!'")
        if token.kind == "(":
            return _Node("!", (self.group(),))
        if token.kind == "value" and (token.hole or not isinstance(token.value, str)):
            return _Node("!", (_Node("lit", (token.value,)),))
        if token.kind == "value":
            self.refuse(f"'!' before the text '{token.value}' (govaluate refuses it)")
        self.unexpected(token, "true, false, a number or '(' after '!'")

    def group(self) -> _Node:
        self.depth += 1
        if self.depth > MAX_DEPTH:
            self.refuse(f"parentheses nested deeper than {MAX_DEPTH}")
        node = self.disjunction()
        if not self.take(")"):
            self.refuse("an unclosed '('")
        self.depth -= 1
        return node

    def negative(self) -> _Node:
        token = self.next("a number after '-'")
        if token.kind == "value" and token.hole:
            return _Node("lit", (0.0,))
        if token.kind == "value" and isinstance(token.value, float):
            return _Node("lit", (-token.value,))
        self.refuse("'-' before something other than a number")

    def pattern(self, op: str) -> re.Pattern[str] | None:
        token = self.next(f"a pattern after '{op}'")
        if token.kind != "value" or not isinstance(token.value, str):
            self.refuse(f"'{op}' without a quoted or bare-word pattern on its right")
        if token.hole:
            return None  # known once substituted
        try:
            return compile_re2(token.value)
        except PatternError as exc:
            self.refuse(str(exc))

    def items(self) -> list[_Node]:
        if not self.take("("):
            self.refuse("'in' without a parenthesised list of values")
        items = [self.item()]
        while self.take(","):
            items.append(self.item())
        if not self.take(")"):
            self.refuse("an 'in' list that is not values separated by ','")
        return items

    def item(self) -> _Node:
        if self.take("op", "-"):
            return self.negative()
        token = self.next("a value in the 'in' list")
        if token.kind != "value":
            self.unexpected(token, "a value of the 'in' list")
        return _Node("lit", (token.value,))


def _check(ok: bool, message: str, value: object, symbol: str) -> None:
    if not ok:
        raise _Failure(message.format(go_value_text(value), symbol))


def _same(left: object, right: object) -> bool:
    """``reflect.DeepEqual`` (and ``==`` on interfaces) for strings, float64 and bools."""
    return type(left) is type(right) and left == right


def _evaluate(node: _Node) -> Any:
    """govaluate's order: the left side, a short-circuit, the right side, then the type
    checks (left before right); an error's value is the left side unless only the right
    side is checked (``!``, ``in``)."""
    op, args = node.op, node.args
    if op == "lit":
        return args[0]
    if op == "!":
        value = _evaluate(args[0])
        _check(isinstance(value, bool), PREFIX_ERROR, value, "!")
        return not value
    left = _evaluate(args[0])
    if op in _MATCHERS:
        _check(isinstance(left, str), COMPARATOR_ERROR, left, op)
        return (args[1].search(left) is None) == (op == "!~")
    if op == "in":
        items = [_evaluate(item) for item in args[1:]]
        _check(len(items) > 1, COMPARATOR_ERROR, items[0], "in")  # (a) is no list
        return any(_same(left, item) for item in items)
    if (op == "&&" and left is False) or (op == "||" and left is True):
        return left
    right = _evaluate(args[1])
    if op in ("&&", "||"):
        _check(isinstance(left, bool), LOGICAL_ERROR, left, op)
        _check(isinstance(right, bool), LOGICAL_ERROR, right, op)
        return right  # the left side did not decide
    if op in ("==", "!="):
        return _same(left, right) == (op == "==")
    comparable = type(left) is type(right) and isinstance(left, str | float)
    _check(comparable, COMPARATOR_ERROR, left, op)
    ordered = {"<": left < right, "<=": left <= right, ">": left > right, ">=": left >= right}
    return ordered[op]


def should_execute(text: str) -> bool:
    """Argo's ``shouldExecute`` on substituted text: run the node or not. :class:`WhenError`
    carries Argo's message for the node it marks Error (:class:`WhenRefused`: ours, for a
    text outside the subset)."""
    if text == "":
        return True
    tree = _Reader(text, text, template=False).parse()
    if tree is None:
        raise WhenError(f"Invalid 'when' expression '{text}': Unexpected end of expression")
    try:
        value = _evaluate(tree)
    except _Failure as exc:
        raise WhenError(f"Failed to evaluate 'when' expresion '{text}': {exc}") from None
    if not isinstance(value, bool):
        raise WhenError(f"Expected boolean evaluation for '{text}'. Got {go_value_text(value)}")
    return value


def check_when(text: str) -> None:
    """Refuse (:class:`WhenRefused`), before a run, a ``when`` whose written text is outside
    the subset whatever its references hold; each ``{{...}}`` stands for any value and the
    substituted text is checked again when the node is reached."""
    _Reader(_REFERENCE.sub(HOLE, text), text, template=True).parse()
