"""What Argo CD means by the parts of an Application that promoflow reads.

The deploy gate reads Applications and the Argo CD simulator writes them; if each had its
own idea of "the sources of an app", "automated sync" or "the same repository", a mistake
in one would be mirrored by the other and no test would see it. Both use these functions
instead, and each one follows the rule Argo CD itself applies (named in its docstring), so
they can be checked against Argo CD's behaviour on their own.

Pure functions and constants: no I/O, nothing imported beyond the standard library.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime
from typing import Any

GROUP, VERSION, PLURAL = "argoproj.io", "v1alpha1", "applications"
"""The Application custom resource (``applications.argoproj.io/v1alpha1``)."""
API_VERSION = f"{GROUP}/{VERSION}"
REFRESH_ANNOTATION = "argocd.argoproj.io/refresh"
IN_CLUSTER_SERVER = "https://kubernetes.default.svc"
IN_CLUSTER_NAME = "in-cluster"
"""Set to ``normal`` or ``hard`` on an Application to ask the controller for a refresh."""

_TIME_FORMAT = "%Y-%m-%dT%H:%M:%SZ"
_SCP_LIKE = re.compile(r"^(ssh://)?([^/:]*?)@[^@]+$")
"""Argo CD's ``sshURLRegex``: ``user@host:path`` or ``ssh://user@host/path``."""


def sources(app: dict[str, Any]) -> list[dict[str, Any]]:
    """The sources an app deploys: ``spec.sources`` when it has any, else the one
    ``spec.source`` (Argo CD's ``ApplicationSpec.GetSources``); an empty ``sources`` list
    does not make an app multi-source."""
    spec = app.get("spec") or {}
    return list(spec.get("sources") or ([spec["source"]] if spec.get("source") else []))


def is_multi_source(app: dict[str, Any]) -> bool:
    """Whether status fields come in the plural form (``revisions``, ``sources``), as
    Argo CD's ``HasMultipleSources``: a non-empty ``spec.sources``."""
    return bool((app.get("spec") or {}).get("sources"))


def deploys_in_cluster(app: dict[str, Any]) -> bool:
    """The app's destination is the cluster Argo CD itself runs in (``server:
    https://kubernetes.default.svc`` or ``name: in-cluster``, Argo CD's built-in names)."""
    destination = (app.get("spec") or {}).get("destination") or {}
    server = str(destination.get("server") or "").rstrip("/")
    return server == IN_CLUSTER_SERVER or (
        not server and destination.get("name") == IN_CLUSTER_NAME
    )


def destination_of(app: dict[str, Any]) -> str:
    """The app's destination cluster as written (its server, else its name)."""
    destination = (app.get("spec") or {}).get("destination") or {}
    return str(destination.get("server") or destination.get("name") or "")


def is_automated(app: dict[str, Any]) -> bool:
    """Whether the controller syncs the app on its own.

    Argo CD tests ``syncPolicy.automated != nil``: the presence of the block turns
    automated sync on, and its fields (``prune``, ``selfHeal``) only tune it. So
    ``automated: {}`` is automated; a missing or ``null`` block is manual (``false`` is
    not valid in the schema and is read as manual too).
    """
    policy = (app.get("spec") or {}).get("syncPolicy") or {}
    automated = policy.get("automated")
    return automated is not None and automated is not False


def parse_time(value: Any) -> datetime | None:
    """A timestamp as Argo CD writes them (RFC 3339, ``Z``; fractions allowed), aware and in
    UTC; ``None`` when missing or unreadable. One without an offset is taken as UTC, the
    only zone Kubernetes writes, so it still compares with the others."""
    if not value:
        return None
    try:
        moment = datetime.fromisoformat(str(value).replace("Z", "+00:00"))
    except ValueError:
        return None
    return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment.astimezone(UTC)


def format_time(moment: datetime) -> str:
    """``moment`` as Kubernetes serialises ``metav1.Time``: whole seconds, UTC, ``Z``
    (``2024-05-01T12:00:00Z``); a naive ``moment`` is taken as UTC."""
    aware = moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment.astimezone(UTC)
    return aware.strftime(_TIME_FORMAT)


def normalize_repo_url(url: str) -> str:
    """A repository URL in the form Argo CD compares them (its ``git.NormalizeGitURL``):
    trimmed and lowercased, without a trailing ``/`` or ``.git``; an scp-like SSH address
    (``git@host:org/repo``) and its ``ssh://`` form both become ``git@host/org/repo``.

    So ``https://Git.Example.com/acme/GitOps.git/`` and ``https://git.example.com/acme/gitops``
    name the same repository, as they do for Argo CD.
    """
    repo = url.strip().lower()
    if _SCP_LIKE.match(repo) and not repo.startswith("ssh://"):
        repo = "ssh://" + repo.replace(":", "/", 1)
    repo = repo.rstrip("/").removesuffix(".git").rstrip("/")
    return repo.removeprefix("ssh://")


def same_repo(left: str, right: str) -> bool:
    """Whether two repository URLs name one repository (Argo CD's ``git.SameURL``); an
    empty URL is the same as nothing."""
    a, b = normalize_repo_url(left), normalize_repo_url(right)
    return bool(a) and a == b


def health_details(
    nodes: list[dict[str, Any]],
    status: str = "Degraded",
    limit: int = 3,
    *,
    explained_only: bool = False,
) -> str:
    """Why an app is ``status`` (Degraded, Suspended...), from its resources in that state:
    ``Deployment shop/web: <message>``.

    Argo CD 3 keeps no message on the app's health and no health on ``status.resources``
    by default; the resource tree (``/api/v1/applications/NAME/resource-tree``) holds it.
    Older servers, and the Kubernetes API path, have it on ``status.resources``. Both list
    resource nodes of the same shape (kind, namespace, name, health). ``explained_only``:
    only resources whose health says why (Argo CD 3 keeps a health status without its
    message on ``status.resources``: naming them would hide that the reason is elsewhere)."""
    found = []
    for node in nodes:
        health = node.get("health") or {}
        if health.get("status") != status or (explained_only and not health.get("message")):
            continue
        where = "/".join(p for p in (node.get("namespace"), node.get("name")) if p)
        text = f"{node.get('kind') or 'resource'} {where}".strip()
        found.append(f"{text}: {health['message']}" if health.get("message") else text)
    more = f" (and {len(found) - limit} more)" if len(found) > limit else ""
    return "; ".join(found[:limit]) + more


def unsettled(app: dict[str, Any]) -> str:
    """Why ``app``'s status cannot be trusted yet, or ``""`` when it can.

    Argo CD writes an operation's result before the controller has compared the app again
    (``reconciledAt``): until then its sync and health describe the state before the sync.
    A status is trusted only once no operation runs, the last one has finished, and the
    app was reconciled after it finished. The deploy gate and the reporters decide alike.
    """
    status = app.get("status") or {}
    op = status.get("operationState") or {}
    if app.get("operation") or op.get("phase") in ("Running", "Terminating"):
        return "sync operation in progress"
    finished = parse_time(op.get("finishedAt"))
    if op and finished is None:
        return "last sync operation has not finished"
    reconciled = parse_time(status.get("reconciledAt"))
    if finished is not None and (reconciled is None or reconciled < finished):
        return "status not reconciled since the sync finished"
    return ""
