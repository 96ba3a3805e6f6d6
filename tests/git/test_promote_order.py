"""The promote step never writes a version older than its target holds, unless the request
is a rollback, which the commit and the node's message then say.

A real smart-HTTP remote; the step runs as a pod runs it (``promoflow step promote``) where
its message and exit status matter, in process where threads race for the branch.
"""

from __future__ import annotations

import threading
from pathlib import Path

import pytest
import yaml

from orchestrator.adapters.git import GitRemote
from orchestrator.semverrange import version_of
from orchestrator.steps.edits import PromoteError
from orchestrator.steps.promote import promote
from tests.git.conftest import (
    SHOP_FILES,
    VALUES_DEV,
    GitHost,
    Remote,
    promote_args,
    run_step,
    shop_repo,
    shop_request,
    step_json,
)

DEV = "envs/dev/shop/values.yaml"
STAGING = "envs/staging/shop/values.yaml"


def _into_dev(remote: Remote, version: str, *extra: str) -> list[str]:
    return [
        "promote", "--product", "shop", "--to", "dev", "--version", version,
        "--repo", remote.url, "--branch", "main", "--target-path", "envs/dev/shop",
        "--files", SHOP_FILES, "--version-file", "values.yaml", "--version-path", "image.tag",
        *extra,
    ]  # fmt: skip


def _tag(remote: Remote, path: str, rev: str = "main") -> str:
    return str(yaml.safe_load(remote.show(path, rev))["image"]["tag"])


def test_an_older_version_is_refused_in_the_trigger_environment(host: GitHost) -> None:
    remote = shop_repo(host)  # dev holds 1.4.2
    before = remote.head()
    result = run_step(*_into_dev(remote, "1.4.0"), env=host.env())
    assert result.returncode == 1, result.stderr
    assert "Traceback" not in result.stderr
    assert "dev holds 1.4.2 (envs/dev/shop/values.yaml), newer than 1.4.0" in result.stderr
    assert "--rollback true" in result.stderr
    assert remote.head() == before


@pytest.mark.parametrize("version", ["1.4.0", ""])
def test_an_older_version_is_refused_onward(host: GitHost, version: str) -> None:
    """Staging holds 1.4.1; dev went back to 1.4.0 (by hand): promoting it, named or as
    dev's current version, would move staging back."""
    remote = shop_repo(host)
    remote.commit({DEV: VALUES_DEV.replace("1.4.2", "1.4.0")}, message="dev back to 1.4.0")
    before = remote.head()
    extra = ["--version", version] if version else []
    result = run_step(*promote_args(remote, *extra), env=host.env())
    assert result.returncode == 1, result.stderr
    assert "staging holds 1.4.1 (envs/staging/shop/values.yaml), newer than 1.4.0" in (
        result.stderr
    )
    assert remote.head() == before and _tag(remote, STAGING) == "1.4.1"


def test_a_rollback_writes_the_older_version_and_says_so(host: GitHost, tmp_path: Path) -> None:
    remote = shop_repo(host)
    termination = tmp_path / "termination-log"
    env = host.env(PROMOFLOW_TERMINATION_LOG=str(termination))
    result = step_json(run_step(*_into_dev(remote, "1.4.0", "--rollback", "true"), env=env))
    assert result["state"] == "committed" and result["commit"] == remote.head()
    assert _tag(remote, DEV) == "1.4.0"
    assert "Rollback: 1.4.2 -> 1.4.0" in remote.message().splitlines()
    assert "a rollback: 1.4.2 -> 1.4.0" in termination.read_text()
    remote.assert_fast_forwards_only()


def test_a_teams_template_cannot_leave_the_rollback_trailer_out(host: GitHost) -> None:
    remote = shop_repo(host)
    env = host.env(PROMOFLOW_COMMIT_TEMPLATE="Deploy {{ product }} {{ version }}\n")
    step_json(run_step(*_into_dev(remote, "1.4.0", "--rollback", "true"), env=env))
    assert remote.message().strip().split("\n\n") == [
        "Deploy shop 1.4.0",
        "Rollback: 1.4.2 -> 1.4.0\nPromotion-Product: shop\nPromotion-Environment: dev\n"
        "Promotion-Version: 1.4.0",
    ]


def test_a_newer_version_is_no_rollback_and_the_default_is_off(host: GitHost) -> None:
    remote = shop_repo(host)
    step_json(run_step(*_into_dev(remote, "1.5.0", "--rollback", "false"), env=host.env()))
    assert _tag(remote, DEV) == "1.5.0" and "Rollback" not in remote.message()


def test_versions_the_order_cannot_compare_are_promoted_and_said(host: GitHost) -> None:
    remote = shop_repo(host)
    result = run_step(*_into_dev(remote, "latest"), env=host.env())
    step_json(result)
    assert _tag(remote, DEV) == "latest"
    assert "the semver order cannot compare it with latest" in result.stderr


def test_another_order_is_taken_from_the_request(host: GitHost) -> None:
    """Under ``lexical`` 1.10.0 comes before 1.4.2 (as text), so it is refused."""
    remote = shop_repo(host)
    refused = run_step(*_into_dev(remote, "1.10.0", "--version-order", "lexical"), env=host.env())
    bad = run_step(*_into_dev(remote, "1.10.0", "--version-order", "newest"), env=host.env())
    assert refused.returncode == 1 and "newer than 1.10.0 in the lexical order" in refused.stderr
    assert bad.returncode == 2 and "'newest' is not a version order" in bad.stderr


def _race(host: GitHost, remote: Remote, older: str, newer: str) -> dict[str, Exception]:
    """Promote ``older`` and ``newer`` into dev at once; the refusals, by version."""
    barrier = threading.Barrier(2)
    errors: dict[str, Exception] = {}

    def run(version: str) -> None:
        request = shop_request(
            remote, environment="dev", source_environment=None, source_path=None,
            target_path="envs/dev/shop", version=version,
        )  # fmt: skip
        with GitRemote(request.repo, host.credentials) as git:
            barrier.wait()
            try:
                promote(git, request, max_wait=0.05)
            except PromoteError as exc:
                errors[version] = exc

    threads = [threading.Thread(target=run, args=(v,)) for v in (older, newer)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return errors


def test_two_versions_racing_without_a_mutex_never_leave_the_older(host: GitHost) -> None:
    """Two promotions of shop into dev at once, as two local runs without Argo's mutex:
    whichever pushes first, the branch ends at the newer version and never holds the
    older one after the newer."""
    remote = shop_repo(host)
    for round_ in range(4):
        older, newer = f"1.{5 + round_}.0", f"1.{5 + round_}.1"
        errors = _race(host, remote, older, newer)
        assert _tag(remote, DEV) == newer
        assert newer not in errors
        if older in errors:  # the newer landed first: the older was refused, naming both
            assert f"dev holds {newer}" in str(errors[older])
            assert f"newer than {older}" in str(errors[older])
    tags = [_tag(remote, DEV, new) for _, new in remote.ref_updates()]
    assert tags == sorted(tags, key=version_of)  # dev's version only ever went up
    remote.assert_fast_forwards_only()
    remote.assert_fsck()
