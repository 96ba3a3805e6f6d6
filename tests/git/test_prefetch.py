"""The branch tip asked for while the promote step imports (``adapters/gitprefetch.py``).

A prefetch must be invisible but for the time it saves: the server sees the requests a
fetch would have made and no more, the promotion lands the same commit, a failure reads
as the fetch's own, and whatever does not match what it asked (another branch, other
credentials, a retried attempt) asks the server itself. Every server kind found in the
wild is the real ``git http-backend``.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from orchestrator.adapters import gitprefetch
from orchestrator.adapters.git import Credentials, GitError, GitRemote
from orchestrator.steps.promote import promote
from tests.git.conftest import TOKEN, USERNAME, GitHost, shop_repo, shop_request


@pytest.fixture
def git_env(monkeypatch: pytest.MonkeyPatch) -> None:
    """The step's credentials, where :func:`gitprefetch.start` reads them."""
    monkeypatch.setenv("GIT_USERNAME", USERNAME)
    monkeypatch.setenv("GIT_TOKEN", TOKEN)
    monkeypatch.delenv("PROMOFLOW_GIT_TRANSPORT", raising=False)


def _requests(host: GitHost) -> int:
    return host.server.stats.requests


@pytest.mark.usefixtures("git_env")
def test_a_prefetched_promotion_asks_the_server_what_a_plain_one_asks(
    host: GitHost, server_kind: str
) -> None:
    remote = shop_repo(host)
    request = shop_request(remote)
    staging = remote.show("envs/staging/shop/values.yaml")
    asked: dict[str, int] = {}
    for how in ("plain", "prefetched"):
        remote.commit({"envs/staging/shop/values.yaml": staging})  # 1.4.1 again
        before = _requests(host)
        prefetch = gitprefetch.start(remote.url, "main") if how == "prefetched" else None
        assert (prefetch is not None) == (how == "prefetched")
        with GitRemote(remote.url, Credentials.from_env(), prefetch=prefetch) as git:
            result = promote(git, request)
        asked[how] = _requests(host) - before
        assert result.changed and remote.head() == result.commit
        promoted = yaml.safe_load(remote.show("envs/staging/shop/values.yaml"))
        assert promoted["image"]["tag"] == "1.4.2"
        remote.assert_fsck()
    assert asked["prefetched"] == asked["plain"], asked


@pytest.mark.usefixtures("git_env")
def test_a_prefetch_of_another_branch_is_set_aside_and_the_branch_asked_for(
    host: GitHost,
) -> None:
    remote = shop_repo(host)
    remote.git("branch", "release", "main")
    remote.commit({"envs/dev/shop/values.yaml": "image:\n  tag: 9.9.9\n"}, branch="release")
    prefetch = gitprefetch.start(remote.url, "release")
    assert prefetch is not None
    with GitRemote(remote.url, Credentials.from_env(), prefetch=prefetch) as git:
        tip = git.fetch_branch("main")
    assert str(tip.id) == remote.head("main") != remote.head("release")
    prefetch.close()


@pytest.mark.usefixtures("git_env")
def test_a_retried_attempt_does_not_take_a_prefetch_that_was_taken(host: GitHost) -> None:
    remote = shop_repo(host)
    prefetch = gitprefetch.start(remote.url, "main")
    assert prefetch is not None
    with GitRemote(remote.url, Credentials.from_env(), prefetch=prefetch) as first:
        first.fetch_branch("main")
    remote.commit({"README.md": "moved on\n"})
    before = _requests(host)
    with GitRemote(remote.url, Credentials.from_env(), prefetch=prefetch) as second:
        tip = second.fetch_branch("main")
    assert str(tip.id) == remote.head()  # the branch as it is now, not the prefetched tip
    assert _requests(host) > before


@pytest.mark.usefixtures("git_env")
def test_a_prefetch_with_other_credentials_is_not_taken(host: GitHost) -> None:
    remote = shop_repo(host)
    prefetch = gitprefetch.start(remote.url, "main")
    assert prefetch is not None
    wrong = Credentials(USERNAME, "not-the-token")
    with GitRemote(remote.url, wrong, prefetch=prefetch) as git, pytest.raises(GitError) as err:
        git.fetch_branch("main")  # the prefetch was answered: its credentials were good
    prefetch.close()
    assert "authentication" in str(err.value) and "not-the-token" not in str(err.value)


@pytest.mark.parametrize(
    "case", ["missing repository", "missing branch", "wrong token", "server down"]
)
def test_a_failed_prefetch_fails_as_the_fetch_would(
    host: GitHost, case: str, monkeypatch: pytest.MonkeyPatch, git_env: None
) -> None:
    remote = shop_repo(host)
    url, branch = remote.url, "main"
    if case == "missing repository":
        url = url.replace("acme/gitops", "acme/nothing")
    elif case == "missing branch":
        branch = "nothing"
    elif case == "wrong token":
        monkeypatch.setenv("GIT_TOKEN", "wrong-token-123")
    else:
        url = "http://127.0.0.1:9/acme/gitops.git"  # the discard port: nothing listens
    messages = []
    prefetch = gitprefetch.start(url, branch)
    assert prefetch is not None
    for given in (None, prefetch):
        with (
            GitRemote(url, Credentials.from_env(), prefetch=given) as git,
            pytest.raises(GitError) as err,
        ):
            git.fetch_branch(branch)
        messages.append((str(err.value), err.value.transient))
    assert prefetch.claim(url, Credentials.from_env().authorization(), 120) is None  # taken
    assert messages[0] == messages[1]
    assert "wrong-token-123" not in messages[1][0]


def test_only_a_cold_native_fetch_over_http_is_prefetched(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.delenv("PROMOFLOW_GIT_TRANSPORT", raising=False)
    url = "http://127.0.0.1:9/acme/gitops.git"
    assert gitprefetch.start(url, "main", cache_dir=tmp_path) is None  # asks from its own tip
    assert gitprefetch.start("ssh://git@example.com/acme/gitops.git", "main") is None
    assert gitprefetch.start("http://example.com:99999/x.git", "main") is None  # refused later
    assert gitprefetch.start(url, "") is None
    monkeypatch.setenv("PROMOFLOW_GIT_TRANSPORT", "cli")
    assert gitprefetch.start(url, "main") is None
