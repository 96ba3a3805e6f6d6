"""Read-only Git questions about pushed commits, for the webhook service.

A push payload may not list every changed path (GitHub leaves files out of large pushes,
Bitbucket and Azure DevOps list none), and the version a push wrote has to be read at the
pushed commit. Both need only a few objects: the two commits' trees, compared without
descending into subtrees whose ids are equal, and one blob. :class:`GitReads` keeps one
bare repository per remote (in a cache directory, so a warm service fetches only what is
new) and serialises access to each, since a libgit2 repository is not thread-safe.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path

import pygit2
from pygit2.enums import FileMode

from orchestrator.adapters.git import Credentials, GitRemote


def _changed(
    repo: pygit2.Repository, old: pygit2.Tree | None, new: pygit2.Tree | None, prefix: str
) -> Iterator[str]:
    """Paths below ``prefix`` that differ; equal subtrees are skipped by id."""
    old_entries = {str(e.name): e for e in old} if old is not None else {}
    new_entries = {str(e.name): e for e in new} if new is not None else {}
    for name in sorted(old_entries.keys() | new_entries.keys()):
        a, b = old_entries.get(name), new_entries.get(name)
        if a is not None and b is not None and a.id == b.id and a.filemode == b.filemode:
            continue
        path = f"{prefix}{name}"
        a_tree = (
            repo[a.id].peel(pygit2.Tree) if a is not None and a.filemode == FileMode.TREE else None
        )
        b_tree = (
            repo[b.id].peel(pygit2.Tree) if b is not None and b.filemode == FileMode.TREE else None
        )
        if a_tree is not None or b_tree is not None:
            yield from _changed(repo, a_tree, b_tree, f"{path}/")
        if (a is not None and a_tree is None) or (b is not None and b_tree is None):
            yield path


class GitReads:
    def __init__(self, cache_dir: Path | None = None, credentials: Credentials | None = None):
        self.cache_dir = cache_dir
        self.credentials = credentials or Credentials.from_env()
        self._remotes: dict[str, tuple[GitRemote, threading.Lock]] = {}
        self._lock = threading.Lock()

    def _remote(self, url: str) -> tuple[GitRemote, threading.Lock]:
        with self._lock:
            found = self._remotes.get(url)
            if found is None:
                remote = GitRemote(url, self.credentials, self.cache_dir)
                found = self._remotes[url] = (remote, threading.Lock())
            return found

    def changed_paths(self, url: str, before: str, after: str) -> set[str]:
        remote, lock = self._remote(url)
        with lock:
            new = remote.fetch_commit(after).tree
            old = remote.fetch_commit(before).tree if before else None
            return set(_changed(remote.repo, old, new, ""))

    def read_file(self, url: str, commit: str, path: str) -> str | None:
        remote, lock = self._remote(url)
        with lock:
            tree = remote.fetch_commit(commit).tree
            try:
                entry = tree[path]
            except KeyError:
                return None
            if entry.filemode not in (FileMode.BLOB, FileMode.BLOB_EXECUTABLE):
                return None
            remote.ensure_blobs([entry.id])
            data: bytes = remote.repo[entry.id].peel(pygit2.Blob).data
        try:
            return data.decode("utf-8-sig")
        except UnicodeDecodeError:
            return None

    def message(self, url: str, commit: str) -> str:
        remote, lock = self._remote(url)
        with lock:
            return str(remote.fetch_commit(commit).message)

    def close(self) -> None:
        with self._lock:
            for remote, _ in self._remotes.values():
                remote.close()
            self._remotes.clear()
