"""Argo CD's languages for notifications: triggers in expr, templates in Go templates.

A configuration brought from ``argocd-notifications-cm`` loads unchanged and means what it
meant there: conditions run as notifications-engine runs them (:mod:`reporters.expr`,
``expr.Compile`` without options, a bool ``true`` fires, ``oncePer`` keyed by ``%v`` of its
value), templates as ``text/template`` with sprig's functions (:mod:`reporters.gotemplate`).
Both see what Argo CD gives them: ``app`` (the whole Application), ``context``, and Argo
CD's ``time``, ``strings`` and ``repo`` helpers; templates also ``.serviceType`` and
``.recipient``. promoflow adds ``event``, the CloudEvent that led to the notification
(``event.type == 'app.deployed'``), which Argo CD's configurations never read.

Both are bounded (steps, output) so that no team's template can hold up the pipeline, and
both are compiled once per text.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from functools import lru_cache
from typing import Any

from orchestrator.sandbox.frozen import freeze
from reporters import expr, gotemplate
from reporters.expr.argocd import trigger_env
from reporters.expr.builtins import system_clock
from reporters.expr.gostruct import ExprStruct
from reporters.expr.operators import GoPanic as ExprPanic
from reporters.expr.values import GoFunc as ExprFunc
from reporters.expr.values import decode_object
from reporters.gotemplate.argocd import argocd_helpers
from reporters.gotemplate.gostruct import GoStruct
from reporters.gotemplate.values import GoPanic
from reporters.notifications.repofns import RepoCallFailed, RepoReadings
from reporters.notifications.reposhapes import Struct

_UNDOTTED = re.compile(
    r'function "(app|context|event|serviceType|recipient|secrets|time|strings|repo)" not defined'
)
EVENT = "event"
"""What promoflow adds to Argo CD's variables: the CloudEvent a notification is about."""


class ExpressionError(ValueError):
    """A condition or template that does not compile (the message says where in it)."""


class RenderError(ValueError):
    """A template or condition refused or stopped while it ran: the message says why."""


@lru_cache(maxsize=1024)
def condition(text: str) -> expr.Program:
    """``text`` compiled as notifications-engine compiles a ``when`` or an ``oncePer``."""
    try:
        return expr.compile(text)
    except expr.ExprError as exc:  # expr's message and position, on one line, and a hint
        hint = f" (hint: {exc.hint})" if exc.hint else ""
        raise ExpressionError(f"{exc.message} ({exc.line}:{exc.column}){hint}") from None


@lru_cache(maxsize=1024)
def template(text: str) -> gotemplate.Template:
    """``text`` parsed as notifications-engine parses a template's field."""
    try:
        return gotemplate.parse(text)
    except gotemplate.TemplateSyntaxError as exc:
        found = _UNDOTTED.search(exc.message)
        if found:  # {{ app.metadata.name }}: Jinja's way, or expr's
            name = found.group(1)
            raise ExpressionError(
                f"{exc.message} (hint: a Go template reads the data's fields with a leading "
                f"dot: {{{{.{name}...}}}}, as in {{{{.app.metadata.name}}}})"
            ) from None
        raise ExpressionError(exc.describe()) from None


def check_expression(text: str) -> None:
    condition(text)


def check_template(text: str) -> None:
    template(text)


@lru_cache(maxsize=1024)
def reads_event(text: str) -> bool:
    """Whether a condition reads ``event``: it is about events, not the app's state."""
    return any(name.path.split(".")[0] == EVENT for name in condition(text).names())


def _repo_calls(
    app: Mapping[str, Any], repo: RepoReadings
) -> tuple[Callable[[str], Struct], Callable[[], Struct]]:
    """``repo.GetCommitMetadata`` and ``repo.GetAppDetails`` of one app: a failure is the
    function's panic (:class:`RepoCallFailed`)."""
    return (lambda sha: repo.commit_metadata(app, sha)), (lambda: repo.app_details(app))


def _panicking(call: Callable[..., Struct], wrap: Callable[[Struct], Any], panic: type) -> Any:
    def run(*args: Any) -> Any:
        try:
            return wrap(call(*args))
        except RepoCallFailed as exc:
            raise panic(str(exc)) from None

    return run


def condition_env(
    app: Mapping[str, Any],
    event: Mapping[str, Any],
    context: Mapping[str, str],
    repo: RepoReadings | None = None,
) -> dict[str, Any]:
    """What a condition sees: Argo CD's variables, and ``event``; ``repo``'s two
    functions when an Argo CD answers them."""
    functions = None
    if repo is not None:
        commit, details = _repo_calls(app, repo)
        functions = {
            "GetCommitMetadata": ExprFunc(
                "GetCommitMetadata", ("string",), "interface {}",
                _panicking(commit, ExprStruct, ExprPanic),
            ),
            "GetAppDetails": ExprFunc(
                "GetAppDetails", (), "interface {}", _panicking(details, ExprStruct, ExprPanic)
            ),
        }  # fmt: skip
    env = trigger_env(app, system_clock, context, functions)
    env[EVENT] = decode_object(event)
    return env


def evaluate(text: str, env: Mapping[str, Any]) -> bool:
    """Whether a ``when`` fires; :class:`RenderError` when it fails to run (Argo CD logs
    it and sends nothing)."""
    try:
        return condition(text).triggered(env)
    except expr.ExprError as exc:
        raise RenderError(str(exc)) from None


def once_per(text: str, env: Mapping[str, Any]) -> str:
    """The ``oncePer`` key: ``%v`` of its value; :class:`RenderError` when it fails."""
    try:
        return expr.go_format(condition(text).run(env))
    except expr.ExprError as exc:
        raise RenderError(str(exc)) from None


def template_data(
    app: Mapping[str, Any],
    event: Mapping[str, Any],
    context: Mapping[str, str],
    service_type: str,
    recipient: str,
    repo: RepoReadings | None = None,
) -> dict[str, Any]:
    """What a template sees, as notifications-engine's ``Send`` gives it, and ``.event``;
    ``repo``'s two functions when an Argo CD answers them."""
    helpers = argocd_helpers()
    if repo is not None:
        commit, details = _repo_calls(app, repo)
        helpers = argocd_helpers(
            get_commit_metadata=_panicking(commit, GoStruct, GoPanic),
            get_app_details=_panicking(details, GoStruct, GoPanic),
        )
    data = {
        "app": app,
        "context": context,
        "serviceType": service_type,
        "recipient": recipient,
        EVENT: event,
        **helpers,
    }
    # read-only: what one template sets (sprig's set, unset, merge) no other one sees
    frozen: dict[str, Any] = freeze(data)
    return frozen


def render(value: Any, data: Mapping[str, Any]) -> Any:
    """A template field rendered: a string, or every string of a block (Argo CD's
    ``slack.attachments``, ``webhook.<name>.body``); :class:`RenderError` when one fails."""
    if isinstance(value, str):
        try:
            return template(value).execute(data)
        except gotemplate.TemplateError as exc:
            raise RenderError(str(exc)) from None
    if isinstance(value, dict):
        return {k: render(v, data) for k, v in value.items()}
    if isinstance(value, list):
        return [render(v, data) for v in value]
    return value
