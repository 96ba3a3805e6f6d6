"""The helpers Argo CD puts into every template's data: ``time``, ``strings``, ``repo``.

Argo CD v3.2.12 (util/notification/expression) adds them to the *data*, not the function
map, so templates call them with ``call``:
``{{ call .repo.RepoURLToHTTPS .app.spec.source.repoURL }}``,
``{{ (call .time.Parse .app.status.operationState.startedAt).Format "15:04" }}``.
The pure ones are here. ``repo.GetCommitMetadata`` and ``repo.GetAppDetails`` ask Argo CD's repo
server; a caller that can answer passes them in:

* ``get_commit_metadata(sha: str) -> Mapping[str, Any]`` with ``Message``, ``Author``,
  ``Date`` (a :class:`~reporters.gotemplate.gotime.GoTime`) and ``Tags`` (a list of str);
* ``get_app_details() -> Mapping[str, Any]`` with ``Type``, ``Helm``, ``Kustomize``,
  ``Directory``.

``sync.GetInfoItem(app, name)`` is documented in Argo CD's notification functions but not
registered for templates in v3.2.12; it is offered here for configurations that want it,
returning the ``value`` of the named entry in the sync operation's ``info`` list.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any
from urllib.parse import quote_plus

from orchestrator.golang.timelayout import LAYOUTS, RFC3339
from reporters.gotemplate.godurations import HOUR, MINUTE, MS, NS, SECOND, US, Duration
from reporters.gotemplate.gotime import UTC, GoTime, parse_time
from reporters.gotemplate.values import GoFunc, GoPanic

S = "string"
_SCP = re.compile(r"^(?:(?P<user>[^@/]+)@)?(?P<host>[^:/]+):(?!//)(?P<path>.*)$")
_URL = re.compile(
    r"^(?P<scheme>[a-zA-Z][a-zA-Z0-9+.-]*)://(?:(?P<user>[^@/]*)@)?"
    r"(?P<host>[^/?#]*)(?P<path>[^?#]*)(?P<rest>.*)$"
)


def _split_git_url(raw: str) -> tuple[str, str, str, str]:
    """What chainguard-dev/git-urls finds in a Git URL: scheme, host, path, query/fragment."""
    m = _URL.match(raw)
    if m:
        return m.group("scheme"), m.group("host"), m.group("path"), m.group("rest")
    m = _SCP.match(raw)
    if m:
        path = m.group("path")
        return "ssh", m.group("host"), path if path.startswith("/") else "/" + path, ""
    if raw.startswith("/") or raw.startswith("."):
        return "file", "", raw, ""
    raise GoPanic(f"failed to parse URL: {raw}")


def repo_url_to_https(raw: str) -> str:
    """repo.RepoURLToHTTPS: the same repository as an https URL, without credentials."""
    _, host, path, rest = _split_git_url(raw)
    return f"https://{host}{path}{rest}"


def full_name_by_repo_url(raw: str) -> str:
    """repo.FullNameByRepoURL: ``owner/repo`` (the path's first two parts, ``.git`` cut)."""
    _, _, path, _ = _split_git_url(raw)
    path = re.sub(r"\.git$", "", path)
    parts = [p for p in path.split("/") if p]
    if len(parts) >= 2:
        return "/".join(parts[:2])
    return path


def _parse(timestamp: str) -> GoTime:
    return parse_time(RFC3339, timestamp, UTC)


def get_info_item(app: Mapping[str, Any] | None, name: str) -> str:
    """sync.GetInfoItem: the value of the sync operation's ``info`` entry called ``name``."""
    if not isinstance(app, Mapping):
        return ""
    for source in (app.get("operation"), (app.get("status") or {}).get("operationState", {})):
        operation = source.get("operation", source) if isinstance(source, Mapping) else None
        items = operation.get("info") if isinstance(operation, Mapping) else None
        for item in items or []:
            if isinstance(item, Mapping) and item.get("name") == name:
                return str(item.get("value", ""))
    return ""


def argocd_helpers(
    *,
    now: Callable[[], GoTime] | None = None,
    get_commit_metadata: Callable[[str], Any] | None = None,
    get_app_details: Callable[[], Any] | None = None,
    with_sync: bool = False,
) -> dict[str, Any]:
    """The ``time``, ``strings`` and ``repo`` maps (and optionally ``sync``) for the data."""
    from reporters.gotemplate.sprig_dates import now as clock

    time_map: dict[str, Any] = {
        "Parse": GoFunc(_parse, (S,), returns="time.Time", name="Parse"),
        "Now": GoFunc(now or clock, (), returns="time.Time", name="Now"),
        "Nanosecond": Duration(NS),
        "Microsecond": Duration(US),
        "Millisecond": Duration(MS),
        "Second": Duration(SECOND),
        "Minute": Duration(MINUTE),
        "Hour": Duration(HOUR),
        **LAYOUTS,
    }
    strings_map = {
        "ReplaceAll": GoFunc(
            lambda s, old, new: (
                s.replace(old, new) if old else (new + new.join(s) + new if s else new)
            ),
            (S, S, S),
            returns=S,
        ),
        "ToUpper": GoFunc(str.upper, (S,), returns=S),
        "ToLower": GoFunc(str.lower, (S,), returns=S),
    }
    repo_map: dict[str, Any] = {
        "RepoURLToHTTPS": GoFunc(repo_url_to_https, (S,), returns=S),
        "FullNameByRepoURL": GoFunc(full_name_by_repo_url, (S,), returns=S),
        "QueryEscape": GoFunc(lambda s: quote_plus(s, safe="-_.~"), (S,), returns=S),
    }
    if get_commit_metadata is not None:
        repo_map["GetCommitMetadata"] = GoFunc(get_commit_metadata, (S,), returns="interface {}")
    if get_app_details is not None:
        repo_map["GetAppDetails"] = GoFunc(get_app_details, (), returns="interface {}")
    helpers: dict[str, Any] = {"time": time_map, "strings": strings_map, "repo": repo_map}
    if with_sync:
        helpers["sync"] = {
            "GetInfoItem": GoFunc(get_info_item, ("map[string]interface {}", S), returns=S)
        }
    return helpers
