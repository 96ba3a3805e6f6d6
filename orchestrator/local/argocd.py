"""The Argo CD stand-in for local runs: the simulator, a controller following Git, the apps.

Each Argo CD Application of the promoted product is created in the simulator, running the
commit its path is at now; :class:`GitController` then follows the repository, so a
promotion commit turns its app OutOfSync, Synced at that commit and Healthy, a moment
apart, as on a cluster. The wait step reaches it over HTTP with the same client and the
same settings (``ARGOCD_SERVER``, ``ARGOCD_AUTH_TOKEN``) it uses against a real Argo CD.

Where the product's template names its image, each app also shows the image its files
name at the commit it runs, as its pods would (a simulation: one Deployment per app, its
image read from the files with the promote step's own reading), so the wait's image
check has something real to compare.
"""

from __future__ import annotations

import secrets
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pygit2

from orchestrator.graph.plan import ProductPlan
from orchestrator.simulator.argocd import (
    ArgoCDSimulator,
    GitController,
    Reader,
    Resolver,
    git_reader,
    git_resolver,
)
from orchestrator.simulator.argocd.resolver import read_blob


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
    return Mirror(cache, interval).resolve


class Mirror:
    """Remote repositories mirrored (blobless) into ``cache``: which commit an app should
    run, fetched at most every ``interval`` seconds, and a file at a commit (its blob
    fetched when first read)."""

    def __init__(self, cache: Path, interval: float = 1.0) -> None:
        from orchestrator.adapters.git import GitRemote

        self.cache, self.interval = cache, interval
        self.remotes: dict[str, tuple[GitRemote, Resolver]] = {}
        self.fetched: dict[tuple[str, str], float] = {}
        self.lock = threading.Lock()

    def _remote(self, repo_url: str) -> tuple[Any, Resolver]:
        from orchestrator.adapters.git import Credentials, GitRemote

        if repo_url not in self.remotes:
            remote = GitRemote(repo_url, Credentials.from_env(), self.cache)
            self.remotes[repo_url] = (remote, git_resolver({repo_url: remote.path}))
        return self.remotes[repo_url]

    def resolve(self, repo_url: str, revision: str, path: str) -> str | None:
        from orchestrator.adapters.git import GitError

        branch = revision or "main"
        with self.lock:
            remote, local = self._remote(repo_url)
            if time.monotonic() - self.fetched.get((repo_url, branch), 0.0) >= self.interval:
                try:
                    remote.fetch_history(branch)
                except GitError:  # unreachable for now: the app stays as it is
                    return None
                self.fetched[(repo_url, branch)] = time.monotonic()
        return local(repo_url, branch, path)

    def read(self, repo_url: str, commit: str, path: str) -> str | None:
        from orchestrator.adapters.git import GitError

        with self.lock:
            remote, _ = self._remote(repo_url)
            try:
                entry = remote.repo.revparse_single(commit).peel(pygit2.Commit).tree[path]
                remote.ensure_blobs([entry.id])
            except (KeyError, ValueError, pygit2.GitError, GitError):
                return None
            return read_blob(remote.repo, commit, path)


def _either(
    local: Callable[[str, str, str], str | None],
    remote: Callable[[str, str, str], str | None] | None,
) -> Callable[[str, str, str], str | None]:
    """Ask the served repositories first, then the mirror of a remote one (a Resolver of
    revisions, or a Reader of files: the same shape)."""

    def first(repo_url: str, revision: str, path: str) -> str | None:
        found = local(repo_url, revision, path)
        if found is None and remote is not None:
            return remote(repo_url, revision, path)
        return found

    return first


def add_apps(
    sim: ArgoCDSimulator, plan: ProductPlan, resolve: Resolver, read: Reader | None = None
) -> list[str]:
    """One Application per environment of ``plan``, running what its path holds now; with
    ``read``, and where the template names the image, running the image its files name."""
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
        if plan.image is not None:
            sim.image_specs[app.argocd_app] = plan.image
            images = _initial_images(plan, app.path, revision, read)
            if images:
                sim.set_images(app.argocd_app, images)
        names.append(app.argocd_app)
    return names


def _initial_images(plan: ProductPlan, path: str, revision: str, read: Reader | None) -> list[str]:
    """The image the app's files name at the commit it runs: its pods' image (simulated)."""
    from orchestrator.imagefile import image_in
    from orchestrator.imagespec import ImageSpecError

    spec = plan.image
    if spec is None or read is None or not revision:
        return []
    file = f"{path.strip('/')}/{spec.file}"
    text = read(plan.product.spec.repo.url, revision, file)
    try:
        image = image_in(spec, text, file) if text is not None else None
    except ImageSpecError:
        return []
    return [image.reference] if image is not None else []


@contextmanager
def local_argocd(
    plans: list[ProductPlan],
    repos: Mapping[str, Path],
    *,
    delay: float = 0.3,
    cache: Path | None = None,
    fail: Mapping[str, str] | None = None,
    stale_images: Iterable[str] = (),
) -> Iterator[LocalArgoCD]:
    """Serve the stand-in for ``plans``; ``repos`` maps repository URLs to local bare
    repositories, others are mirrored into ``cache``. ``fail`` (app -> reason) makes the
    next deployment of those apps end Degraded; the apps in ``stale_images`` keep the
    image they run whatever is promoted (a chart that ignores the promoted value)."""
    token = secrets.token_urlsafe(24)
    sim = ArgoCDSimulator(token=token)
    mirror = Mirror(cache) if cache else None
    resolve = _either(git_resolver(dict(repos)), mirror.resolve if mirror else None)
    read = _either(git_reader(dict(repos)), mirror.read if mirror else None)
    for plan in plans:
        add_apps(sim, plan, resolve, read)
    for app, reason in (fail or {}).items():
        sim.fail_app(app, reason)
    for app in stale_images:
        sim.stale_image(app)
    with ExitStack() as stack:
        stack.enter_context(GitController(sim, resolve, delay=delay, read=read))
        server = stack.enter_context(sim.serve())
        yield LocalArgoCD(sim, server.url, token)
