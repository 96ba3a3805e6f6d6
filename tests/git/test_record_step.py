"""``promoflow step record`` against a real smart-HTTP remote: the verified note lands
on the promotion commit, several runs noting at once all land, and nothing is written
for an environment that committed nothing."""

from __future__ import annotations

import json
from concurrent.futures import ThreadPoolExecutor

import pygit2

from orchestrator.adapters.git import GitRemote
from orchestrator.adapters.gitnotes import add_note
from orchestrator.history.note import parse
from tests.git.conftest import TOKEN, GitHost, Remote, run_step, shop_repo

NOTES = "refs/notes/promoflow"


def note_of(remote: Remote, commit: str) -> str:
    return remote.git("notes", f"--ref={NOTES}", "show", commit)


def record(
    remote: Remote, host: GitHost, commit: str, changed: str = "true"
) -> tuple[int, str, str]:
    done = run_step(
        "record", "--environment", "dev", "--repo", remote.url, "--commit", commit,
        "--changed", changed, "--gates", "sync,health,soak", "--run", "promoflow-shop-x7k2p",
        env=host.env(),
    )  # fmt: skip
    return done.returncode, done.stdout, done.stderr


def test_the_note_lands_on_the_commit_and_reads_back(host: GitHost, transport: str) -> None:
    remote = shop_repo(host)
    commit = remote.head()
    code, out, err = record(remote, host, commit)
    assert code == 0, err
    assert json.loads(out) == {"environment": "dev", "recorded": True, "commit": commit}
    found = parse(note_of(remote, commit))
    assert found is not None and found.verified and found.run == "promoflow-shop-x7k2p"
    assert [(g.kind, g.passed) for g in found.gates] == [
        ("sync", True), ("health", True), ("soak", True)
    ]  # fmt: skip
    assert remote.head() == commit  # the branch did not move: Argo CD has nothing new
    code, _, err = record(remote, host, commit)  # a retried run: appended, the last holds
    assert code == 0, err
    assert note_of(remote, commit).count("Promotion-Outcome: verified") == 2


def test_nothing_is_recorded_for_an_environment_that_committed_nothing(host: GitHost) -> None:
    remote = shop_repo(host)
    code, out, err = record(remote, host, remote.head(), changed="false")
    assert code == 0, err
    assert json.loads(out)["recorded"] is False
    assert "refs/notes" not in remote.git("for-each-ref")


def test_bad_input_is_refused_before_anything_is_pushed(host: GitHost) -> None:
    remote = shop_repo(host)
    code, _, err = record(remote, host, "abc123")
    assert code == 2 and "--commit must be the promotion commit's full id" in err
    code, _, err = record(remote, host, remote.head(), changed="yes")
    assert code == 2 and "--changed" in err
    wrong = run_step(
        "record", "--environment", "dev", "--repo", "not a url", "--commit", remote.head(),
        env=host.env(),
    )  # fmt: skip
    assert wrong.returncode == 2 and "--repo" in wrong.stderr, wrong.stderr
    denied = run_step(
        "record", "--environment", "dev", "--repo", remote.url, "--commit", remote.head(),
        env=host.env(GIT_TOKEN="wrong-token"),
    )  # fmt: skip
    assert denied.returncode == 1, denied.stderr
    assert "was not recorded" in denied.stderr and "wrong-token" not in denied.stderr
    assert TOKEN not in denied.stderr
    assert "refs/notes" not in remote.git("for-each-ref")


def test_runs_noting_at_once_all_land(host: GitHost, transport: str) -> None:
    """Every product's notes share one ref: a push that lost the race is built again."""
    remote = shop_repo(host)
    commits = [remote.commit({f"envs/dev/p{i}/values.yaml": f"v: {i}\n"}) for i in range(6)]
    who = pygit2.Signature("promoflow", "promoflow@example.com")

    def noting(commit: str) -> int:
        with GitRemote(remote.url, host.credentials) as git:
            return add_note(
                git, commit, f"Promotion-Outcome: verified\nPromotion-Run: {commit}\n", who
            )

    with ThreadPoolExecutor(len(commits)) as pool:
        attempts = list(pool.map(noting, commits))
    for commit in commits:
        found = parse(note_of(remote, commit))
        assert found is not None and found.run == commit
    # one notes commit per addition, each on the one before: none overwrote another
    assert int(remote.git("rev-list", "--count", NOTES).strip()) == len(commits)
    assert sum(attempts) >= len(commits)
    remote.assert_fsck()
