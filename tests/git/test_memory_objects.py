"""Runs without a cache keep fetched objects in memory: nothing loose is written."""

from __future__ import annotations

from pathlib import Path

import pygit2
import pytest

from orchestrator.adapters import gitobjects
from orchestrator.adapters.git import GitRemote
from tests.git.conftest import GitHost, shop_repo


def loose_objects(repo: Path) -> list[Path]:
    return [p for p in (repo / "objects").glob("??/*") if p.is_file()]


def test_fetched_and_created_objects_stay_in_memory(host: GitHost) -> None:
    remote = shop_repo(host)
    with GitRemote(remote.url, host.credentials) as git:
        assert git.memory is not None
        tip = git.fetch_branch("main")
        assert str(tip.id) == remote.head()
        values = tip.tree["envs/dev/shop/values.yaml"]
        git.ensure_blobs([values.id])
        assert b"tag: 1.4.2" in git.repo[values.id].data
        blob = git.repo.create_blob(b"new\n")
        assert git.repo[blob].data == b"new\n"
        assert blob.raw in git.memory.objects
        assert loose_objects(git.path) == []


def test_a_cache_directory_gets_real_objects(host: GitHost, tmp_path: Path) -> None:
    remote = shop_repo(host)
    with GitRemote(remote.url, host.credentials, tmp_path / "cache") as git:
        assert git.memory is None
        git.fetch_branch("main")
        assert loose_objects(git.path)


def test_prefix_lookups_and_missing_objects() -> None:
    memory = gitobjects.MemoryObjects()
    memory.add(3, b"hello\n")
    sha = "ce013625030ba8dba906f756967f9e9ca394464a"  # git hash-object of "hello\n"
    assert bytes.fromhex(sha) in memory.objects
    assert str(memory.exists_prefix(pygit2.Oid(hex=sha[:12] + "0" * 28))) == sha
    with pytest.raises(KeyError):
        memory.read(pygit2.Oid(hex="0" * 39 + "1"))
