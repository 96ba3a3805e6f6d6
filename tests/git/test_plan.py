"""``promoflow step plan`` (``plan-ENV``, before an approval) and what the deploy after it
may commit: an unchanged environment is asked no approval, so its deploy must not commit."""

from __future__ import annotations

from pathlib import Path

import pytest

from orchestrator.adapters.git import GitRemote
from orchestrator.steps.edits import PromoteError
from orchestrator.steps.pull_request import open_pull_request
from tests.git.conftest import (
    GitHost,
    promote_args,
    promote_direct,
    run_step,
    shop_repo,
    shop_request,
    step_json,
)


def plan_args(remote: object, *extra: str) -> list[str]:
    """The plan task's flags: the deploy's, less the mutex (it pushes nothing)."""
    args = promote_args(remote, *extra)  # type: ignore[arg-type]
    return ["plan", *args[1:]]


def test_the_plan_says_what_would_change_and_changes_nothing(
    host: GitHost, transport: str, tmp_path: Path
) -> None:
    remote = shop_repo(host)
    head, refs = remote.head(), remote.git("for-each-ref")
    outputs = tmp_path / "out"

    planned = step_json(run_step(*plan_args(remote, "--outputs", str(outputs)), env=host.env()))

    assert planned == {
        "commit": head,
        "changed": True,
        "files": ["envs/staging/shop/values.yaml"],
        "state": "changes",
    }
    assert (outputs / "changed").read_text() == "true"
    assert (outputs / "commit").read_text() == head
    assert remote.head() == head and remote.count() == 1
    assert remote.git("for-each-ref") == refs

    promoted = promote_direct(host, shop_request(remote))
    again = step_json(run_step(*plan_args(remote, "--outputs", str(outputs)), env=host.env()))

    assert again == {"commit": promoted.commit, "changed": False, "files": [], "state": "unchanged"}
    assert (outputs / "changed").read_text() == "false"
    assert remote.head() == promoted.commit


def test_the_plan_fails_as_the_deploy_would(host: GitHost) -> None:
    """A plan that cannot be made fails before the approval is asked, with the reason."""
    remote = shop_repo(host)
    result = run_step(*plan_args(remote, "--version", "9.9.9"), env=host.env())
    assert result.returncode == 1
    assert result.stderr.strip() == (
        "error: dev holds version 1.4.2 (envs/dev/shop/values.yaml), not 9.9.9: "
        "promote 9.9.9 into it first"
    )


def test_a_deploy_refuses_a_change_the_plan_did_not_see(host: GitHost, transport: str) -> None:
    """The plan found nothing to change, so no approval was asked; if the branch moved
    since and there is something to commit now, it is not committed: no commit goes out
    without the approval it needed."""
    remote = shop_repo(host)
    head = remote.head()

    result = run_step(*promote_args(remote, "--planned", "false"), env=host.env())

    assert result.returncode == 1, result.stderr
    assert result.stdout == ""
    assert result.stderr.strip() == (
        "error: staging held the promoted values when the promotion was planned, so no "
        "approval was asked; now envs/staging/shop/values.yaml would change (the branch "
        "moved since): nothing is committed without an approval, promote again"
    )
    assert remote.head() == head and remote.count() == 1 and remote.branches() == ["main"]


def test_a_deploy_after_an_unchanged_plan_reports_unchanged(host: GitHost, tmp_path: Path) -> None:
    remote = shop_repo(host)
    promoted = promote_direct(host, shop_request(remote))
    outputs = tmp_path / "out"
    args = promote_args(remote, "--planned", "false", "--outputs", str(outputs))

    result = step_json(run_step(*args, env=host.env()))

    assert result["state"] == "unchanged" and result["commit"] == promoted.commit
    assert (outputs / "changed").read_text() == "false"
    assert remote.head() == promoted.commit


def test_a_deploy_after_a_plan_that_saw_changes_commits(host: GitHost) -> None:
    remote = shop_repo(host)
    result = step_json(run_step(*promote_args(remote, "--planned", "true"), env=host.env()))
    assert result["state"] == "committed" and result["commit"] == remote.head()


def test_planned_takes_true_false_or_nothing(host: GitHost) -> None:
    remote = shop_repo(host)
    result = run_step(*promote_args(remote, "--planned", "yes"), env=host.env())
    assert result.returncode == 2
    assert "expected true, false or nothing, got 'yes'" in result.stderr


def test_a_pull_request_is_not_opened_for_a_change_the_plan_did_not_see(host: GitHost) -> None:
    remote = shop_repo(host)
    request = shop_request(remote, action="pull-request")
    with GitRemote(request.repo, host.credentials) as git, pytest.raises(PromoteError) as raised:
        open_pull_request(git, request, allow_changes=False)
    assert "no approval was asked" in str(raised.value)
    assert remote.branches() == ["main"]  # no promotion branch was pushed
