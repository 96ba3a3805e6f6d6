"""The Argo CD stand-in for local runs: the simulator, a controller following Git, the apps.

Each Argo CD Application of the promoted product is created in the simulator, running the
commit its path is at now; :class:`GitController` then follows the repository, so a
promotion commit turns its app OutOfSync, Synced at that commit and Healthy, a moment
apart, as on a cluster. The wait step reaches it over HTTP with the same client and the
same settings (``ARGOCD_SERVER``, ``ARGOCD_AUTH_TOKEN``) it uses against a real Argo CD.
"""

from __future__ import annotations

import secrets
import threading
import time
from collections.abc import Iterator, Mapping
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path

from orchestrator.graph.plan import ProductPlan
from orchestrator.simulator.argocd import (
    ArgoCDSimulator,
    GitController,
    Resolver,
    git_resolver,
)


@dataclass(frozen=True)
class LocalArgoCD:
    """A running stand-in: where it listens and how to reach it."""

    sim: ArgoCDSimulator
    url: str
    token: str

    @property
    def server(self) -> str:
        """``host:port``, the form ``ARGOCD_SERVER`` takes (with ``--plaintext``)."""
        return self.url.split("://", 1)[1]

    def env(self) -> dict[str, str]:
        """What a step needs to reach it, as it would need for a real Argo CD."""
        return {
            "ARGOCD_SERVER": self.server,
            "ARGOCD_OPTS": "--plaintext",
            "ARGOCD_AUTH_TOKEN": self.token,
            "PROMOFLOW_ARGOCD_ACCESS": "api",
        }


def mirror_resolver(cache: Path, interval: float = 1.0) -> Resolver:
    """Resolve apps of remote repositories through a blobless mirror in ``cache``, fetched
    at most every ``interval`` seconds (commits and trees are all the answer needs)."""
    from orchestrator.adapters.git import Credentials, GitError, GitRemote

    remotes: dict[str, tuple[GitRemote, Resolver]] = {}
    fetched: dict[tuple[str, str], float] = {}
    lock = threading.Lock()

    def resolve(repo_url: str, revision: str, path: str) -> str | None:
        branch = revision or "main"
        with lock:
            if repo_url not in remotes:
                remote = GitRemote(repo_url, Credentials.from_env(), cache)
                remotes[repo_url] = (remote, git_resolver({repo_url: remote.path}))
            remote, local = remotes[repo_url]
            if time.monotonic() - fetched.get((repo_url, branch), 0.0) >= interval:
                try:
                    remote.fetch_history(branch)
                except GitError:  # unreachable for now: the app stays as it is
                    return None
                fetched[(repo_url, branch)] = time.monotonic()
        return local(repo_url, branch, path)

    return resolve


def _either(local: Resolver, remote: Resolver | None) -> Resolver:
    def resolve(repo_url: str, revision: str, path: str) -> str | None:
        found = local(repo_url, revision, path)
        if found is None and remote is not None:
            return remote(repo_url, revision, path)
        return found

    return resolve


def add_apps(sim: ArgoCDSimulator, plan: ProductPlan, resolve: Resolver) -> list[str]:
    """One Application per environment of ``plan``, running what its path holds now."""
    names = []
    url = plan.product.spec.repo.url
    for env in plan.environments:
        app = env.app
        if sim.app(app.argocd_app) is not None:
            continue
        revision = resolve(url, app.branch, app.path) or ""
        sim.add_app(
            app.argocd_app,
            repo_url=url,
            path=app.path,
            target_revision=app.branch,
            revision=revision,
            labels={
                "promoflow.dev/product": plan.product.name,
                "promoflow.dev/environment": env.environment,
            },
            destination_namespace=f"{plan.product.name}-{env.environment}",
        )
        names.append(app.argocd_app)
    return names


@contextmanager
def local_argocd(
    plans: list[ProductPlan],
    repos: Mapping[str, Path],
    *,
    delay: float = 0.3,
    cache: Path | None = None,
    fail: Mapping[str, str] | None = None,
) -> Iterator[LocalArgoCD]:
    """Serve the stand-in for ``plans``; ``repos`` maps repository URLs to local bare
    repositories, others are mirrored into ``cache``. ``fail`` (app -> reason) makes the
    next deployment of those apps end Degraded."""
    token = secrets.token_urlsafe(24)
    sim = ArgoCDSimulator(token=token)
    resolve = _either(git_resolver(dict(repos)), mirror_resolver(cache) if cache else None)
    for plan in plans:
        add_apps(sim, plan, resolve)
    for app, reason in (fail or {}).items():
        sim.fail_app(app, reason)
    with ExitStack() as stack:
        stack.enter_context(GitController(sim, resolve, delay=delay))
        server = stack.enter_context(sim.serve())
        yield LocalArgoCD(sim, server.url, token)
