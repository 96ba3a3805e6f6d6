"""A GitOps repository a contract test commits to, and a wait for what a controller does in
the background."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

import pygit2

SIGNATURE = pygit2.Signature("test", "test@example.com", 1_700_000_000, 0)


class Repo:
    """A bare repository written with pygit2 (no working tree, no git CLI)."""

    def __init__(self, path: Path) -> None:
        self.repo = pygit2.init_repository(str(path), bare=True)

    def commit(self, files: dict[str, str], message: str = "change") -> str:
        """Commit ``files`` (path -> content) on top of main; returns the commit id."""
        parents = [] if self.repo.head_is_unborn else [self.repo.head.target]
        index = pygit2.Index()
        if parents:
            index.read_tree(self.repo[parents[0]].peel(pygit2.Commit).tree)
        for name, content in files.items():
            blob = self.repo.create_blob(content.encode())
            index.add(pygit2.IndexEntry(name, blob, pygit2.enums.FileMode.BLOB))
        tree = index.write_tree(self.repo)
        commit = self.repo.create_commit(
            "refs/heads/main", SIGNATURE, SIGNATURE, message, tree, parents
        )
        self.repo.set_head("refs/heads/main")
        return str(commit)


def eventually(check: Callable[[], bool], timeout: float = 5) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.01)
