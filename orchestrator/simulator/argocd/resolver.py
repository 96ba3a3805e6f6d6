"""Which commit an app should run, answered from local Git repositories.

:class:`~orchestrator.simulator.argocd.controller.GitController` asks a resolver for each
source of an app; this one reads repositories on disk (bare or not), keyed by repository
URL compared the way Argo CD compares them.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import pygit2
from pygit2.enums import SortMode

from orchestrator.argocd_shapes import normalize_repo_url

Resolver = Callable[[str, str, str], str | None]
"""``resolve(repo_url, target_revision, path)``: the commit an app at ``path`` should run."""

SHA = re.compile(r"^[0-9a-f]{40}$")


def git_resolver(repo_dirs: Mapping[str, Path | str], *, by_path: bool = True) -> Resolver:
    """Resolve apps against local repositories (repository URL -> local path, bare or not).

    With ``by_path`` the answer is the newest commit on the branch whose tree at the app's
    path differs from its parents' (the commit that changed what the app deploys). Note
    that a real Argo CD reports the branch head it compared, whichever path a commit
    touched; ``by_path=False`` answers that way.
    """
    roots = {normalize_repo_url(url): Path(path) for url, path in repo_dirs.items()}
    cache: dict[tuple[str, str, str], str | None] = {}
    lock = threading.Lock()

    def resolve(repo_url: str, revision: str, path: str) -> str | None:
        root = roots.get(normalize_repo_url(repo_url))
        if root is None:
            return None
        repo = pygit2.Repository(str(root))
        head = _peel(repo, revision or "HEAD")
        if head is None:
            return None
        path = path.strip("/")
        if not by_path or path in ("", "."):
            return str(head.id)
        key = (str(root), str(head.id), path)
        with lock:
            if key not in cache:
                cache[key] = _last_change(repo, head, path)
            return cache[key]

    return resolve


Reader = Callable[[str, str, str], str | None]
"""``read(repo_url, commit, path)``: a file's text at a commit (``None``: not there)."""


def git_reader(repo_dirs: Mapping[str, Path | str]) -> Reader:
    """Read files at commits of local repositories (repository URL -> local path)."""
    roots = {normalize_repo_url(url): Path(path) for url, path in repo_dirs.items()}

    def read(repo_url: str, commit: str, path: str) -> str | None:
        root = roots.get(normalize_repo_url(repo_url))
        if root is None:
            return None
        return read_blob(pygit2.Repository(str(root)), commit, path)

    return read


def read_blob(repo: Any, commit: str, path: str) -> str | None:
    """The UTF-8 text at ``path`` in ``commit`` of ``repo`` (``None``: absent, or not text)."""
    try:
        entry = repo.revparse_single(commit).peel(pygit2.Commit).tree[path.strip("/")]
        return bytes(repo[entry.id].peel(pygit2.Blob).data).decode("utf-8")
    except (KeyError, ValueError, pygit2.GitError, UnicodeDecodeError):
        return None


def _peel(repo: Any, revision: str) -> Any | None:
    """The commit ``revision`` names: a SHA, a branch, a tag or HEAD."""
    candidates = [revision] if SHA.match(revision) else []
    candidates += [f"refs/heads/{revision}", f"refs/tags/{revision}", revision]
    for candidate in candidates:
        try:
            return repo.revparse_single(candidate).peel(pygit2.Commit)
        except (KeyError, ValueError, pygit2.GitError):
            continue
    return None


def _entry_id(commit: Any, path: str) -> str | None:
    try:
        return str(commit.tree[path].id)
    except KeyError:
        return None


def _last_change(repo: pygit2.Repository, head: pygit2.Commit, path: str) -> str | None:
    """Newest commit from ``head`` whose tree at ``path`` differs from every parent's
    (a merge that kept one side's version did not change the path, as in ``git log``)."""
    for commit in repo.walk(head.id, SortMode.TOPOLOGICAL):
        entry = _entry_id(commit, path)
        parents = [_entry_id(parent, path) for parent in commit.parents]
        touched = all(p != entry for p in parents) if parents else entry is not None
        if touched:
            return str(commit.id)
    return None
