"""pygit2 glue for the native transport: where fetched objects go, and what a push sends.

A run without a cache keeps every object in memory (:class:`MemoryObjects`); a cached run
writes them into the bare repository. The shallow boundary is recorded as git records it
(the ``shallow`` file), so nothing walks past commits that are not here. A push sends a pack
of exactly the objects the server lacks, computed from the tree the commit was built on.
Whichever transport fetched them, a commit is looked up here (:func:`lookup_commit`).
"""

from __future__ import annotations

import contextlib
import glob
import hashlib
import os
import subprocess
from collections.abc import Callable, Iterable, Iterator

import pygit2

from orchestrator.adapters import gitpack
from orchestrator.adapters.giterrors import GitError

_TYPES = {
    gitpack.COMMIT: pygit2.enums.ObjectType.COMMIT,
    gitpack.TREE: pygit2.enums.ObjectType.TREE,
    gitpack.BLOB: pygit2.enums.ObjectType.BLOB,
    gitpack.TAG: pygit2.enums.ObjectType.TAG,
}


class MemoryObjects(pygit2.OdbBackend):
    """Objects held in memory and read through the repository like any other.

    A run without a cache throws its repository away at the end; writing the fetched trees
    as loose objects (one compressed file each, hundreds for a large monorepo) cost more
    than fetching them. Added as the highest-priority backend, it serves every read
    (pygit2, tree building, the push) and takes every write.

    A commit fetched without its trees (``filter tree:0``) *promises* them, as git's
    promisor packs do: reading a promised object that is not here calls :attr:`fault`,
    which fetches it (and what it promises in turn), so every reader of the repository
    stays correct while callers that know their paths fetch them in batches first.
    Existence checks never fetch: they say what is here."""

    PRIORITY = 10

    def __init__(self) -> None:
        super().__init__()
        self.objects: gitpack.Objects = {}
        """Keyed by the binary id, as a parse yields them (no hex string per object)."""
        self.promised: set[bytes] = set()
        """Ids the server has and a fetched commit or tree names, not fetched yet."""
        self.fault: Callable[[list[str]], None] | None = None
        """Fetches objects by hex id into :attr:`objects` (the transport's)."""

    def add(self, kind: int, data: bytes) -> None:
        header = b"%s %d\x00" % (gitpack.NAMES[kind], len(data))
        self.objects[hashlib.sha1(header + data).digest()] = (kind, data)

    def promise(self, objects: Iterable[tuple[int, bytes]]) -> None:
        """Record what ``objects`` (commits, trees) name and is not here yet."""
        for kind, data in objects:
            if kind == gitpack.COMMIT and data.startswith(b"tree "):
                named: Iterable[bytes] = [bytes.fromhex(data[5:45].decode())]
            elif kind == gitpack.TREE:
                named = tree_ids(data)
            else:
                continue
            self.promised.update(key for key in named if key not in self.objects)

    def _get(self, key: bytes) -> tuple[int, bytes]:
        found = self.objects.get(key)
        if found is None and key in self.promised and self.fault is not None:
            fault, self.fault = self.fault, None  # no faults while fetching (delta bases)
            try:
                fault([key.hex()])
            finally:
                self.fault = fault
            found = self.objects.get(key)
        if found is None:
            raise KeyError(key.hex())
        return found

    def read_cb(self, oid: pygit2.Oid) -> tuple[int, bytes]:
        return self._get(oid.raw)

    def read_header_cb(self, oid: pygit2.Oid) -> tuple[int, int]:
        kind, data = self._get(oid.raw)
        return kind, len(data)

    def exists_cb(self, oid: pygit2.Oid) -> bool:
        return oid.raw in self.objects

    def _full(self, prefix: pygit2.Oid | str) -> bytes:
        whole = str(prefix)
        if len(whole) == 40 and (key := bytes.fromhex(whole)) in self.objects:
            # a whole id, as pygit2 asks for ``repo[oid]``: no scan of every key (a
            # 50,000-file tip holds 50,000 of them)
            return key
        text = whole.rstrip("0") or "0"
        found = [key for key in self.objects if key.hex().startswith(text)]
        if not found:
            raise KeyError(str(prefix))
        if len(found) > 1:
            raise ValueError(f"ambiguous object prefix {text}")
        return found[0]

    def read_prefix_cb(self, prefix: pygit2.Oid) -> tuple[int, bytes, pygit2.Oid]:
        key = self._full(prefix)
        kind, data = self.objects[key]
        return kind, data, pygit2.Oid(raw=key)

    def exists_prefix_cb(self, prefix: pygit2.Oid) -> pygit2.Oid:
        return pygit2.Oid(raw=self._full(prefix))

    def refresh_cb(self) -> None:
        return None

    def write_cb(self, oid: pygit2.Oid, data: bytes, kind: int) -> None:
        """Objects the run creates (trees, the commit) stay in memory with the rest."""
        self.objects[oid.raw] = (kind, data)


def tree_ids(data: bytes) -> Iterator[bytes]:
    """The binary ids of the trees and files a raw tree names (entries are ``MODE NAME``,
    a NUL and 20 bytes); submodules' commits live in other repositories."""
    pos = 0
    while (nul := data.find(b"\x00", pos)) != -1:
        if not data.startswith(b"160000 ", pos):
            yield data[nul + 1 : nul + 21]
        pos = nul + 21


def store(
    repo: pygit2.Repository,
    pack: bytes,
    memory: MemoryObjects | None = None,
    *,
    promisor: bool = False,
) -> int:
    """Every object of ``pack`` into ``repo`` (or into ``memory``); returns how many.
    ``promisor``: a fetch that left out trees or files; what its objects name is promised."""
    if not pack:
        return 0
    if memory is None and len(pack) >= PACK_KEPT:
        return _index_pack(repo, pack)
    odb = repo.odb

    def lookup(oid: bytes) -> tuple[int, bytes] | None:
        try:
            kind, data = odb.read(pygit2.Oid(raw=oid))[:2]
        except KeyError:
            return None
        return int(kind), bytes(data)

    objects = gitpack.parse(pack, lookup)
    if memory is not None:
        memory.objects.update(objects)
        memory.promised.difference_update(objects)
        if promisor:
            memory.promise(objects.values())
    else:
        for kind, data in objects.values():
            odb.write(_TYPES[kind], data)
    return len(objects)


PACK_KEPT = 1 << 20
"""A fetched pack this large is kept as a pack (``git index-pack``), not written out as
one loose file per object: 20,000 commits of history are 160,000 objects, 47 s loose
and under a second as a pack."""


def _index_pack(repo: pygit2.Repository, pack: bytes) -> int:
    """``pack`` kept in ``repo``'s pack folder with its index; the number of objects.
    Marked as a promisor pack, as git marks every pack a partial clone fetches: what it
    names and lacks (files left out by a filter) is the server's to give when asked."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    args = ["git", "--git-dir", repo.path, "index-pack", "--stdin", "--promisor=fetch"]
    done = subprocess.run(args, input=pack, capture_output=True, env=env, check=False)
    if done.returncode != 0:
        text = done.stderr.decode("utf-8", "replace").strip()
        raise GitError(f"the fetched objects could not be kept: {text}")
    return int.from_bytes(pack[8:12], "big")


def lookup_commit(repo: pygit2.Repository, sha: str) -> pygit2.Commit | None:
    """The commit ``sha`` names, if it is here (``None`` too when it names no commit)."""
    try:
        obj = repo.revparse_single(sha)
    except (KeyError, ValueError, pygit2.GitError):
        return None
    return obj.peel(pygit2.Commit) if obj.type == pygit2.enums.ObjectType.COMMIT else None


def shallow_commits(repo: pygit2.Repository) -> list[str]:
    """The commits recorded as shallow (their parents are not here)."""
    try:
        with open(f"{repo.path.rstrip('/')}/shallow") as fh:
            return fh.read().split()
    except FileNotFoundError:
        return []


def update_shallow(repo: pygit2.Repository, add: list[str], remove: list[str]) -> None:
    """Move the shallow boundary as the server said (``shallow``/``unshallow`` lines), so
    nothing walks past commits we do not have and deepened history is walked."""
    if not add and not remove:
        return
    known = (set(shallow_commits(repo)) | set(add)) - set(remove)
    path = f"{repo.path.rstrip('/')}/shallow"
    if not known:
        with contextlib.suppress(FileNotFoundError):
            os.remove(path)
        return
    with open(path, "w") as fh:
        fh.write("".join(f"{o}\n" for o in sorted(known)))


def new_objects(
    repo: pygit2.Repository, commit: pygit2.Oid, base: pygit2.Tree | None
) -> list[pygit2.Oid]:
    """Objects of ``commit`` the server lacks: the commit, and every tree or blob that
    differs from ``base`` (the tree of the tip it was built on) and exists locally."""
    out = [commit]
    new_tree = repo[commit].peel(pygit2.Commit).tree

    def walk(new: pygit2.Tree, old: pygit2.Tree | None) -> None:
        out.append(new.id)
        for entry in new:
            name = entry.name or ""
            previous = old[name] if old is not None and name in old else None
            if previous is not None and previous.id == entry.id:
                continue
            if entry.filemode == pygit2.enums.FileMode.TREE:
                old_sub = (
                    repo[previous.id].peel(pygit2.Tree)
                    if previous is not None and previous.filemode == pygit2.enums.FileMode.TREE
                    else None
                )
                walk(repo[entry.id].peel(pygit2.Tree), old_sub)
            elif repo.odb.exists(entry.id):
                out.append(entry.id)

    if base is None or new_tree.id != base.id:
        walk(new_tree, base)
    return out


def build_pack(repo: pygit2.Repository, oids: list[pygit2.Oid], scratch: str) -> bytes:
    """A pack of exactly ``oids`` (no walking: the rest is on the server already)."""
    builder = pygit2.PackBuilder(repo)
    for oid in oids:
        builder.add(oid)
    builder.write(scratch)
    (path,) = glob.glob(f"{scratch}/*.pack")
    with open(path, "rb") as fh:
        return fh.read()
