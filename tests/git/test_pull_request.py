"""``--action pull-request`` and ``step wait-merge`` against fake GitHub and GitLab APIs."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from orchestrator.adapters.git import GitRemote
from orchestrator.adapters.scm import ScmClient, ScmError, ScmTarget
from orchestrator.steps.pull_request import PullRequestResult, open_pull_request
from orchestrator.steps.request import parse_files
from orchestrator.steps.wait_merge import MergeError, wait_for_merge
from tests.fakes.scm_server import FakeScm, Kind
from tests.git.conftest import (
    TOKEN,
    VALUES_STAGING,
    GitHost,
    Remote,
    promote_args,
    run_step,
    shop_repo,
    shop_request,
    step_json,
)

VALUES_PROMOTED = (
    VALUES_STAGING.replace("tag: 1.4.1", "tag: 1.4.2")
    .replace(
        "sha256:bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb",
        "sha256:aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
    )
    .replace("version: 1.9.0", "version: 2.0.0")
)


@pytest.fixture(params=["github", "gitlab"])
def kind(request: pytest.FixtureRequest) -> Kind:
    value: Kind = request.param
    return value


@pytest.fixture
def remote(host: GitHost) -> Remote:
    return shop_repo(host)


@pytest.fixture
def scm(kind: Kind, remote: Remote) -> Iterator[FakeScm]:
    def branch_sha(branch: str) -> str | None:
        return remote.head(branch) if branch in remote.branches() else None

    with FakeScm(kind, TOKEN, branch_sha=branch_sha) as fake:
        yield fake


def scm_env(host: GitHost, scm: FakeScm, **extra: str) -> dict[str, str]:
    return host.env(
        PROMOFLOW_SCM=scm.kind, PROMOFLOW_SCM_API_URL=scm.url, PROMOFLOW_POLL_INTERVAL="0.1",
        **extra,
    )  # fmt: skip


def pr_url(scm: FakeScm, number: int) -> str:
    if scm.kind == "github":
        return f"https://scm.example.com/acme/gitops/pull/{number}"
    return f"https://scm.example.com/acme/gitops/-/merge_requests/{number}"


def open_directly(host: GitHost, remote: Remote, scm: FakeScm) -> PullRequestResult:
    client = ScmClient(ScmTarget(scm.kind, scm.url, "acme/gitops"), TOKEN)
    try:
        with GitRemote(remote.url, host.credentials) as git:
            return open_pull_request(git, shop_request(remote, version="1.4.2"), scm=client)
    finally:
        client.close()


def after_first_poll(scm: FakeScm, action: Callable[[], None]) -> threading.Thread:
    """Do ``action`` once the step has asked about the request (as a reviewer in the web UI
    would, some time after the step started waiting): however slowly the step starts, it
    sees the request open first, then changed."""
    seen = len(scm.requests)

    def run() -> None:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            if any(method == "GET" for method, _, _ in scm.requests[seen:]):
                break
            time.sleep(0.02)
        action()

    thread = threading.Thread(target=run)
    thread.start()
    return thread


def test_pull_request_is_opened_once(
    host: GitHost, remote: Remote, scm: FakeScm, tmp_path: Path
) -> None:
    main, source = remote.head(), remote.head()
    outputs = tmp_path / "out"
    args = promote_args(remote, "--action", "pull-request", "--version", "1.4.2",
                        "--run", "promote-shop-q1", "--outputs", str(outputs))  # fmt: skip

    first = step_json(run_step(*args, env=scm_env(host, scm)))

    branches = remote.branches()
    assert len(branches) == 2 and "main" in branches
    (branch,) = [b for b in branches if b != "main"]
    assert branch.startswith("promoflow/shop/staging/1-4-2-")
    assert first == {
        "commit": remote.head(branch),
        "changed": True,
        "files": ["envs/staging/shop/values.yaml"],
        "pull_request": pr_url(scm, 1),
        "state": "pull-request",
    }
    assert (outputs / "pull-request").read_text() == pr_url(scm, 1)
    assert (outputs / "commit").read_text() == first["commit"]
    assert remote.head() == main  # nothing lands on main before the merge
    assert remote.git("rev-parse", f"{branch}^").strip() == main
    assert remote.show("envs/staging/shop/values.yaml", branch) == VALUES_PROMOTED
    assert "Promotion-Run: promote-shop-q1" in remote.message(branch)
    (pull,) = scm.pulls.values()
    assert (pull.head, pull.base, pull.head_sha) == (branch, "main", first["commit"])
    assert pull.title == "Promote shop 1.4.2 to staging"
    assert pull.body == (
        "Promotes **shop 1.4.2** from `dev` to `staging`.\n"
        "\n"
        "| file | value | from | to |\n"
        "| --- | --- | --- | --- |\n"
        "| `values.yaml` | `image.tag` | `1.4.1` | `1.4.2` |\n"
        f"| `values.yaml` | `image.digest` | `sha256:{'b' * 64}` | `sha256:{'a' * 64}` |\n"
        "| `values.yaml` | `chart.version` | `1.9.0` | `2.0.0` |\n"
        "\n"
        f"Source commit: `{source}`\n"
        "Promotion run: `promote-shop-q1`\n"
    )

    # A retried step finds its branch and its pull request: no second one.
    again = step_json(run_step(*args, env=scm_env(host, scm)))

    assert again == first
    assert len(scm.pulls) == 1
    assert sum(method == "POST" for method, _, _ in scm.requests) == 1
    assert all(status < 400 for _, _, status in scm.requests)
    assert remote.branches() == branches and remote.head(branch) == first["commit"]
    assert remote.head() == main
    for name in branches:
        remote.assert_fast_forwards_only(name)
    remote.assert_fsck()


def merge_in_git(remote: Remote, branch: str) -> str:
    """Merge ``branch`` into main with a merge commit, as the hosting service would."""
    tree = remote.git("rev-parse", f"{branch}^{{tree}}").strip()
    main = remote.head()
    merge = remote.git(
        "-c", "user.name=Reviewer", "-c", "user.email=reviewer@example.com",
        "commit-tree", tree, "-p", main, "-p", remote.head(branch), "-m", f"Merge {branch}",
    ).strip()  # fmt: skip
    remote.git("update-ref", "refs/heads/main", merge, main)
    return merge


def test_wait_merge_outputs_the_merge_commit(
    host: GitHost, remote: Remote, scm: FakeScm, tmp_path: Path
) -> None:
    opened = open_directly(host, remote, scm)
    assert opened.changed and opened.pull_request == pr_url(scm, 1)
    merged: list[str] = []

    def review() -> None:
        merged.append(merge_in_git(remote, opened.branch))
        # GitLab reports squash merges in squash_commit_sha: cover that one there.
        scm.merge(1, merged[0], squash=scm.kind == "gitlab")

    reviewer = after_first_poll(scm, review)
    outputs = tmp_path / "out"
    try:
        result = run_step("wait-merge", "--environment", "staging",
                          "--pull-request", opened.pull_request, "--repo", remote.url,
                          "--timeout", "20s", "--outputs", str(outputs),
                          env=scm_env(host, scm))  # fmt: skip
    finally:
        reviewer.join()

    assert step_json(result) == {"environment": "staging", "commit": merged[0]}
    assert (outputs / "commit").read_text() == merged[0]
    assert f"waiting for {opened.pull_request} to be merged" in result.stderr  # it polled
    assert f"{opened.pull_request} merged as {merged[0]}" in result.stderr
    assert remote.show("envs/staging/shop/values.yaml") == VALUES_PROMOTED
    remote.assert_fast_forwards_only()


def test_wait_merge_fails_when_closed_unmerged(host: GitHost, remote: Remote, scm: FakeScm) -> None:
    opened = open_directly(host, remote, scm)
    reviewer = after_first_poll(scm, lambda: scm.close(1))
    try:
        result = run_step("wait-merge", "--environment", "staging",
                          "--pull-request", opened.pull_request, "--repo", remote.url,
                          "--timeout", "20s", env=scm_env(host, scm))  # fmt: skip
    finally:
        reviewer.join()

    assert result.returncode == 1, result.stdout + result.stderr
    assert result.stdout == ""
    assert "Traceback" not in result.stderr
    errors = [line for line in result.stderr.splitlines() if line.startswith("error:")]
    assert errors == [f"error: {opened.pull_request} was closed without being merged"]
    assert TOKEN not in result.stderr


def test_wait_merge_errors(remote: Remote, scm: FakeScm, host: GitHost) -> None:
    """Refused tokens are terminal, unknown numbers too, and the timeout is honoured."""
    opened = open_directly(host, remote, scm)
    target = ScmTarget(scm.kind, scm.url, "acme/gitops")

    def wait(token: str, url: str, timeout: float = 5) -> str:
        client = ScmClient(target, token)
        try:
            return wait_for_merge(url, remote.url, timeout, interval=0.05, client=client)
        finally:
            client.close()

    with pytest.raises(MergeError, match=r"refused the token \(401\)") as refused:
        wait("tok-wrong", opened.pull_request)
    assert not refused.value.transient
    with pytest.raises(MergeError, match="answered 404"):
        wait(TOKEN, pr_url(scm, 99))
    with pytest.raises(MergeError, match="not a pull request URL"):
        wait(TOKEN, "https://scm.example.com/acme/gitops/pulls")
    with pytest.raises(MergeError, match="was not merged within the timeout"):
        wait(TOKEN, opened.pull_request, timeout=0.2)
    assert scm.pulls[1].state == "open"


def test_nothing_to_promote_opens_no_pull_request(
    host: GitHost, remote: Remote, scm: FakeScm
) -> None:
    remote.commit({"envs/staging/shop/values.yaml": VALUES_PROMOTED})
    head = remote.head()

    result = open_directly(host, remote, scm)

    assert (result.changed, result.commit, result.pull_request) == (False, head, "")
    assert scm.pulls == {} and scm.requests == []
    assert remote.branches() == ["main"]


def test_body_lists_whole_files_apart_from_edited_values(
    host: GitHost, remote: Remote, scm: FakeScm
) -> None:
    remote.commit(
        {
            "envs/dev/shop/config/extra-values.yaml": "a: 1\n",
            "envs/staging/shop/config/extra-values.yaml": "a: 0\n",
        }
    )
    files = parse_files('[{"file": "values.yaml", "paths": ["image.tag"]}, {"file": "config/*"}]')
    client = ScmClient(ScmTarget(scm.kind, scm.url, "acme/gitops"), TOKEN)
    try:
        with GitRemote(remote.url, host.credentials) as git:
            result = open_pull_request(git, shop_request(remote, files=files), scm=client)
    finally:
        client.close()

    assert result.changed and result.pull_request == pr_url(scm, 1)
    body = scm.pulls[1].body
    assert "| `values.yaml` | `image.tag` | `1.4.1` | `1.4.2` |\n\n" in body
    # extra-values.yaml ends like values.yaml but was copied whole: it is listed as such.
    assert (
        "Files copied as a whole:\n"
        "- `envs/staging/shop/config/app.json`\n"
        "- `envs/staging/shop/config/extra-values.yaml`\n\n"
    ) in body
    assert body.startswith("Promotes **shop** from `dev` to `staging`.\n")  # no version
    assert scm.pulls[1].title == "Promote shop to staging"


def test_fake_scm_refuses_like_upstream(scm: FakeScm) -> None:
    """The fake answers errors with upstream's status codes, which ScmClient reports."""
    target = ScmTarget(scm.kind, scm.url, "acme/gitops")
    duplicate = 422 if scm.kind == "github" else 409
    unknown_head = 422 if scm.kind == "github" else 400
    client, anonymous = ScmClient(target, TOKEN), ScmClient(target, "")
    other = ScmClient(ScmTarget(scm.kind, scm.url, "acme/other"), TOKEN)
    try:
        with pytest.raises(ScmError, match=r"refused the token \(401\)"):
            anonymous.find_open("main", "main")
        with pytest.raises(ScmError, match="answered 404"):
            other.find_open("main", "main")
        with pytest.raises(ScmError, match=f"answered {unknown_head}"):
            client.open("no-such-branch", "main", "t", "b")
        first = client.open("main", "main", "t", "b")
        assert client.open("main", "main", "t", "b") == first  # found, not created again
        assert (first.number, first.state, first.merge_commit) == (1, "open", None)
        path = (
            "/repos/acme/gitops/pulls"
            if scm.kind == "github"
            else "/projects/acme%2Fgitops/merge_requests"
        )
        body = (
            {"title": "t", "head": "main", "base": "main"}
            if scm.kind == "github"
            else {"title": "t", "source_branch": "main", "target_branch": "main"}
        )
        assert client.http.post(path, json=body).status_code == duplicate
        scm.merge(1, "a" * 40)
        assert client.get(1).state == "merged" and client.get(1).merge_commit == "a" * 40
        assert client.find_open("main", "main") is None
    finally:
        for each in (client, anonymous, other):
            each.close()
