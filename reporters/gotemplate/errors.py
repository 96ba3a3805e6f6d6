"""What goes wrong with a template, worded as Go words it, with where and what to do.

``str(error)`` is Go's own message (``template: NAME:3: function "foo" not defined``), so
an operator can match it against Argo CD's logs; ``line``, ``column`` and ``hint`` say
where to look and what to write instead.
"""

from __future__ import annotations


class TemplateError(Exception):
    """A template that cannot be parsed or executed."""

    def __init__(self, message: str, *, line: int = 0, column: int = 0, hint: str = "") -> None:
        super().__init__(message)
        self.message = message
        self.line = line
        self.column = column
        self.hint = hint

    def __str__(self) -> str:
        return self.message

    def describe(self) -> str:
        """The message with its hint, for a person reading a configuration error."""
        return f"{self.message} (hint: {self.hint})" if self.hint else self.message


class TemplateSyntaxError(TemplateError):
    """The text is not a valid template (Go's ``Parse`` error)."""


class TemplateExecError(TemplateError):
    """Executing the template failed (Go's ``Execute`` error)."""


class TemplateLimitError(TemplateExecError):
    """Execution went past its step budget or its output cap; Go has no such limit."""
