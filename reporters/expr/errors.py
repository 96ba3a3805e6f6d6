"""The errors of expr programs, worded and placed as expr-lang/expr v1.17.7 words them.

expr reports a problem as a ``file.Error``: a message, and where the source is not empty a
``(line:column)`` and a two-line snippet with a caret under the column (tabs shown as
spaces). Positions count runes (code points), as the Go lexer does; the column is 1-based
in the text and 0-based in the dots of the caret line. Keeping that shape lets an operator
compare what promoflow says with what Argo CD logs for the same condition.
"""

from __future__ import annotations

from dataclasses import dataclass

from reporters.expr.hints import hint_for


@dataclass(frozen=True)
class Location:
    """A span of the source in runes, ``start`` inclusive, ``end`` exclusive."""

    start: int
    end: int


def bind(source: str, start: int) -> tuple[int, int, str]:
    """The 1-based line, the 0-based column and expr's snippet for a rune offset."""
    line, column, line_start = 1, 0, 0
    for index, char in enumerate(source):
        if index == start:
            break
        if char == "\n":
            line, column, line_start = line + 1, 0, index + 1
        else:
            column += 1
    end = source.find("\n", line_start)
    text = source[line_start : end if end >= 0 else len(source)]
    if not text:
        return line, column, ""
    snippet = "\n | " + text.replace("\t", " ") + "\n | " + "." * column + "^"
    return line, column, snippet


class ExprError(ValueError):
    """A condition that expr refuses or that failed while it ran."""

    def __init__(self, message: str, source: str, location: Location, hint: str = "") -> None:
        self.message = message
        self.source = source
        self.location = location
        self.line, column, self.snippet = bind(source, location.start)
        self.column = column + 1
        """1-based, as expr prints it."""
        self.hint = hint or hint_for(message, source)
        super().__init__(self.expr_text())

    def expr_text(self) -> str:
        """The error exactly as ``err.Error()`` prints it in Go."""
        if not self.snippet:
            return self.message
        return f"{self.message} ({self.line}:{self.column}){self.snippet}"

    def __str__(self) -> str:
        text = self.expr_text()
        return f"{text}\n(hint: {self.hint})" if self.hint else text


class ExprSyntaxError(ExprError):
    """``expr.Compile`` refuses the text: a lexing, parsing or type error."""


class ExprRuntimeError(ExprError):
    """``expr.Run`` failed: a type mismatch, a bad index, a panic in a function."""


class ExprUnsupported(ExprError):
    """Text this implementation does not evaluate exactly as Go would, so it refuses it
    rather than guess (a regular expression outside the RE2 syntax Python shares, a Go method
    not modelled, ...). The message says what, and the hint what to write instead."""


class BudgetExceeded(ExprRuntimeError):
    """The run took more steps or built larger collections than its budget allows."""
