"""Trees in memory: list a directory of a commit, and write a new root tree with changes.

Only the trees on the paths of changed files are rewritten; every other subtree keeps its
id, which is what makes a promotion on a 50,000-file repository cost the same as on a small
one.
"""

from __future__ import annotations

from dataclasses import dataclass

import pygit2
from pygit2.enums import FileMode


@dataclass(frozen=True)
class Entry:
    oid: pygit2.Oid
    mode: int


Changes = dict[str, Entry | None]
"""Repository path -> new entry, or ``None`` to delete."""


def subtree(repo: pygit2.Repository, tree: pygit2.Tree, path: str) -> pygit2.Tree | None:
    """The tree at ``path`` (``envs/dev/shop``), or ``None`` if absent or not a directory."""
    node: pygit2.Tree = tree
    for part in [p for p in path.split("/") if p]:
        if part not in node:
            return None
        entry = node[part]
        if entry.filemode != FileMode.TREE:
            return None
        node = repo[entry.id].peel(pygit2.Tree)
    return node


def list_files(repo: pygit2.Repository, tree: pygit2.Tree | None) -> dict[str, Entry]:
    """Every file below ``tree``, by path relative to it (trees only, no blob is read)."""
    out: dict[str, Entry] = {}
    if tree is None:
        return out
    stack: list[tuple[str, pygit2.Tree]] = [("", tree)]
    while stack:
        prefix, node = stack.pop()
        for entry in node:
            path = f"{prefix}{entry.name}"
            if entry.filemode == FileMode.TREE:
                stack.append((f"{path}/", repo[entry.id].peel(pygit2.Tree)))
            else:
                out[path] = Entry(entry.id, entry.filemode)
    return out


def write_tree(repo: pygit2.Repository, base: pygit2.Tree, changes: Changes) -> pygit2.Oid:
    """A new root tree: ``base`` with ``changes`` applied; empty directories are dropped."""
    nested: dict[str, object] = {}
    for path, entry in changes.items():
        parts = [p for p in path.split("/") if p]
        node = nested
        for part in parts[:-1]:
            child = node.setdefault(part, {})
            assert isinstance(child, dict)
            node = child
        node[parts[-1]] = entry
    oid = _write(repo, base, nested)
    return oid if oid is not None else repo.TreeBuilder().write()


def _write(
    repo: pygit2.Repository, tree: pygit2.Tree | None, changes: dict[str, object]
) -> pygit2.Oid | None:
    builder = repo.TreeBuilder(tree) if tree is not None else repo.TreeBuilder()
    for name, change in changes.items():
        existing = tree[name] if tree is not None and name in tree else None
        if isinstance(change, dict):
            sub = (
                repo[existing.id].peel(pygit2.Tree)
                if existing is not None and existing.filemode == FileMode.TREE
                else None
            )
            new = _write(repo, sub, change)
            if new is None:
                if existing is not None:
                    builder.remove(name)
            else:
                builder.insert(name, new, FileMode.TREE)
        elif change is None:
            if existing is not None:
                builder.remove(name)
        else:
            assert isinstance(change, Entry)
            builder.insert(name, change.oid, change.mode)
    if len(builder) == 0:
        return None
    return builder.write()
