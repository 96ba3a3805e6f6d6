"""What Argo CD puts beside ``app`` when it runs a trigger (``expression.Spawn`` in
util/notification/expression, v3.2): the ``time`` and ``strings`` namespaces, ``repo``'s
functions that need no API (``QueryEscape``, ``RepoURLToHTTPS``, ``FullNameByRepoURL``), and
``context``. ``repo.GetCommitMetadata`` and ``repo.GetAppDetails`` ask the Argo CD API: a
caller that can ask it passes them in (:mod:`reporters.notifications.repofns`); without
them a condition that calls them fails as calling a missing function does.
Argo CD v3.2 registers no other namespace (no ``sync``); ``secrets`` is added by Argo CD
when self-service notifications are off, and a caller can pass it the same way.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from orchestrator.golang import argocd_repo
from orchestrator.golang.durations import UNIT_NAMES, Duration
from orchestrator.golang.gotime import Time
from orchestrator.golang.timelayout import LAYOUTS, TimeParseError, parse_rfc3339
from reporters.expr.builtin_base import Unsupported
from reporters.expr.builtin_text import b_lower, b_upper
from reporters.expr.operators import GoPanic
from reporters.expr.values import GoFunc, StringMap, decode_object

_UPPER = GoFunc("ToUpper", ("string",), "string", lambda s: _case(s, True))
_LOWER = GoFunc("ToLower", ("string",), "string", lambda s: _case(s, False))


def _case(text: str, upper: bool) -> str:
    return b_upper(text) if upper else b_lower(text)


def _parse(text: str) -> Time:
    """Argo CD's ``time.Parse``: RFC 3339 only, panicking with Go's error."""
    try:
        return parse_rfc3339(text)
    except TimeParseError as exc:
        raise GoPanic(str(exc)) from None


query_escape = argocd_repo.query_escape


def repo_url_to_https(raw: str) -> str:
    """``repo.RepoURLToHTTPS``, refused where Go's rendering is not reproduced."""
    try:
        return argocd_repo.repo_url_to_https(raw)
    except argocd_repo.RepoURLUnsupported as exc:
        raise Unsupported(str(exc), exc.hint) from None


def full_name_by_repo_url(raw: str) -> str:
    """``repo.FullNameByRepoURL``, refused where Go's reading is not reproduced."""
    try:
        return argocd_repo.full_name_by_repo_url(raw)
    except argocd_repo.RepoURLUnsupported as exc:
        raise Unsupported(str(exc), exc.hint) from None


def time_namespace(now: Callable[[], Time]) -> dict[str, Any]:
    names: dict[str, Any] = {
        "Parse": GoFunc("Parse", ("string",), "time.Time", _parse),
        "Now": GoFunc("Now", (), "time.Time", now),
        **{name: Duration(unit) for name, unit in UNIT_NAMES.items()},
    }  # fmt: skip
    names.update(LAYOUTS)
    return names


def strings_namespace() -> dict[str, Any]:
    return {
        "ReplaceAll": GoFunc(
            "ReplaceAll", ("string", "string", "string"), "string",
            lambda s, old, new: s.replace(old, new),
        ),
        "ToUpper": _UPPER,
        "ToLower": _LOWER,
    }  # fmt: skip


def trigger_env(
    app: Mapping[str, Any],
    now: Callable[[], Time],
    context: Mapping[str, str] | None = None,
    repo: Mapping[str, GoFunc] | None = None,
) -> dict[str, Any]:
    """The variables of one trigger run: ``app`` decoded as Kubernetes decodes JSON;
    ``repo``: ``GetCommitMetadata`` and ``GetAppDetails`` when Argo CD can answer them."""
    return {
        "app": decode_object(app),
        "context": StringMap(context or {}),
        "time": time_namespace(now),
        "strings": strings_namespace(),
        "repo": {
            "QueryEscape": GoFunc("QueryEscape", ("string",), "string", query_escape),
            "RepoURLToHTTPS": GoFunc("RepoURLToHTTPS", ("string",), "string", repo_url_to_https),
            "FullNameByRepoURL": GoFunc(
                "FullNameByRepoURL", ("string",), "string", full_name_by_repo_url
            ),
            **(repo or {}),
        },
    }
