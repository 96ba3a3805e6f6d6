"""The commits a sync brought to one app: those between the old and the new revision of
each of its sources that touched the source's path.

A monorepo commit moves every app of the repository to a new revision; only the apps
whose path it changed were really changed by it. Reading the history (with pygit2, trees
only) tells them apart, for every source of a multi-source app.
"""

from __future__ import annotations

import re
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

import pygit2

from orchestrator.adapters.git import Credentials, GitRemote
from orchestrator.adapters.gitreads import tree_changes
from orchestrator.argocd_shapes import sources


def commit_link(repo: str, sha: str) -> str:
    """The web page of a commit, from the repository URL Argo CD knows (https, ``ssh://``
    or ``git@host:path``; credentials dropped): GitHub, Gitea and Azure DevOps use
    ``/commit/``, GitLab ``/-/commit/``, Bitbucket ``/commits/``."""
    url = repo.strip()
    if url.startswith("git@") and ":" in url:
        host, _, path = url[4:].partition(":")
        url = f"https://{host}/{path}"
    scheme, sep, rest = url.partition("://")
    if not sep or not rest:
        return ""
    rest = rest.rpartition("@")[2] if "@" in rest.split("/", 1)[0] else rest
    host, _, path = rest.partition("/")
    if scheme in ("ssh", "git"):
        scheme, host = "https", host.split(":")[0]
    base = f"{scheme}://{host}/{path.removesuffix('/').removesuffix('.git')}"
    if "gitlab" in host:
        return f"{base}/-/commit/{sha}"
    return f"{base}/commits/{sha}" if host == "bitbucket.org" else f"{base}/commit/{sha}"


MAX_COMMITS = 200
"""Walked per source and sync at most: a revision that far back is reported as such."""


EMAIL = re.compile(r"[A-Za-z0-9._%+\-]+@[A-Za-z0-9\-]+(?:\.[A-Za-z0-9\-]+)+")
"""An e-mail address, as trailers (``Signed-off-by: A <a@example.com>``) and messages carry."""
HIDDEN = "<e-mail hidden>"


@dataclass(frozen=True)
class CommitInfo:
    sha: str
    message: str
    author: str
    paths: tuple[str, ...]
    email: str = ""

    def as_dict(self, link: str = "", *, emails: bool = False) -> dict[str, Any]:
        """What an event says of the commit: its author's e-mail, and the addresses in its
        message, only with ``emails`` (personal data the operator chooses to publish)."""
        message = self.message.strip()
        data = {"sha": self.sha, "message": message, "author": self.author}
        if emails:
            data["email"] = self.email
        else:
            data["message"] = EMAIL.sub(HIDDEN, message)
            data["author"] = EMAIL.sub(HIDDEN, self.author)
        return {**data, "link": link} if link else data


@dataclass(frozen=True)
class Source:
    repo: str
    path: str
    branch: str
    old: str
    new: str


def _under(path: str, directory: str) -> bool:
    directory = directory.strip("/")
    return not directory or path == directory or path.startswith(directory + "/")


def touching(commits: list[CommitInfo], path: str) -> list[CommitInfo]:
    """The commits that changed something under ``path`` (the app's directory)."""
    return [c for c in commits if any(_under(p, path) for p in c.paths)]


def source_changes(old: dict[str, Any] | None, new: dict[str, Any]) -> list[Source]:
    """Each source of ``new`` with its revision before and after (one for a single-source
    app; ``spec.sources`` and ``status.sync.revisions`` in step for a multi-source one)."""

    def revisions(app: dict[str, Any] | None, count: int) -> list[str]:
        sync = ((app or {}).get("status") or {}).get("sync") or {}
        found = list(sync.get("revisions") or [])
        if not found and sync.get("revision"):
            found = [sync["revision"]]
        return (found + [""] * count)[:count]

    every = sources(new)
    after, before = revisions(new, len(every)), revisions(old, len(every))
    return [
        Source(
            str(src.get("repoURL", "")),
            str(src.get("path", "")),
            str(src.get("targetRevision", "") or "HEAD"),
            b,
            a,
        )
        for src, b, a in zip(every, before, after, strict=True)
    ]


class History(Protocol):
    def between(self, source: Source) -> list[CommitInfo]: ...


class GitHistory:
    """Reads history from a bare mirror per repository (trees and commits only)."""

    def __init__(self, cache: Path, credentials: Credentials | None = None) -> None:
        self.cache = cache
        self.credentials = credentials or Credentials.from_env()
        self._remotes: dict[str, GitRemote] = {}
        self._lock = threading.Lock()

    def between(self, source: Source) -> list[CommitInfo]:
        with self._lock:
            remote = self._remotes.get(source.repo)
            if remote is None:
                remote = self._remotes[source.repo] = GitRemote(
                    source.repo, self.credentials, self.cache
                )
            if not remote.has_commit(source.new):
                remote.fetch_history(source.branch)
            repo = remote.repo
            out: list[CommitInfo] = []
            for commit in repo.walk(pygit2.Oid(hex=source.new), pygit2.enums.SortMode.TOPOLOGICAL):
                if str(commit.id) == source.old or len(out) >= MAX_COMMITS:
                    break
                parent = commit.parents[0].tree if commit.parents else None
                paths = tuple(tree_changes(repo, parent, commit.tree, ""))
                author = commit.author
                out.append(
                    CommitInfo(str(commit.id), commit.message, author.name, paths, author.email)
                )
            return out

    def close(self) -> None:
        with self._lock:
            for remote in self._remotes.values():
                remote.close()
            self._remotes.clear()
