"""The Git reads of the webhook service, against ``git http-backend`` with git's defaults."""

from __future__ import annotations

import concurrent.futures
from pathlib import Path

import pytest

from orchestrator.adapters.git import Credentials
from orchestrator.adapters.gitreads import GitReads
from orchestrator.simulator.git_http import GitHttpServer, init_bare_repo
from tests.webhooks.harness import commit


def test_changed_paths_files_and_messages_at_pushed_commits(tmp_path: Path) -> None:
    bare = init_bare_repo(tmp_path / "srv" / "gitops.git")
    first = commit(bare, {"envs/dev/shop/values.yaml": b"a\n", "docs/x.md": b"x\n"}, "seed")
    second = commit(
        bare, {"envs/dev/shop/values.yaml": b"b\n", "envs/dev/web/v.yaml": b"w\n"}, "two"
    )
    with GitHttpServer(tmp_path / "srv", "u", "p") as git:
        reads = GitReads(tmp_path / "cache", Credentials("u", "p"))
        url = git.repo_url("gitops")
        try:
            assert reads.changed_paths(url, first, second) == {
                "envs/dev/shop/values.yaml",
                "envs/dev/web/v.yaml",
            }
            assert reads.changed_paths(url, "", first) == {"envs/dev/shop/values.yaml", "docs/x.md"}
            assert reads.read_file(url, second, "envs/dev/shop/values.yaml") == "b\n"
            assert reads.read_file(url, first, "envs/dev/shop/values.yaml") == "a\n"
            assert reads.read_file(url, second, "envs/dev/shop") is None  # a directory
            assert reads.read_file(url, second, "missing.yaml") is None
            assert reads.message(url, second) == "two"
            asked = git.stats.requests
            assert reads.read_file(url, second, "envs/dev/shop/values.yaml") == "b\n"
            assert reads.changed_paths(url, first, second)
            assert git.stats.requests == asked  # a commit never changes: answered from memory
        finally:
            reads.close()


@pytest.mark.parametrize("transport", ["native", "cli"])
def test_the_tip_is_asked_every_time_and_ancestry_is_read_in_git(
    tmp_path: Path, transport: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PROMOFLOW_GIT_TRANSPORT", transport)
    bare = init_bare_repo(tmp_path / "srv" / "gitops.git")
    first = commit(bare, {"a.yaml": b"1\n"}, "one")
    second = commit(bare, {"a.yaml": b"2\n"}, "two")
    side = commit(bare, {"a.yaml": b"9\n"}, "side", branch="side")
    with GitHttpServer(tmp_path / "srv", "u", "p") as git:
        reads = GitReads(tmp_path / "cache", Credentials("u", "p"))
        url = git.repo_url("gitops")
        try:
            assert reads.tip(url, "main") == second
            assert reads.tip(url, "missing") is None
            assert reads.descends(url, first, second, "main")
            assert reads.descends(url, second, second, "main")
            assert not reads.descends(url, second, first, "main")
            assert not reads.descends(url, side, second, "main")
            third = commit(bare, {"a.yaml": b"3\n"}, "three")
            assert reads.tip(url, "main") == third  # never answered from memory
        finally:
            reads.close()


def test_a_burst_of_tip_questions_shares_requests_begun_after_each(tmp_path: Path) -> None:
    bare = init_bare_repo(tmp_path / "srv" / "gitops.git")
    tip = commit(bare, {"a.yaml": b"1\n"}, "one")
    with GitHttpServer(tmp_path / "srv", "u", "p") as git:
        reads = GitReads(tmp_path / "cache", Credentials("u", "p"))
        url = git.repo_url("gitops")
        try:
            assert reads.tip(url, "main") == tip
            asked = git.stats.requests
            with concurrent.futures.ThreadPoolExecutor(16) as pool:
                tips = list(pool.map(lambda _: reads.tip(url, "main"), range(32)))
            assert tips == [tip] * 32
            assert git.stats.requests - asked < 32
        finally:
            reads.close()
