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
from collections import OrderedDict
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, TypeVar

import pygit2
from pygit2.enums import FileMode

from orchestrator.adapters.git import Credentials, GitRemote

T = TypeVar("T")
REMEMBERED = 4096


class NotRemembered(LookupError):
    """Raised by :meth:`GitReads.remembered`'s reader for a question it would have to ask
    the server: the caller then asks on a thread that may wait for the network."""


def tree_changes(
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
            yield from tree_changes(repo, a_tree, b_tree, f"{path}/")
        if (a is not None and a_tree is None) or (b is not None and b_tree is None):
            yield path


class GitReads:
    def __init__(self, cache_dir: Path | None = None, credentials: Credentials | None = None):
        self.cache_dir = cache_dir
        self.credentials = credentials or Credentials.from_env()
        self._remotes: dict[str, tuple[GitRemote, threading.Lock]] = {}
        self._wanted: dict[str, set[str]] = {}
        """Commits threads wait for, per remote: whoever fetches next brings them all."""
        self._lock = threading.Lock()
        self._answers: OrderedDict[tuple[str, ...], Any] = OrderedDict()
        self._tips: dict[tuple[str, str], _Tips] = {}

    def remembered(self) -> _Remembered:
        """A reader that never waits (raising :class:`NotRemembered` where it would), for
        the event loop: most deliveries (redeliveries, other hooks of one push, pushes a
        batched fetch brought along) need no network and must not queue behind one that
        fetches."""
        return _Remembered(self)

    def _remembered(self, key: tuple[str, ...], compute: Callable[[], T]) -> T:
        with self._lock:
            if key in self._answers:
                self._answers.move_to_end(key)
                found: T = self._answers[key]
                return found
        value = compute()
        with self._lock:
            self._answers[key] = value
            if len(self._answers) > REMEMBERED:
                self._answers.popitem(last=False)
        return value

    def _remote(self, url: str) -> tuple[GitRemote, threading.Lock]:
        with self._lock:
            found = self._remotes.get(url)
            if found is None:
                remote = GitRemote(url, self.credentials, self.cache_dir)
                found = self._remotes[url] = (remote, threading.Lock())
            return found

    def _at(
        self, url: str, *commits: str, branch: str = "", local: bool = False
    ) -> tuple[GitRemote, threading.Lock]:
        """The remote and its lock, once acquired with ``commits`` local. A push's
        ``branch`` is fetched first (its recent history holds every push of a burst);
        commits other threads wait for are fetched in the same request. ``local``: never
        wait or fetch; :class:`NotRemembered` unless the commits are here and the
        repository is free."""
        remote, lock = self._remote(url)
        if local:
            if not lock.acquire(blocking=False):
                raise NotRemembered("busy")
            if not all(remote.has_commit(c) for c in commits if c):
                lock.release()
                raise NotRemembered("not fetched")
            return remote, lock
        with self._lock:
            self._wanted.setdefault(url, set()).update(c for c in commits if c)
        lock.acquire()
        try:
            with self._lock:
                batch = self._wanted.pop(url, set()) | {c for c in commits if c}
            if branch and not all(remote.has_commit(c) for c in batch):
                remote.fetch_recent(branch)
            remote.fetch_commits(batch)
        except BaseException:
            lock.release()
            raise
        return remote, lock

    def changed_paths(self, url: str, before: str, after: str, branch: str = "") -> set[str]:
        key = ("changed", url, before, after)
        return set(
            self._remembered(key, lambda: frozenset(self._changed(url, before, after, branch)))
        )

    def _changed(
        self, url: str, before: str, after: str, branch: str, local: bool = False
    ) -> set[str]:
        remote, lock = self._at(url, before, after, branch=branch, local=local)
        with _Held(lock):
            new = remote.fetch_commit(after).tree
            old = remote.fetch_commit(before).tree if before else None
            return set(tree_changes(remote.repo, old, new, ""))

    def read_file(self, url: str, commit: str, path: str, branch: str = "") -> str | None:
        return self._remembered(
            ("file", url, commit, path), lambda: self._read(url, commit, path, branch)
        )

    def _read(
        self, url: str, commit: str, path: str, branch: str, local: bool = False
    ) -> str | None:
        remote, lock = self._at(url, commit, branch=branch, local=local)
        with _Held(lock):
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

    def message(self, url: str, commit: str, branch: str = "") -> str:
        return self._remembered(
            ("message", url, commit), lambda: self._message(url, commit, branch)
        )

    def _message(self, url: str, commit: str, branch: str, local: bool = False) -> str:
        remote, lock = self._at(url, commit, branch=branch, local=local)
        with _Held(lock):
            return str(remote.fetch_commit(commit).message)

    def tip(self, url: str, branch: str) -> str | None:
        """The branch's tip on the server as of a request that began after this call:
        never remembered (it moves). Callers that arrive while a request is under way wait
        for it and share the next one, so a burst costs two requests, not one each (and
        never an answer older than the caller's arrival)."""
        with self._lock:
            state = self._tips.setdefault((url, branch), _Tips())
            need = state.started + 1
        with state.lock:
            if state.done >= need:
                return state.value
            state.started += 1
            generation = state.started
            remote, lock = self._remote(url)
            with lock:
                state.value = remote.tip(branch)
            state.done = generation
            return state.value

    def descends(self, url: str, commit: str, tip: str, branch: str = "") -> bool:
        """Whether ``commit`` is ``tip`` or an ancestor of it (after fetching the branch's
        recent history when either is missing; see :meth:`GitRemote.descends`). Remembered:
        the history of a commit never changes."""
        key = ("descends", url, commit, tip)
        return self._remembered(key, lambda: self._descends(url, commit, tip, branch))

    def _descends(self, url: str, commit: str, tip: str, branch: str) -> bool:
        remote, lock = self._at(url, tip, commit, branch=branch)
        with _Held(lock):
            return remote.descends(commit, tip)

    def close(self) -> None:
        with self._lock:
            for remote, _ in self._remotes.values():
                remote.close()
            self._remotes.clear()


class _Tips:
    """The tip requests of one branch: how many began, which one answered last, and what."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.started = 0
        self.done = 0
        self.value: str | None = None


class _Held:
    """Releases a lock :meth:`GitReads._at` returned acquired."""

    def __init__(self, lock: threading.Lock) -> None:
        self.lock = lock

    def __enter__(self) -> None:
        return None

    def __exit__(self, *_: object) -> None:
        self.lock.release()


class _Remembered:
    """Answers from memory, or from the local repository when the commits are there and
    nobody is fetching into it (a read of a few objects: fine on the event loop)."""

    def __init__(self, reads: GitReads) -> None:
        self._reads = reads

    def changed_paths(self, url: str, before: str, after: str, branch: str = "") -> set[str]:
        reads = self._reads
        key = ("changed", url, before, after)
        return set(
            reads._remembered(
                key, lambda: frozenset(reads._changed(url, before, after, branch, local=True))
            )
        )

    def read_file(self, url: str, commit: str, path: str, branch: str = "") -> str | None:
        reads = self._reads
        key = ("file", url, commit, path)
        return reads._remembered(key, lambda: reads._read(url, commit, path, branch, local=True))

    def message(self, url: str, commit: str, branch: str = "") -> str:
        reads = self._reads
        key = ("message", url, commit)
        return reads._remembered(key, lambda: reads._message(url, commit, branch, local=True))
