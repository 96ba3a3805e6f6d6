"""Trigger conditions and templates in Jinja2, in a sandbox with limits.

Argo CD Notifications writes conditions in expr and templates in Go templates; promoflow
uses Jinja2, which Python users read at sight, in its sandbox: a template written by any
team cannot reach Python internals or the filesystem, cannot change what another
notification sees, and cannot hold up the pipeline (:mod:`orchestrator.sandbox`). Missing
fields are chainable and falsy (``app.status.operationState.phase`` on an app without an
operation is simply false or empty), as the Go and expr lookups of a missing map key are.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from jinja2 import ChainableUndefined, TemplateSyntaxError, meta
from jinja2.exceptions import SecurityError

from orchestrator.sandbox.environment import BoundedEnvironment
from orchestrator.sandbox.frozen import freeze

ENVIRONMENT = BoundedEnvironment(undefined=ChainableUndefined, autoescape=False)


class ExpressionError(ValueError):
    """A condition or template that does not compile (the message says where in it)."""


class RenderError(ValueError):
    """A template or condition refused or stopped while it ran: the message says why."""


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


def frozen(context: dict[str, Any]) -> dict[str, Any]:
    """A read-only copy of what templates and conditions are given: each of them may read
    it, none can change it for the next."""
    return {name: freeze(value) for name, value in context.items()}


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
    error on odd data) is ``None``: a condition that cannot be decided is false. One that
    the sandbox refuses or stops raises :class:`RenderError`: that is a mistake in it, to
    be told."""
    try:
        with ENVIRONMENT.bounded():
            return _expression(text)(**context)
    except SecurityError as exc:
        raise RenderError(str(exc)) from None
    except Exception:
        return None


def render(value: Any, context: dict[str, Any]) -> Any:
    """Every string in ``value`` (a template block of nested maps and lists) rendered;
    :class:`RenderError` if any of them fails: nothing is sent half-rendered."""
    if isinstance(value, str):
        if "{" not in value:
            return value
        try:
            return ENVIRONMENT.render(_template(value), context)
        except SecurityError as exc:  # the sandbox refusing: its own words
            raise RenderError(str(exc)) from None
        except Exception as exc:  # a filter on odd data: its words may quote the data
            raise RenderError(f"failed with {type(exc).__name__}") from None
    if isinstance(value, dict):
        return {k: render(v, context) for k, v in value.items()}
    if isinstance(value, list):
        return [render(v, context) for v in value]
    return value
