"""The repo server's readings as the Argo CD API server relays them: a revision's metadata
and an app source's details, which Argo CD's notification functions
(``repo.GetCommitMetadata``, ``repo.GetAppDetails``) ask for.

Answered in upstream's shapes (``v1alpha1RevisionMetadata``, ``RepoAppDetailsResponse``)
and refused as the API server refuses: a missing app as every app route does (403 unless
a project is named), an app details request for a project or source that is not the
app's with 403 ``permission denied``, a body without a source with 400. The simulator
reads no repository: a test or demo says what a commit holds (:meth:`add_commit`) and what
a source is (:meth:`set_app_details`); a source nobody described is read by its fields
(a ``chart`` or ``helm`` block: Helm; ``kustomize``: Kustomize; else a directory, which
the real server answers with its type alone).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any
from urllib.parse import unquote

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from orchestrator.argocd_shapes import normalize_repo_url, sources

App = dict[str, Any]
UNKNOWN = 2
"""gRPC's Unknown: what the repo server's plain errors become (HTTP 500)."""


def default_details(source: dict[str, Any]) -> dict[str, Any]:
    """What the repo server reads in a source nobody described."""
    if source.get("chart") or "helm" in source:
        name = str(source.get("chart") or source.get("path", "").rsplit("/", 1)[-1])
        return {"type": "Helm", "helm": {"name": name, "valueFiles": ["values.yaml"]}}
    if "kustomize" in source:
        return {"type": "Kustomize", "kustomize": {}}
    return {"type": "Directory"}


class RepoReadings:
    """The two routes, mixed into the simulator's API server (which gives ``_guard``,
    ``_missing``, ``app`` and the error body)."""

    _lock: threading.RLock
    _guard: Callable[[Request], Response | None]
    _missing: Callable[[Request, str], Response]
    app: Callable[[str], App | None]

    def _init_repo_readings(self) -> None:
        self.commits: dict[tuple[str, str], dict[str, Any]] = {}
        self.details: dict[tuple[str, str], dict[str, Any]] = {}

    def add_commit(
        self,
        repo_url: str,
        sha: str,
        *,
        author: str,
        message: str,
        date: str,
        tags: list[str] | None = None,
    ) -> None:
        """What the repository holds at ``sha`` (``date``: RFC 3339, as Argo CD sends it)."""
        meta: dict[str, Any] = {"author": author, "date": date, "message": message}
        if tags:
            meta["tags"] = list(tags)
        with self._lock:
            self.commits[(normalize_repo_url(repo_url), sha)] = meta

    def set_app_details(self, repo_url: str, path: str, details: dict[str, Any]) -> None:
        """The ``RepoAppDetailsResponse`` for the source at ``repo_url`` and ``path``."""
        with self._lock:
            self.details[(normalize_repo_url(repo_url), path)] = details

    async def _revision_metadata(self, request: Request) -> Response:
        from orchestrator.simulator.argocd.api import grpc_error

        if (refused := self._guard(request)) is not None:
            return refused
        name, revision = request.path_params["name"], request.path_params["revision"]
        app = self.app(name)
        if app is None:
            return self._missing(request, name)
        found = sources(app)
        repo = normalize_repo_url(str(found[0].get("repoURL", ""))) if found else ""
        with self._lock:
            meta = self.commits.get((repo, revision))
        if meta is None:
            return grpc_error(500, f"revision {revision} not found", code=UNKNOWN)
        return JSONResponse(meta)

    async def _app_details(self, request: Request) -> Response:
        from orchestrator.simulator.argocd.api import grpc_error

        if (refused := self._guard(request)) is not None:
            return refused
        try:
            body = await request.json()
        except ValueError:
            body = None
        source = body.get("source") if isinstance(body, dict) else None
        if not isinstance(source, dict):
            return grpc_error(400, "missing payload in request")
        assert isinstance(body, dict)
        name = str(body.get("appName") or "")
        app = self.app(name.rsplit("/", 1)[-1]) if name else None
        if app is not None:
            own = (app.get("spec") or {}).get("project")
            if body.get("appProject") != own or source not in sources(app):
                return grpc_error(403, "permission denied")
        repo = normalize_repo_url(unquote(request.path_params["repo"]))
        if repo != normalize_repo_url(str(source.get("repoURL", ""))):
            return grpc_error(400, "the path's repository is not the source's")
        with self._lock:
            details = self.details.get((repo, str(source.get("path", ""))))
        return JSONResponse(details if details is not None else default_details(source))
