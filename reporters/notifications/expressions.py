"""Trigger conditions and templates in Jinja2, in a sandbox.

Argo CD Notifications writes conditions in expr and templates in Go templates; promoflow
uses Jinja2, which Python users read at sight, in its sandbox: a template written by any
team cannot reach Python internals or the filesystem. Missing fields are chainable and
falsy (``app.status.operationState.phase`` on an app without an operation is simply
false or empty), as the Go and expr lookups of a missing map key are.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from jinja2 import ChainableUndefined, TemplateSyntaxError, meta
from jinja2.sandbox import SandboxedEnvironment

ENVIRONMENT = SandboxedEnvironment(undefined=ChainableUndefined, autoescape=False)


class ExpressionError(ValueError):
    """A condition or template that does not compile (the message says where in it)."""


def check_expression(text: str) -> None:
    try:
        ENVIRONMENT.compile_expression(text)
    except TemplateSyntaxError as exc:
        raise ExpressionError(f"invalid expression {text!r}: {exc.message}") from None


def check_template(text: str) -> None:
    try:
        ENVIRONMENT.from_string(text)
    except TemplateSyntaxError as exc:
        raise ExpressionError(f"invalid template (line {exc.lineno}): {exc.message}") from None


@lru_cache(maxsize=1024)
def names(text: str) -> frozenset[str]:
    """The variables an expression reads (``event``, ``app``, ``context``)."""
    return frozenset(meta.find_undeclared_variables(ENVIRONMENT.parse("{{ " + text + " }}")))


@lru_cache(maxsize=1024)
def _expression(text: str) -> Any:
    return ENVIRONMENT.compile_expression(text, undefined_to_none=True)


@lru_cache(maxsize=1024)
def _template(text: str) -> Any:
    return ENVIRONMENT.from_string(text)


def evaluate(text: str, context: dict[str, Any]) -> Any:
    """The value of an expression; an expression that fails while evaluated (a type
    error on odd data) is ``None``: a condition that cannot be decided is false."""
    try:
        return _expression(text)(**context)
    except Exception:
        return None


def render(value: Any, context: dict[str, Any]) -> Any:
    """Every string in ``value`` (a template block of nested maps and lists) rendered."""
    if isinstance(value, str):
        if "{" not in value:
            return value
        try:
            return str(_template(value).render(**context))
        except Exception as exc:  # the sandbox refusing, a filter on odd data
            return f"(template error: {type(exc).__name__})"
    if isinstance(value, dict):
        return {k: render(v, context) for k, v in value.items()}
    if isinstance(value, list):
        return [render(v, context) for v in value]
    return value
