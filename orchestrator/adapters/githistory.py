"""A GitOps repository's history for ``promoflow history``: every commit of a branch and
its trees, no file contents, and promoflow's notes, kept in a cache so a later look only
fetches what is new.

The walk reads commit messages, which carry promoflow's trailers, and compares trees only
for a commit without them: one made by hand, or by promoflow before it wrote
``Promotion-Product``. Files are fetched only to read the version a hand commit wrote, in
one request for all of them.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pygit2
from pygit2.enums import SortMode

from orchestrator.adapters.git import Credentials, GitRemote
from orchestrator.names import NOTES_REF


class HistoryRepository:
    def __init__(self, url: str, credentials: Credentials, cache_dir: Path | None) -> None:
        self._remote = GitRemote(url, credentials, cache_dir / "history" if cache_dir else None)
        self.url = self._remote.url
        self._notes: str | None = None

    def close(self) -> None:
        self._remote.close()

    def fetch(self, branch: str) -> str:
        """``branch``'s tip, after fetching what is new of it."""
        return str(self._remote.fetch_whole(branch).id)

    def fetch_notes(self) -> None:
        """What is new of promoflow's notes: one ref for every branch, fetched once a read."""
        self._notes = self._remote.fetch_ref(NOTES_REF)

    @property
    def notes_tip(self) -> str:
        return self._notes or ""

    def commits(self, tip: str, after: str = "") -> Iterator[pygit2.Commit]:
        """Every commit reachable from ``tip`` and not from ``after``, newest first."""
        walker = self._remote.repo.walk(pygit2.Oid(hex=tip), SortMode.TOPOLOGICAL | SortMode.TIME)
        if after:
            walker.hide(pygit2.Oid(hex=after))
        yield from walker

    def commit(self, sha: str) -> pygit2.Commit:
        return self._remote.repo[sha].peel(pygit2.Commit)

    def descends(self, commit: str, tip: str) -> bool:
        """Whether ``commit`` is ``tip`` or one of its ancestors."""
        return self._remote.descends(commit, tip)

    def load_state(self, key: str) -> str | None:
        """What a reader kept under ``key`` beside the repository (None: nothing)."""
        try:
            return (self._remote.path / "promoflow-history" / f"{key}.json").read_text()
        except (FileNotFoundError, NotADirectoryError):
            return None

    def save_state(self, key: str, text: str) -> None:
        """Kept atomically: a reader interrupted half-way leaves the old state."""
        folder = self._remote.path / "promoflow-history"
        folder.mkdir(exist_ok=True)
        scratch = folder / f".{key}.{os.getpid()}"
        scratch.write_text(text)
        scratch.replace(folder / f"{key}.json")

    def note(self, sha: str) -> str:
        """Promoflow's note on ``sha`` (``""``: none)."""
        if self._notes is None:
            return ""
        try:
            found = self._remote.repo.lookup_note(sha, NOTES_REF)
        except KeyError:
            return ""
        return str(found.message)

    def noted(self) -> set[str]:
        """Every commit promoflow's notes name (some may be gone from the branch)."""
        if self._notes is None:
            return set()
        notes = self._remote.repo.notes(NOTES_REF)  # type: ignore[call-arg]  # the stub lacks ref
        return {str(n.annotated_id) for n in notes}

    def changed(self, commit: pygit2.Commit, paths: list[str]) -> list[str]:
        """Which of ``paths`` ``commit`` changed against its first parent. The trees are
        compared from the root down, and only where they differ: a commit elsewhere in the
        repository costs one comparison, not one lookup per path."""
        if not commit.parents:
            return [p for p in paths if _entry(commit.tree, p) is not None]
        return _differ(commit.tree, commit.parents[0].tree, [p.split("/") for p in paths])

    def read_files(self, wanted: list[tuple[str, str]]) -> dict[tuple[str, str], bytes]:
        """``(commit, path) -> contents`` of each file that exists, fetched in one request."""
        repo = self._remote.repo
        blobs: dict[tuple[str, str], pygit2.Oid] = {}
        for sha, path in wanted:
            tree = repo[sha].peel(pygit2.Commit).tree
            found = _entry(tree, path)
            if found is not None:
                blobs[(sha, path)] = found
        self._remote.ensure_blobs(blobs.values())
        return {key: bytes(repo[oid].peel(pygit2.Blob).data) for key, oid in blobs.items()}


def _differ(
    mine: pygit2.Object | None, theirs: pygit2.Object | None, paths: list[list[str]]
) -> list[str]:
    """The paths (as parts, relative to these two trees) whose objects differ."""
    if mine is not None and theirs is not None and mine.id == theirs.id:
        return []
    found: list[str] = []
    below: dict[str, list[list[str]]] = {}
    for parts in paths:
        if not parts:
            found.append("")
        else:
            below.setdefault(parts[0], []).append(parts[1:])
    for name, rest in below.items():
        a, b = _child(mine, name), _child(theirs, name)
        if a is None and b is None:
            continue
        found += [f"{name}/{r}".rstrip("/") for r in _differ(a, b, rest)]
    return found


def _child(tree: pygit2.Object | None, name: str) -> pygit2.Object | None:
    if not isinstance(tree, pygit2.Tree):
        return None
    try:
        return tree / name
    except KeyError:
        return None


def _entry(tree: pygit2.Tree, path: str) -> pygit2.Oid | None:
    try:
        return tree[path].id
    except KeyError:
        return None
