"""The files of directories at branch tips, read from one remote with as few requests as the
promote step makes: each branch fetched once (trees only where the server allows it), then
the blobs of the named files of a directory in one request.

Used to check a configuration against the repository before anything runs (``validate
--repo-check``, and ``promote --local`` before its run starts).
"""

from __future__ import annotations

from collections.abc import Iterable

import pygit2

from orchestrator.adapters.git import GitRemote
from orchestrator.adapters.gittree import Entry, list_files, subtree


class BranchFiles:
    """``read(branch, directory, file)``: a file's text, or ``None`` when it is absent."""

    def __init__(self, remote: GitRemote, names: Iterable[str]) -> None:
        self.remote = remote
        self.names = set(names)
        """Files to fetch together when a directory is first read."""
        self._tips: dict[str, pygit2.Commit] = {}
        self._listed: dict[tuple[str, str], dict[str, Entry]] = {}

    def read(self, branch: str, directory: str, file: str) -> str | None:
        files = self._files(branch, directory)
        entry = files.get(file)
        if entry is None:
            return None
        data = bytes(self.remote.repo[entry.oid].peel(pygit2.Blob).data)
        return data.decode("utf-8", errors="replace")

    def _files(self, branch: str, directory: str) -> dict[str, Entry]:
        if branch not in self._tips:
            self._tips[branch] = self.remote.fetch_branch(branch)
        key = (branch, directory)
        if key not in self._listed:
            repo = self.remote.repo
            self.remote.ensure_dirs([(self._tips[branch].tree_id, directory)])
            files = list_files(repo, subtree(repo, self._tips[branch].tree, directory))
            self.remote.ensure_blobs([files[n].oid for n in self.names if n in files])
            self._listed[key] = files
        return self._listed[key]
