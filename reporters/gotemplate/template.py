"""The public face of the package: parse a template once, execute it many times.

``parse`` checks the text as Go's ``template.New(name).Funcs(f).Parse(text)`` does in
notifications-engine, with the same function map by default (Go's builtins and sprig's,
without ``env`` and ``expandenv``); ``Template.execute`` runs it over data as
``Execute`` does; ``Template.references`` lists, without running anything, every field path
and function a template uses, so a configuration can be checked when it is loaded.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from reporters.gotemplate.builtins import BUILTINS
from reporters.gotemplate.errors import TemplateExecError, TemplateSyntaxError
from reporters.gotemplate.executor import Executor, Limits
from reporters.gotemplate.gofmt import Spec, format_value
from reporters.gotemplate.lexer import byte_column
from reporters.gotemplate.nodes import ListNode
from reporters.gotemplate.parser import Parser
from reporters.gotemplate.references import Reference, collect_references
from reporters.gotemplate.sprig import sprig_funcs

Funcs = Mapping[str, Callable[..., Any]]
DEFAULT_LIMITS = Limits()


@dataclass(frozen=True)
class Template:
    """A parsed template: its name, its text, its named trees and its functions."""

    name: str
    text: str
    trees: Mapping[str, ListNode]
    funcs: Funcs
    limits: Limits = DEFAULT_LIMITS

    def execute(self, data: Any, *, funcs: Funcs | None = None) -> str:
        """Render over ``data``; raises TemplateExecError (Go's wording) or TemplateLimitError.

        ``funcs`` may replace the implementations of functions known at parse time (to
        inject a clock, say); it cannot add names, as in Go.
        """
        merged = dict(self.funcs)
        if funcs:
            unknown = sorted(set(funcs) - set(merged) - set(BUILTINS))
            if unknown:
                raise ValueError(f"functions not known when the template was parsed: {unknown}")
            merged.update(funcs)
        executor = Executor(
            name=self.name, text=self.text, trees=self.trees, funcs=merged, limits=self.limits
        )
        try:
            return executor.execute(data)
        except TemplateExecError as exc:
            secrets = secret_texts(data)
            if not secrets:
                raise
            raise _redacted(exc, secrets) from None

    def references(self) -> Iterator[Reference]:
        """Each field path and function the template uses, with its line and column."""
        for ref in collect_references(self.trees, self.name):
            line, col = byte_column(self.text, ref.pos)
            yield Reference(ref.kind, ref.path, line, col + 1, ref.pos)


def secret_texts(data: Any) -> list[str]:
    """How the values of ``.secrets`` could appear in a message (as text or as Go bytes)."""
    secrets = data.get("secrets") if isinstance(data, Mapping) else None
    if not isinstance(secrets, Mapping):
        return []
    texts: list[str] = []
    for value in secrets.values():
        if isinstance(value, bytes | bytearray):
            texts.append(bytes(value).decode("utf-8", "replace"))
            texts.append(format_value(bytes(value), Spec()))
        elif isinstance(value, str):
            texts.append(value)
    return sorted((t for t in texts if len(t) >= 3), key=len, reverse=True)


def _redacted(exc: TemplateExecError, secrets: list[str]) -> TemplateExecError:
    """The same error with every secret value replaced: secrets never reach a log."""
    message = exc.message
    for secret in secrets:
        message = message.replace(secret, "<redacted>")
    return type(exc)(message, line=exc.line, column=exc.column, hint=exc.hint)


def default_funcs() -> dict[str, Callable[..., Any]]:
    """The function map notifications-engine gives every template."""
    return dict(sprig_funcs())


def parse(
    text: str,
    *,
    name: str = "",
    funcs: Funcs | None = None,
    limits: Limits | None = None,
) -> Template:
    """Parse ``text`` as Go's text/template with notifications-engine's functions.

    ``funcs`` are added to (and override) sprig's. Raises TemplateSyntaxError with Go's
    message, the line and byte column, and a hint.
    """
    all_funcs: dict[str, Callable[..., Any]] = default_funcs()
    if funcs:
        all_funcs.update(funcs)

    def has_function(fn: str) -> bool:
        return fn in all_funcs or fn in BUILTINS

    trees = Parser(name, text, has_function).parse()
    return Template(name, text, trees, all_funcs, limits or Limits())


__all__ = ["Template", "TemplateSyntaxError", "default_funcs", "parse"]
