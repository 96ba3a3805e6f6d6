"""``promoflow step promote`` against a real smart-HTTP remote, with both transports."""

from __future__ import annotations

import base64
import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

from orchestrator.adapters.git import GitRemote
from orchestrator.steps.diff import promotion_diff
from orchestrator.steps.edits import PromoteError
from orchestrator.steps.request import parse_files
from tests.git.conftest import (
    SHOP_FILES,
    TOKEN,
    USERNAME,
    VALUES_DEV,
    VALUES_STAGING,
    GitHost,
    Remote,
    promote_args,
    promote_direct,
    run_step,
    shop_repo,
    shop_request,
    step_json,
)

# A hand-edited file: comments, every quoting style, flow mappings, odd indentation.
ANNOTATED_DEV = """\
app:
  image: {repo: registry.example.com/acme/shop, tag: "1.4.2"}
  banner: Spring sale, now on
  limits:
    memory: 512Mi
  release: "2.10"
"""
ANNOTATED_STAGING = """\
# Staging overrides: edited by hand AND by promotions.
app:
    # the image is promoted
    image: {repo: registry.example.com/acme/shop, tag: "1.4.1"}   # flow style
    banner: 'Winter sale'  # single-quoted on purpose
    limits:
         memory: "256Mi"      # double quotes, odd indentation
         cpu: 250m
    release: 2.9   # a float here, a string in dev
    replicas:   2
"""
ANNOTATED_EXPECTED = """\
# Staging overrides: edited by hand AND by promotions.
app:
    # the image is promoted
    image: {repo: registry.example.com/acme/shop, tag: "1.4.2"}   # flow style
    banner: 'Spring sale, now on'  # single-quoted on purpose
    limits:
         memory: "512Mi"      # double quotes, odd indentation
         cpu: 250m
    release: "2.10"   # a float here, a string in dev
    replicas:   2
"""
ANNOTATED_PATHS = ["app.image.tag", "app.banner", "app.limits.memory", "app.release"]
VALUES_PATHS = ["image.tag", "image.digest", "chart.version"]
FILES = json.dumps(
    [
        {"file": "values.yaml", "paths": VALUES_PATHS},
        {"file": "annotated.yaml", "paths": ANNOTATED_PATHS},
    ]
)
VALUES_EXPECTED = (
    VALUES_STAGING.replace("tag: 1.4.1", "tag: 1.4.2")
    .replace(
        "sha256:bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb",
        "sha256:aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
    )
    .replace("version: 1.9.0", "version: 2.0.0")
)
SOURCE_MESSAGE = "SHOP-142: release 1.4.2\n\nAlso fixes OPS-7 (and SHOP-142 again).\n"
UNRELATED = [
    "README.md",
    "envs/dev/shop/values.yaml",
    "envs/dev/shop/annotated.yaml",
    "envs/staging/shop/config/app.json",
    "envs/staging/shop/secrets.yaml",
    "envs/prod-eu/shop/values.yaml",
]


def at(data: object, path: str) -> object:
    for part in path.split("."):
        assert isinstance(data, dict)
        data = data[part]
    return data


def blob_ids(remote: Remote, paths: list[str]) -> dict[str, str]:
    return {p: remote.git("rev-parse", f"main:{p}").strip() for p in paths}


def changed_paths(remote: Remote, old: str, new: str) -> list[str]:
    return remote.git("diff", "--name-only", old, new).split()


@pytest.fixture
def git_spy(tmp_path: Path) -> tuple[dict[str, str], Path]:
    """A ``git`` first on PATH that logs its arguments: shows which transport really ran."""
    real = shutil.which("git")
    assert real is not None
    bindir, log = tmp_path / "spy-bin", tmp_path / "git-calls.log"
    bindir.mkdir()
    script = bindir / "git"
    script.write_text(f'#!/bin/sh\necho "$*" >> "{log}"\nexec "{real}" "$@"\n')
    script.chmod(0o755)
    return {"PATH": f"{bindir}:{os.environ['PATH']}"}, log


def test_promote_over_http(
    host: GitHost, transport: str, tmp_path: Path, git_spy: tuple[dict[str, str], Path]
) -> None:
    remote = shop_repo(host)
    source = remote.commit(
        {
            "envs/dev/shop/annotated.yaml": ANNOTATED_DEV,
            "envs/staging/shop/annotated.yaml": ANNOTATED_STAGING,
        },
        message=SOURCE_MESSAGE,
    )
    before, unrelated = remote.head(), blob_ids(remote, UNRELATED)
    spy_env, spy_log = git_spy
    env = host.env(**spy_env)
    assert env["PROMOFLOW_GIT_TRANSPORT"] == transport
    outputs = tmp_path / "out"
    args = promote_args(remote, "--run", "promote-shop-x7k2p", "--requested-by", "alice",
                        "--outputs", str(outputs), files=FILES)  # fmt: skip

    result = step_json(run_step(*args, env=env))

    files = ["envs/staging/shop/annotated.yaml", "envs/staging/shop/values.yaml"]
    assert result == {
        "commit": remote.head(),
        "changed": True,
        "files": files,
        "state": "committed",
    }
    commit = result["commit"]
    assert remote.git("rev-parse", f"{commit}^").strip() == before  # built on the tip
    assert remote.count() == 3
    assert changed_paths(remote, before, commit) == files
    assert blob_ids(remote, UNRELATED) == unrelated
    staging = remote.show("envs/staging/shop/values.yaml")
    assert staging == VALUES_EXPECTED
    dev, promoted = yaml.safe_load(VALUES_DEV), yaml.safe_load(staging)
    assert all(at(promoted, p) == at(dev, p) for p in VALUES_PATHS)
    assert promoted["replicas"] == 2  # not promoted
    assert remote.show("envs/staging/shop/annotated.yaml") == ANNOTATED_EXPECTED
    message = remote.message()
    assert message.splitlines()[0] == "Promote shop (current version) to staging"
    assert "Copy annotated.yaml, values.yaml from dev to staging." in message
    # as git itself reads them: one trailer block, the last paragraph
    parsed = subprocess.run(
        ["git", "interpret-trailers", "--parse"], input=message, capture_output=True,
        text=True, check=True,
    ).stdout.splitlines()  # fmt: skip
    assert parsed == [
        f"Promoted-From: dev@{source[:12]}",
        "Promotion-Run: promote-shop-x7k2p",
        "Requested-By: alice",
        "Jira-Issues: SHOP-142, OPS-7",
        "Promotion-Product: shop",
        "Promotion-Environment: staging",
    ]  # no Promotion-Version: this request names none
    assert (outputs / "commit").read_text() == commit
    assert (outputs / "changed").read_text() == "true"
    assert (outputs / "pull-request").read_text() == ""
    remote.assert_fsck()
    remote.assert_fast_forwards_only()

    # Idempotent: the target already holds the values, so nothing is committed.
    again = step_json(run_step(*args, env=env))
    assert again == {"commit": commit, "changed": False, "files": [], "state": "unchanged"}
    assert remote.head() == commit and remote.count() == 3
    assert (outputs / "changed").read_text() == "false"
    assert (outputs / "commit").read_text() == commit
    remote.assert_fsck()
    remote.assert_fast_forwards_only()

    # The transport asked for is the one that ran; no credential ever is an argument.
    calls = spy_log.read_text() if spy_log.exists() else ""
    if transport == "cli":
        assert " fetch " in calls and " push " in calls
    else:
        assert calls == ""  # native smart HTTP: no git process at all
    basic = base64.b64encode(f"{USERNAME}:{TOKEN}".encode()).decode()
    assert TOKEN not in calls and basic not in calls


def test_version_is_set_in_the_trigger_environment(host: GitHost) -> None:
    remote = shop_repo(host)
    before = remote.head()
    args = [
        "promote", "--product", "shop", "--to", "dev", "--version", "1.5.0",
        "--repo", remote.url, "--branch", "main", "--target-path", "envs/dev/shop",
        "--files", SHOP_FILES, "--version-file", "values.yaml", "--version-path", "image.tag",
    ]  # fmt: skip

    result = step_json(run_step(*args, env=host.env()))

    assert result == {
        "commit": remote.head(),
        "changed": True,
        "files": ["envs/dev/shop/values.yaml"],
        "state": "committed",
    }
    assert remote.show("envs/dev/shop/values.yaml") == VALUES_DEV.replace("1.4.2", "1.5.0")
    assert changed_paths(remote, before, result["commit"]) == ["envs/dev/shop/values.yaml"]
    message = remote.message()
    assert message.splitlines()[0] == "Promote shop 1.5.0 to dev"
    assert "Set image.tag in values.yaml to 1.5.0." in message
    assert "Promoted-From" not in message  # a new version comes from a build, not from an env
    assert "Promotion-Run: -" in message
    remote.assert_fsck()
    remote.assert_fast_forwards_only()

    # Promoting that version onward: dev holds 1.5.0 now, so the version check passes.
    onward = promote_direct(host, shop_request(remote, version="1.5.0"))
    assert onward.changed
    assert yaml.safe_load(remote.show("envs/staging/shop/values.yaml"))["image"]["tag"] == "1.5.0"
    assert remote.message().splitlines()[0] == "Promote shop 1.5.0 to staging"

    # The trigger environment without a version cannot be promoted.
    trigger = shop_request(
        remote, environment="dev", source_environment=None, source_path=None,
        target_path="envs/dev/shop",
    )  # fmt: skip
    with pytest.raises(PromoteError, match="needs --version"):
        promote_direct(host, trigger)
    remote.assert_fast_forwards_only()


def test_branch_per_environment(host: GitHost, transport: str) -> None:
    """Environments on branches: read ``dev``, write ``staging``, pinned to a source commit."""
    remote = host.create()
    pinned = remote.commit({"shop/values.yaml": VALUES_DEV}, branch="dev")
    newer = remote.commit(
        {"shop/values.yaml": VALUES_DEV.replace("1.4.2", "1.4.3")}, branch="dev", message="PAY-9"
    )
    remote.commit({"shop/values.yaml": VALUES_STAGING, "notes.txt": "staging\n"}, branch="staging")
    staging_before = remote.head("staging")
    args = [
        "promote", "--product", "shop", "--to", "staging", "--from", "dev",
        "--repo", remote.url, "--branch", "staging", "--source-branch", "dev",
        "--source-path", "shop", "--target-path", "shop", "--files", SHOP_FILES,
        "--source-commit", pinned,
    ]  # fmt: skip

    result = step_json(run_step(*args, env=host.env()))

    assert result["commit"] == remote.head("staging") and result["changed"]
    assert remote.git("rev-parse", "staging^").strip() == staging_before
    assert remote.show("shop/values.yaml", "staging") == VALUES_EXPECTED  # 1.4.2, not 1.4.3
    assert remote.head("dev") == newer
    assert sorted(remote.branches()) == ["dev", "staging"]
    assert f"Promoted-From: dev@{pinned[:12]}" in remote.message("staging")
    assert "Jira-Issues" not in remote.message("staging")

    # Without a pin the source branch's tip is read.
    request = shop_request(
        remote, branch="staging", source_branch="dev", source_path="shop", target_path="shop"
    )
    tip = promote_direct(host, request)
    assert tip.changed and tip.commit == remote.head("staging")
    assert yaml.safe_load(remote.show("shop/values.yaml", "staging"))["image"]["tag"] == "1.4.3"
    message = remote.message("staging")
    assert f"Promoted-From: dev@{newer[:12]}" in message and "Jira-Issues: PAY-9" in message
    assert remote.show("notes.txt", "staging") == "staging\n"
    for branch in ("dev", "staging"):
        remote.assert_fast_forwards_only(branch)
    remote.assert_fsck()


def test_glob_copies_adds_and_deletes_whole_files(host: GitHost, transport: str) -> None:
    remote = host.create()
    remote.commit(
        {
            "envs/dev/shop/config/app.json": '{"feature": true}\n',
            "envs/dev/shop/config/new.json": '{"new": 1}\n',
            "envs/dev/shop/config/readme.txt": "dev notes\n",
            "envs/dev/shop/config/nested/deep.json": "{}\n",
            "envs/staging/shop/config/app.json": '{"feature": false}\n',
            "envs/staging/shop/config/old.json": '{"old": 1}\n',
            "envs/staging/shop/config/notes.txt": "kept\n",
            "envs/staging/shop/config/nested/keep.json": "[]\n",
            "envs/staging/shop/values.yaml": VALUES_STAGING,
        }
    )
    before = remote.head()
    request = shop_request(remote, files=parse_files('[{"file": "config/*.json"}]'))
    with GitRemote(remote.url, host.credentials) as git:
        tip, diffs = promotion_diff(git, request)
    assert tip == before
    by_path = {d.path.removeprefix("envs/staging/shop/config/"): d for d in diffs}
    assert {p: d.status for p, d in by_path.items()} == {
        "app.json": "modified",
        "new.json": "added",
        "old.json": "deleted",
    }
    assert by_path["old.json"].text.splitlines()[:3] == [
        "--- a/envs/staging/shop/config/old.json",
        "+++ /dev/null",
        "@@ -1 +0,0 @@",
    ]
    assert by_path["new.json"].text.startswith("--- /dev/null\n+++ b/envs/staging/shop/")

    result = promote_direct(host, request)

    prefix = "envs/staging/shop/config/"
    assert result.changed and result.commit == remote.head()
    assert result.files == [prefix + n for n in ("app.json", "new.json", "old.json")]
    assert changed_paths(remote, before, result.commit) == result.files
    assert remote.show(prefix + "app.json") == '{"feature": true}\n'
    assert remote.show(prefix + "new.json") == '{"new": 1}\n'
    assert not remote.exists(prefix + "old.json")
    # ``*`` stays in its directory, and other extensions are not matched.
    assert remote.show(prefix + "nested/keep.json") == "[]\n"
    assert not remote.exists(prefix + "nested/deep.json")
    assert remote.show(prefix + "notes.txt") == "kept\n"
    # Same blob as the source, not a copy of its text.
    assert remote.git("rev-parse", f"main:{prefix}new.json") == remote.git(
        "rev-parse", "main:envs/dev/shop/config/new.json"
    )

    # ``**`` crosses directories: the nested tree is replaced, and emptied dirs vanish.
    remote.commit({"envs/staging/shop/config/gone/only.json": "{}\n"})
    deep = promote_direct(host, shop_request(remote, files=parse_files('[{"file": "config/**"}]')))
    assert deep.files == [
        prefix + n for n in ("gone/only.json", "nested/deep.json", "nested/keep.json",
                             "notes.txt", "readme.txt")
    ]  # fmt: skip
    listing = remote.git("ls-tree", "-r", "--name-only", "main", prefix).split()
    assert listing == [
        prefix + n for n in ("app.json", "nested/deep.json", "new.json", "readme.txt")
    ]
    assert not remote.exists(prefix + "gone")
    assert remote.show("envs/staging/shop/values.yaml") == VALUES_STAGING
    again = promote_direct(host, shop_request(remote, files=parse_files('[{"file": "config/**"}]')))
    assert not again.changed and again.commit == deep.commit
    remote.assert_fsck()
    remote.assert_fast_forwards_only()


def test_cache_dir_is_reused_and_sees_new_commits(
    host: GitHost, transport: str, tmp_path: Path
) -> None:
    remote = shop_repo(host)
    cache = tmp_path / "cache"

    first = step_json(run_step(*promote_args(remote, "--cache-dir", str(cache)), env=host.env()))

    assert first["changed"] and first["commit"] == remote.head()
    repos = sorted(cache.glob("*.git"))
    assert len(repos) == 1 and (repos[0] / "HEAD").is_file()
    secrets = (TOKEN.encode(), base64.b64encode(f"{USERNAME}:{TOKEN}".encode()))
    for path in cache.rglob("*"):
        if path.is_file():
            assert not any(s in path.read_bytes() for s in secrets), path

    # The remote moves on: a new dev version, and someone else's commit on top of ours.
    remote.commit({"envs/dev/shop/values.yaml": VALUES_DEV.replace("1.4.2", "1.4.3")})
    moved = remote.commit({"README.md": "gitops, edited\n"}, message="docs")

    second = step_json(
        run_step(*promote_args(remote), env=host.env(PROMOFLOW_GIT_CACHE=str(cache)))
    )

    assert second["changed"] and second["commit"] == remote.head()
    assert remote.git("rev-parse", "main^").strip() == moved
    assert sorted(cache.glob("*.git")) == repos  # the same cached repository
    staging = yaml.safe_load(remote.show("envs/staging/shop/values.yaml"))
    assert staging["image"]["tag"] == "1.4.3"
    assert remote.show("README.md") == "gitops, edited\n"
    assert f"Promoted-From: dev@{moved[:12]}" in remote.message()
    remote.assert_fsck()
    remote.assert_fast_forwards_only()


def test_a_version_moves_with_its_digest_or_not_at_all(host: GitHost) -> None:
    """The template says a version comes with image.digest: without it nothing changes;
    with it both are written in one commit."""
    remote = shop_repo(host)
    before = remote.head()
    args = [
        "promote", "--product", "shop", "--to", "dev", "--version", "1.5.0",
        "--repo", remote.url, "--branch", "main", "--target-path", "envs/dev/shop",
        "--files", SHOP_FILES, "--version-file", "values.yaml", "--version-path", "image.tag",
        "--version-field-paths", "image.digest",
    ]  # fmt: skip

    refused = run_step(*args, env=host.env())
    assert refused.returncode == 1 and "Traceback" not in refused.stderr
    assert refused.stderr.strip() == (
        "error: a version of shop comes with image.digest: give each value with the version "
        "(promoflow promote --set image.digest=VALUE)"
    )
    assert remote.head() == before

    fields = json.dumps(
        {"image.digest": "sha256:cccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccc"}
    )
    result = step_json(run_step(*args, "--version-fields", fields, env=host.env()))
    values = yaml.safe_load(remote.show("envs/dev/shop/values.yaml"))
    assert (
        values["image"]["tag"] == "1.5.0"
        and values["image"]["digest"]
        == "sha256:cccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccc"
    )
    assert result["files"] == ["envs/dev/shop/values.yaml"]
    assert remote.count() == 2
    assert "Set image.tag in values.yaml to 1.5.0 (with image.digest)." in remote.message()
