"""The helpers Argo CD puts into every template's data: ``time``, ``strings``, ``repo``.

Argo CD v3.2.12 (util/notification/expression) adds them to the *data*, not the function
map, so templates call them with ``call``:
``{{ call .repo.RepoURLToHTTPS .app.spec.source.repoURL }}``,
``{{ (call .time.Parse .app.status.operationState.startedAt).Format "15:04" }}``.
The pure ones are here. ``repo.GetCommitMetadata`` and ``repo.GetAppDetails`` ask Argo CD's repo
server; a caller that can answer passes them in:

* ``get_commit_metadata(sha: str)`` giving Argo CD's ``shared.CommitMetadata``
  (``Message``, ``Author``, ``Date``, ``Tags``);
* ``get_app_details()`` giving ``shared.AppDetail`` (``Type``, ``Helm``, ``Kustomize``,
  ``Directory``),

as :class:`~reporters.gotemplate.gostruct.GoStruct` values
(:mod:`reporters.notifications.repofns` makes them from the Argo CD API's answers).

``sync.GetInfoItem(app, name)`` is documented in Argo CD's notification functions but not
registered for templates in v3.2.12; it is offered here for configurations that want it,
returning the ``value`` of the named entry in the sync operation's ``info`` list.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from orchestrator.golang import argocd_repo
from orchestrator.golang.durations import UNIT_NAMES
from orchestrator.golang.timelayout import LAYOUTS, RFC3339
from reporters.gotemplate.godurations import Duration
from reporters.gotemplate.gotime import UTC, GoTime, parse_time
from reporters.gotemplate.values import GoFunc, GoPanic

S = "string"


def _repo_function(function: Callable[[str], str]) -> Callable[[str], str]:
    """An Argo CD repo function; a URL whose Go rendering is not reproduced panics, saying
    what to write instead, rather than printing a different URL."""

    def call(raw: str) -> str:
        try:
            return function(raw)
        except argocd_repo.RepoURLUnsupported as exc:
            raise GoPanic(f"{exc} is not supported: {exc.hint}") from None

    return call


repo_url_to_https = _repo_function(argocd_repo.repo_url_to_https)
full_name_by_repo_url = _repo_function(argocd_repo.full_name_by_repo_url)


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
        **{name: Duration(unit) for name, unit in UNIT_NAMES.items()},
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
        "QueryEscape": GoFunc(argocd_repo.query_escape, (S,), returns=S),
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
