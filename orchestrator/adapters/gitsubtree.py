"""One folder of a branch's tip, every file of it, for the configuration the webhook
service follows in Git.

The tip is asked first (one small request): while it has not moved nothing else is
fetched. When it has, the commit, the trees down to the folder and below it, and then the
folder's blobs in one request come into the bare repository :class:`GitRemote` keeps in
its cache directory, so a later change fetches only what is new. The files are returned by
path relative to the folder; symbolic links as what they point to (the loader then applies
its rule: a link is read only if it stays inside the configuration).

:func:`earlier` walks back from a tip along its first parents, for a service that starts
while the tip is broken: the revisions at which the folder was different, newest first,
each folder state once, so the newest one that validates can serve.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import pygit2
from pygit2.enums import FileMode

from orchestrator.adapters.git import GitRemote
from orchestrator.adapters.giterrors import GitError

MAX_FILES = 5000
MAX_BYTES = 64 << 20
"""What a configuration folder may hold: far above any real one, low enough that a wrong
``path`` (the repository's root of a monorepo) is refused rather than read whole."""


class NoSuchFolder(GitError):
    """The folder is not in the commit (or is a file): the configuration's mistake, not
    the server's; ``commit`` is the one read."""

    def __init__(self, message: str, commit: str) -> None:
        super().__init__(message)
        self.commit = commit


@dataclass(frozen=True)
class Snapshot:
    commit: str
    files: dict[str, bytes] = field(default_factory=dict)
    links: dict[str, str] = field(default_factory=dict)
    """Symbolic links by path, to their target as written in the commit."""
    state: str = ""
    """The folder's tree id: what :func:`folder_state` compares."""


def tip(remote: GitRemote, branch: str) -> str:
    """The branch's tip on the server now; :class:`GitError` if there is no such branch."""
    found = remote.tip(branch)
    if found is None:
        raise GitError(f"{remote.url} has no branch {branch}")
    return found


def snapshot(remote: GitRemote, branch: str, folder: str, revision: str = "") -> Snapshot:
    """Every file under ``folder`` at ``branch``'s tip, or at ``revision`` (one that
    :func:`earlier` gave)."""
    commit = remote.fetch_commit(revision) if revision else remote.fetch_branch(branch)
    sha = str(commit.id)
    folder = folder.strip("/")
    remote.ensure_dirs([(commit.tree.id, folder)])
    tree: pygit2.Object = commit.tree
    if folder:
        try:
            tree = remote.repo[commit.tree[folder].id]
        except KeyError:
            raise NoSuchFolder(f"{folder}/ is not in {remote.url} at {branch}", sha) from None
    if not isinstance(tree, pygit2.Tree):
        raise NoSuchFolder(f"{folder} is a file in {remote.url} at {branch}, not a folder", sha)
    entries = list(_walk(remote.repo, tree, ""))
    if len(entries) > MAX_FILES:
        raise GitError(f"{folder or 'the root'} holds more than {MAX_FILES} files: check path")
    remote.ensure_blobs(oid for _, oid, _ in entries)
    files: dict[str, bytes] = {}
    links: dict[str, str] = {}
    total = 0
    for path, oid, mode in entries:
        data = bytes(remote.repo[oid].peel(pygit2.Blob).data)
        total += len(data)
        if total > MAX_BYTES:
            raise GitError(f"{folder or 'the root'} holds more than {MAX_BYTES} bytes: check path")
        if mode == FileMode.LINK:
            links[path] = data.decode("utf-8", "replace")
        else:
            files[path] = data
    return Snapshot(sha, files, links, str(tree.id))


def folder_state(remote: GitRemote, branch: str, folder: str) -> tuple[str, str]:
    """``branch``'s tip, fetched without files, and the id of ``folder``'s tree there
    (``""`` without it): a new tip with the same id holds the same configuration, which is
    then neither read nor applied again (a promotion's commit outside the folder)."""
    commit = remote.fetch_branch(branch)
    remote.ensure_dirs([(commit.tree.id, folder.strip("/"))])
    found = _folder_id(remote.repo, commit, folder)
    return str(commit.id), str(found or "")


def earlier(remote: GitRemote, branch: str, tip: str, folder: str, depth: int) -> list[str]:
    """The commits before ``tip`` on its first-parent line, at most ``depth`` back, at
    which ``folder`` held something other than at every newer one: newest first, the
    newest commit of each folder state. A commit without the folder is left out, and the
    walk ends where the fetched history does."""
    remote.deepen(branch, tip, depth)
    repo = remote.repo
    chain: list[pygit2.Commit] = []
    commit = repo.get(tip)
    while isinstance(commit, pygit2.Commit) and len(chain) < depth and commit.parent_ids:
        commit = repo.get(commit.parent_ids[0])
        if isinstance(commit, pygit2.Commit):
            chain.append(commit)
    remote.ensure_dirs((c.tree.id, folder.strip("/")) for c in chain)
    seen = {_folder_id(repo, repo[tip].peel(pygit2.Commit), folder)}
    found: list[str] = []
    for older in chain:
        state = _folder_id(repo, older, folder)
        if state is not None and state not in seen:
            found.append(str(older.id))
        seen.add(state)
    return found


def _folder_id(repo: pygit2.Repository, commit: pygit2.Commit, folder: str) -> pygit2.Oid | None:
    """The id of ``folder``'s tree at ``commit`` (the root's for ``""``); None if absent."""
    folder = folder.strip("/")
    if not folder:
        return commit.tree.id
    try:
        entry = commit.tree[folder]
    except KeyError:
        return None
    return entry.id if entry.filemode == FileMode.TREE else None


def _walk(
    repo: pygit2.Repository, tree: pygit2.Tree, prefix: str
) -> list[tuple[str, pygit2.Oid, int]]:
    """(path, blob id, mode) of every file below ``tree``; submodules are left out."""
    found: list[tuple[str, pygit2.Oid, int]] = []
    for entry in tree:
        path = f"{prefix}{entry.name}"
        if entry.filemode == FileMode.TREE:
            found.extend(_walk(repo, repo[entry.id].peel(pygit2.Tree), f"{path}/"))
        elif entry.filemode in (FileMode.BLOB, FileMode.BLOB_EXECUTABLE, FileMode.LINK):
            found.append((path, entry.id, int(entry.filemode)))
    return found
