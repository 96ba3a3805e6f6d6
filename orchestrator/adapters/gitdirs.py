"""The directories a promotion reads, made local in one request per level of their paths.

A run without a cache fetches the branch tip's commit alone (``filter tree:0``: the server
builds no pack of the repository's trees, which on a 50,000-file monorepo is most of a
cold promotion's time). Its trees then come by id: every directory on the way down to the
environments' directories, one request per level for all of them at once, and each
environment's directory with every tree below it (``filter blob:none``) in the last. A
promotion of ``envs/dev/shop`` to ``envs/staging/shop`` makes four small requests where
one would carry every tree of the repository. Whatever is read outside these directories
is still fetched when read (:class:`gitobjects.MemoryObjects` faults it in), one object a
request; the paths named here are simply what a promotion is known to read.

Where every tree is local already (a cache, a server without filters, the git CLI's
``blob:none`` fetches) nothing is fetched: the walk only finds nothing missing.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

import pygit2
from pygit2.enums import FileMode

from orchestrator.adapters.giterrors import GitError

Fetch = Callable[[list[str], bool], None]
"""Fetches trees by hex id: alone (``False``) or with every tree below them (``True``)."""


def fetch_dirs(
    repo: pygit2.Repository, dirs: Iterable[tuple[pygit2.Oid, str]], fetch: Fetch
) -> None:
    """Make each directory ``(root tree id, path)`` and every tree below it local. A path
    that does not exist (or names a file) stops where it ends: its readers report it."""
    level = [(root, [part for part in path.split("/") if part]) for root, path in dirs]
    bottoms: list[pygit2.Oid] = []
    while level:
        _bring(repo, {tree for tree, rest in level if rest}, lambda ids: fetch(ids, False))
        _bring(repo, {tree for tree, rest in level if not rest}, lambda ids: fetch(ids, True))
        deeper = []
        for tree_id, rest in level:
            if not rest:
                bottoms.append(tree_id)
                continue
            tree = repo[tree_id]
            if isinstance(tree, pygit2.Tree) and rest[0] in tree:
                entry = tree[rest[0]]
                if entry.filemode == FileMode.TREE:
                    deeper.append((entry.id, rest[1:]))
        level = deeper
    # a directory fetched alone before (the root, for a promotion of the whole branch), or
    # an identical subtree the server counted as sent already: what is still missing below
    while missing := {oid for bottom in bottoms for oid in _missing_below(repo, bottom)}:
        _bring(repo, missing, lambda ids: fetch(ids, True))


def _bring(
    repo: pygit2.Repository, trees: set[pygit2.Oid], fetch: Callable[[list[str]], None]
) -> None:
    """Fetch those of ``trees`` that are not here, until all are. upload-pack sends an
    object once per pack: a wanted tree that another wanted tree contains may be left out
    of the first answer, so what is still missing is asked for again."""
    missing = {oid for oid in trees if oid not in repo.odb}
    while missing:
        fetch(sorted(str(oid) for oid in missing))
        still = {oid for oid in missing if oid not in repo.odb}
        if still == missing:
            raise GitError(f"the server did not send the trees asked for ({str(min(still))[:12]})")
        missing = still


def _missing_below(repo: pygit2.Repository, tree_id: pygit2.Oid) -> set[pygit2.Oid]:
    """Trees below ``tree_id`` (itself local) that are not here."""
    missing: set[pygit2.Oid] = set()
    stack = [tree_id]
    while stack:
        tree = repo[stack.pop()]
        if not isinstance(tree, pygit2.Tree):
            continue
        for entry in tree:
            if entry.filemode != FileMode.TREE:
                continue
            if entry.id in repo.odb:
                stack.append(entry.id)
            else:
                missing.add(entry.id)
    return missing
