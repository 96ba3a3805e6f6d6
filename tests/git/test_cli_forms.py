"""The two forms of a promote request agree, and ``promoflow diff`` shows without committing."""

from __future__ import annotations

import json
import os
import subprocess

import pytest

from orchestrator.imagespec import ImageSpec
from orchestrator.steps.request import parse_files
from tests.git.conftest import (
    EXAMPLES,
    PROMOFLOW,
    REPO_ROOT,
    GitHost,
    promote_direct,
    run_step,
    shop_repo,
    shop_request,
)

CONFIG_REPO = "https://git.example.com/acme/gitops.git"
SOURCE_SHA = "0123456789abcdef0123456789abcdef01234567"
HELM_VALUES_FILES = json.dumps(
    [
        {"file": "values.yaml", "paths": ["image.tag", "image.digest", "chart.version"]},
        {"file": "config/*.json"},  # no paths: the whole file (an empty list is an error)
    ]
)


def plain_env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GIT_", "PROMOFLOW_"))}
    env.update(NO_COLOR="1", COLUMNS="200")
    return env


def run_cli(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(PROMOFLOW), *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        cwd=REPO_ROOT,
    )


def plan(*args: str) -> dict[str, object]:
    result = run_step("promote", *args, "--plan", env=plain_env())
    assert result.returncode == 0, result.stderr
    data: dict[str, object] = json.loads(result.stdout)
    return data


EXAMPLE_IMAGE = ImageSpec(
    file="values.yaml",
    repository="ghcr.io/acme/shop",
    tag_field="image.tag",
    digest_field="image.digest",
    source="values.yaml image.tag",
)
"""The example shop template's image, as the compiler passes it to the step."""


@pytest.mark.parametrize(
    ("environment", "source", "source_path", "target_path", "action"),
    [
        ("staging", "dev", "envs/dev/shop", "envs/staging/shop", "commit"),
        ("prod-us", "staging", "envs/staging/shop", "envs/prod-us/shop", "pull-request"),
    ],
)
def test_config_form_plans_the_resolved_flags(
    environment: str, source: str, source_path: str, target_path: str, action: str
) -> None:
    run_flags = ["--version", "1.4.2", "--source-commit", SOURCE_SHA,
                 "--requested-by", "alice", "--run", "promote-shop-abc12"]  # fmt: skip
    from_config = plan(
        "--config", str(EXAMPLES), "--product", "shop", "--to", environment, *run_flags
    )
    from_flags = plan(
        "--product", "shop", "--to", environment, "--from", source,
        "--repo", CONFIG_REPO, "--branch", "main", "--source-branch", "main",
        "--source-path", source_path, "--target-path", target_path,
        "--files", HELM_VALUES_FILES,
        "--version-file", "values.yaml", "--version-path", "image.tag",
        "--action", action, *run_flags,
        "--image", EXAMPLE_IMAGE.to_json(),
    )  # fmt: skip

    assert from_config == from_flags
    assert from_config["target_path"] == target_path
    assert from_config["action"] == action
    assert from_config["source_commit"] == SOURCE_SHA


def test_config_form_takes_repo_and_branch_overrides() -> None:
    data = plan("--config", str(EXAMPLES), "--product", "shop", "--to", "prod-eu",
                "--repo", "http://127.0.0.1:1/acme/gitops.git", "--branch", "release")  # fmt: skip
    assert data["repo"] == "http://127.0.0.1:1/acme/gitops.git"
    assert data["branch"] == "release"
    assert data["target_path"] == "regions/eu/shop"
    assert data["source_environment"] == "staging"


EXPECTED_DIFF = """\
--- a/envs/staging/shop/config/app.json
+++ b/envs/staging/shop/config/app.json
@@ -1 +1 @@
-{"feature": false}
+{"feature": true}
--- a/envs/staging/shop/values.yaml
+++ b/envs/staging/shop/values.yaml
@@ -1,7 +1,7 @@
 image:
   repository: registry.example.com/acme/shop
-  tag: 1.4.1
-  digest: sha256:bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb
+  tag: 1.4.2
+  digest: sha256:aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa
 chart:
-  version: 1.9.0
+  version: 2.0.0
 replicas: 2
"""

DIGEST = "sha256:" + "c" * 64
EXPECTED_VERSION_DIFF = """\
--- a/envs/dev/shop/values.yaml
+++ b/envs/dev/shop/values.yaml
@@ -1,7 +1,7 @@
 image:
   repository: registry.example.com/acme/shop
-  tag: 1.4.2
-  digest: sha256:aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa
+  tag: 1.5.0
+  digest: sha256:cccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccc
 chart:
   version: 2.0.0
 replicas: 3
"""


def test_diff_shows_the_exact_change_and_commits_nothing(host: GitHost) -> None:
    remote = shop_repo(host)
    head, refs = remote.head(), remote.git("for-each-ref")
    diff = ["diff", "--config", str(EXAMPLES), "--product", "shop", "--repo", remote.url]

    result = run_cli(*diff, "--to", "staging", env=host.env())

    assert result.returncode == 1, result.stderr  # changes: kubectl diff's exit code
    assert result.stdout == EXPECTED_DIFF
    assert result.stderr.strip() == f"2 file(s) would change on main (at {head[:12]})"
    assert remote.head() == head and remote.count() == 1
    assert remote.git("for-each-ref") == refs

    version = [
        "--version",
        "1.5.0",
        "--set",
        "image.digest=sha256:cccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccc",
    ]
    trigger = run_cli(*diff, "--to", "dev", *version, env=host.env())
    assert trigger.returncode == 1, trigger.stderr
    assert trigger.stdout == EXPECTED_VERSION_DIFF
    assert remote.head() == head

    # Once promoted there is nothing left to show.
    promoted = promote_direct(host, shop_request(remote, files=parse_files(HELM_VALUES_FILES)))
    assert promoted.changed
    after = run_cli(*diff, "--to", "staging", env=host.env())
    assert after.returncode == 0, after.stderr
    assert after.stdout.strip() == (
        f"shop: staging unchanged: it already holds the promoted values (at {promoted.commit[:12]})"
    )
    assert remote.head() == promoted.commit
    remote.assert_fast_forwards_only()


def test_diff_reports_errors_without_traceback(host: GitHost) -> None:
    remote = shop_repo(host)
    result = run_cli("diff", "--config", str(EXAMPLES), "--product", "shop", "--to", "staging",
                     "--repo", remote.url, env=host.env(GIT_TOKEN="nope"))  # fmt: skip
    assert result.returncode == 2  # an error, not "changes" (kubectl diff's 1)
    assert "Traceback" not in result.stderr
    assert result.stderr.strip() == f"error: authentication to {remote.url} failed: " + (
        "check GIT_TOKEN (or GIT_SSH_KEY)"
    )


SET_CASES = {
    "unknown field": (
        ["--set", "image.digest=sha256:cccc", "--set", "image.sha=1"],
        "'image.sha' is not a field of shop's version (fields: image.digest)",
    ),
    "missing field": ([], "a version of shop comes with image.digest: add --set image.digest="),
    "given twice": (
        ["--set", "image.digest=sha256:cccc", "--set", "image.digest=sha256:dddd"],
        "image.digest is given twice, with different values",
    ),
    "empty value": (["--set", "image.digest="], "'image.digest=' is not PATH=VALUE"),
    "no value": (["--set", "image.digest"], "'image.digest' is not PATH=VALUE"),
    "empty version": (
        ["--set", "image.digest=sha256:cccc", "-v", ""],
        "the version cannot be empty",
    ),
}


def one_line(stderr: str) -> str:
    return " ".join(stderr.split())


def error_line(stderr: str) -> str:
    """The ``error: ...`` line (a usage error starts with the command's own usage line)."""
    errors = [line for line in stderr.splitlines() if line.startswith("error: ")]
    assert len(errors) == 1, stderr
    return errors[0]


@pytest.mark.parametrize("case", list(SET_CASES))
def test_diff_and_promote_refuse_the_same_requests(host: GitHost, case: str) -> None:
    """What ``promote`` (on a cluster or --local) and ``compile`` refuse, ``diff`` refuses
    too, in the same words: a diff of a request that cannot be promoted shows nothing real.
    The remote is not even read."""
    remote = shop_repo(host)
    head = remote.head()
    extra, message = SET_CASES[case]
    common = ["--config", str(EXAMPLES), "--product", "shop", "-v", "1.5.0", *extra]
    commands = {
        "diff": ["diff", *common, "--to", "dev", "--repo", remote.url],
        "promote": ["promote", *common, "--dry-run"],
        "promote --local": ["promote", "--local", *common, "--runs-dir", str(host.root / "r")],
        "compile": ["compile", *common],
    }
    said = {}
    for name, args in commands.items():
        result = run_cli(*args, env=host.env())
        assert result.returncode == 2, (name, result.stderr)
        assert result.stdout == "" and "Traceback" not in result.stderr, name
        said[name] = error_line(result.stderr)
    assert message in said["diff"], said["diff"]
    assert len(set(said.values())) == 1, said
    assert remote.head() == head and remote.count() == 1
    assert not (host.root / "r").exists()


def test_diff_and_promote_accept_the_same_valid_request(host: GitHost) -> None:
    """The valid request: ``diff`` shows the version and its digest going into dev, and
    the Workflow ``promote`` would submit carries the very same values."""
    remote = shop_repo(host)
    head = remote.head()
    common = ["--config", str(EXAMPLES), "--product", "shop", "-v", "1.5.0",
              "--set", f"image.digest={DIGEST}"]  # fmt: skip

    shown = run_cli("diff", *common, "--to", "dev", "--repo", remote.url, env=host.env())
    submitted = run_cli("promote", *common, "--dry-run", env=host.env())

    assert shown.returncode == 1, shown.stderr
    assert shown.stdout == EXPECTED_VERSION_DIFF
    assert submitted.returncode == 0, submitted.stderr
    import yaml

    workflow = yaml.safe_load(submitted.stdout)
    parameters = {p["name"]: p["value"] for p in workflow["spec"]["arguments"]["parameters"]}
    assert parameters["version"] == "1.5.0"
    assert json.loads(parameters["version-fields"]) == {"image.digest": DIGEST}
    assert remote.head() == head


def test_diff_of_the_trigger_needs_the_version(host: GitHost) -> None:
    remote = shop_repo(host)
    result = run_cli("diff", "--config", str(EXAMPLES), "--product", "shop", "--to", "dev",
                     "--repo", remote.url, env=host.env())  # fmt: skip
    assert result.returncode == 2
    assert "dev is where a new version enters the flow" in one_line(result.stderr)
    sets = run_cli("diff", "--config", str(EXAMPLES), "--product", "shop", "--to", "staging",
                   "--set", "image.digest=sha256:cccc", env=host.env())  # fmt: skip
    assert sets.returncode == 2
    assert "--set comes with --version" in one_line(sets.stderr)


def test_diff_of_a_configuration_with_problems_is_an_error(tmp_path: object) -> None:
    """Exit 2, not 1: 1 would read as "changes" to a script."""
    from pathlib import Path

    empty = Path(str(tmp_path))
    result = run_cli("diff", "--config", str(empty), "--product", "shop", "--to", "dev",
                     env=plain_env())  # fmt: skip
    assert result.returncode == 2
    assert result.stderr == f"error: no promoflow resources under {empty}\n"
