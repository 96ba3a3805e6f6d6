"""Whole local promotions over real git: the demo, a rejection, a failing gate, --local."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pygit2
import pytest
import yaml
from rich.console import Console

from orchestrator.demo.local import SEED_VERSION, DemoOptions, promotion_log, run_demo
from orchestrator.engine.model import NodeRecord, Phase
from orchestrator.loading import load_config
from tests.support.local_runs import Asked, clean_env, promote_in_process, served_config

__all__ = ["served_config"]  # the fixture, used by name

ROOT = Path(__file__).resolve().parents[2]
PROMOFLOW = Path(sys.executable).parent / "promoflow"
SHOP_DIRS = {
    "dev": "envs/dev/shop",
    "staging": "envs/staging/shop",
    "prod-eu": "regions/eu/shop",
    "prod-us": "envs/prod-us/shop",
}


def tag_at(bare: Path, path: str, rev: str = "refs/heads/main") -> str:
    repo = pygit2.Repository(str(bare))
    commit = repo.revparse_single(rev).peel(pygit2.Commit)
    blob = repo[commit.tree[f"{path}/values.yaml"].id]
    return str(yaml.safe_load(blob.data)["image"]["tag"])


def fsck(bare: Path) -> None:
    result = subprocess.run(
        ["git", "--git-dir", str(bare), "fsck", "--strict"], capture_output=True, text=True
    )
    assert result.returncode == 0, result.stderr


def test_demo_command_promotes_through_every_environment(tmp_path: Path) -> None:
    keep = tmp_path / "demo"
    result = subprocess.run(
        [str(PROMOFLOW), "demo", "-c", str(ROOT / "environments"), "--keep", str(keep)],
        capture_output=True,
        text=True,
        env=clean_env(),
        cwd=tmp_path,
        timeout=120,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "Traceback" not in result.stderr
    assert "Argo CD simulator (not a real Argo CD)" in result.stdout
    assert "Succeeded in" in result.stdout
    bare = keep / "gitops.git"
    fsck(bare)
    log = promotion_log(bare, _seed(bare), "main")
    assert len(log) == 4
    touched = {}
    for _sha, subject, files in log:
        env = subject.removeprefix("Promote shop 1.5.0 to ")
        touched[env] = files
        assert all(f.startswith(SHOP_DIRS[env] + "/") for f in files), (env, files)
    assert set(touched) == set(SHOP_DIRS)
    # dev comes first, staging second, production after both
    assert [s.removeprefix("Promote shop 1.5.0 to ") for _, s, _ in log][:2] == ["dev", "staging"]
    for path in SHOP_DIRS.values():
        assert tag_at(bare, path) == "1.5.0"
    assert (
        tag_at(bare, "envs/dev/checkout".replace("envs/dev/checkout", "envs/dev/shop")) == "1.5.0"
    )
    records = list((keep / ".promoflow" / "runs").glob("*.json"))
    assert len(records) == 1
    record = json.loads(records[0].read_text())
    assert record["phase"] == "Succeeded"
    deploys = {
        n["name"]: n["outputs"]["commit"]
        for n in record["nodes"]
        if n["name"].startswith("deploy-")
    }
    assert sorted(deploys.values()) == sorted(sha for sha, _, _ in log)
    assert [n["name"] for n in record["exitNodes"]] == ["onExit.notify"]


def _seed(bare: Path) -> str:
    repo = pygit2.Repository(str(bare))
    head = repo.references["refs/heads/main"].target
    commits = list(repo.walk(head))
    return str(commits[-1].id)


def demo(tmp_path: Path, **options: str) -> tuple[Phase, dict[str, NodeRecord], Path, str]:
    config, problems = load_config(ROOT / "environments")
    assert problems == []
    buffer = io.StringIO()
    console = Console(file=buffer, width=200)
    result = run_demo(config, DemoOptions(keep=tmp_path / "demo", **options), console)  # type: ignore[arg-type]
    return result.record.phase, result.record.nodes, result.repo, buffer.getvalue()


def test_a_rejected_approval_leaves_production_untouched(tmp_path: Path) -> None:
    phase, nodes, bare, output = demo(tmp_path, reject="prod-eu")
    assert phase is Phase.FAILED
    assert tag_at(bare, SHOP_DIRS["prod-eu"]) == SEED_VERSION
    assert tag_at(bare, SHOP_DIRS["prod-us"]) == "1.5.0"
    log = promotion_log(bare, _seed(bare), "main")
    assert not any(f.startswith("regions/eu/") for _, _, files in log for f in files)
    assert nodes["deploy-prod-eu"].phase is Phase.OMITTED
    assert "rejected" in nodes["approve-prod-eu"].message
    # the answer is judged in the workflow: the approver step stops prod-eu, saying why
    assert nodes["approver-prod-eu"].phase is Phase.FAILED
    flat = " ".join(output.split())
    assert "failed at approver prod-eu: prod-eu rejected by sre-oncall@example.com" in flat
    # the answer says who rejected it and that an option did, for them
    assert nodes["approve-prod-eu"].message == (
        "rejected by sre-oncall@example.com (--reject prod-eu): rejected in the demo"
    )
    assert "auto-approve" not in nodes["approve-prod-eu"].message


def test_a_failing_gate_stops_the_flow_with_the_reason(tmp_path: Path) -> None:
    phase, nodes, bare, output = demo(tmp_path, fail="staging")
    assert phase is Phase.FAILED
    sync = nodes["sync-staging"]
    assert sync.phase is Phase.FAILED
    # the step's own reason is on its attempt; the Retry node says why it stopped, as in Argo
    assert sync.message == "retryStrategy.expression evaluated to false"
    reason = sync.attempts[-1].message
    assert "Degraded" in reason and "simulated failure" in reason
    for env in ("prod-eu", "prod-us"):
        assert nodes[f"approve-{env}"].phase is Phase.OMITTED
        assert tag_at(bare, SHOP_DIRS[env]) == SEED_VERSION
    # the commit to staging landed; Argo CD could not make it healthy
    assert tag_at(bare, SHOP_DIRS["staging"]) == "1.5.0"
    assert "simulated failure" in output


def test_a_chart_that_ignores_the_promoted_value_fails_the_image_check(tmp_path: Path) -> None:
    """``demo --stale-image staging``: the simulator keeps staging's pods on the image they
    run; Synced at the commit and Healthy, the wait fails naming what runs instead."""
    phase, nodes, bare, output = demo(tmp_path, stale_image="staging")
    assert phase is Phase.FAILED
    reason = nodes["sync-staging"].attempts[-1].message
    assert reason.startswith(
        f"shop-staging reports Healthy but runs ghcr.io/acme/shop:{SEED_VERSION}@sha256:"
    )
    assert ", not :1.5.0@sha256:" in reason and reason.endswith("(values.yaml image.tag)")
    assert len(nodes["sync-staging"].attempts) == 1  # a wrong image is not retried
    assert "runs ghcr.io/acme/shop:1.5.0@sha256:" in nodes["sync-dev"].message
    assert tag_at(bare, SHOP_DIRS["staging"]) == "1.5.0"  # committed, deployed, not running
    for env in ("prod-eu", "prod-us"):
        assert tag_at(bare, SHOP_DIRS[env]) == SEED_VERSION
    assert "keep shop-staging's pods on their image" in output


def test_promote_local_runs_against_a_remote_repository(
    served_config: tuple[Path, Path, str], tmp_path: Path
) -> None:
    config_dir, bare, _url = served_config
    templates = tmp_path / "templates"
    templates.mkdir()
    received = tmp_path / "received.txt"  # what the team's templates were given
    write = "import sys; open(sys.argv[1], 'a').write(' '.join(sys.argv[2:]) + '\\n')"
    inputs = {"smoke-tests": ["environment", "version"], "announce": ["text"]}
    (templates / "actions.yaml").write_text(
        "\n---\n".join(
            yaml.safe_dump(
                {
                    "apiVersion": "argoproj.io/v1alpha1",
                    "kind": "WorkflowTemplate",
                    "metadata": {"name": name},
                    "spec": {
                        "templates": [
                            {
                                "name": "main",
                                "inputs": {"parameters": [{"name": p} for p in params]},
                                "container": {
                                    "image": "python",
                                    "command": [sys.executable, "-c", write, str(received)],
                                    "args": [
                                        name,
                                        *(f"{{{{inputs.parameters.{p}}}}}" for p in params),
                                    ],
                                },
                            }
                        ]
                    },
                }
            )
            for name, params in inputs.items()
        )
    )
    result = subprocess.run(
        [
            str(PROMOFLOW),
            "promote",
            "--local",
            "-c",
            str(config_dir),
            "-p",
            "checkout",
            "-v",
            "2.1.0",
            "--auto-approve",
            "--as",
            "sre-oncall@example.com",  # a listed approver: the workflow checks who answered
            "--soak-scale",
            "0.0005",
            "--templates",
            str(templates),
            "--runs-dir",
            str(tmp_path / "runs"),
        ],
        capture_output=True,
        text=True,
        env=clean_env(GIT_USERNAME="bot", GIT_TOKEN="t0ken-xyz"),
        cwd=tmp_path,
        timeout=120,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "t0ken-xyz" not in result.stdout + result.stderr
    repo = pygit2.Repository(str(bare))
    head = repo.revparse_single("refs/heads/main").peel(pygit2.Commit)
    for env in ("dev", "staging", "prod-eu", "prod-us"):
        blob = repo[head.tree[f"overlays/{env}/checkout/kustomization.yaml"].id]
        assert yaml.safe_load(blob.data)["images"][0]["newTag"] == "2.1.0"
    records = list((tmp_path / "runs").glob("*.json"))
    record = json.loads(records[0].read_text())
    assert record["phase"] == "Succeeded"
    assert "t0ken-xyz" not in records[0].read_text()
    # the actions were given the environment, the version and the commit made there
    commits = {n["name"]: n["outputs"].get("commit") for n in record["nodes"]}
    assert sorted(received.read_text().splitlines()) == sorted(
        [
            *(f"smoke-tests {env} 2.1.0" for env in ("prod-eu", "prod-us")),
            *(
                f"announce checkout 2.1.0 runs in {env} ({commits[f'deploy-{env}']})"
                for env in ("prod-eu", "prod-us")
            ),
        ]
    )
    # every environment's commit noted verified, with the gates that passed there, as
    # history reads it back
    from orchestrator.history.note import parse

    for env in ("dev", "staging", "prod-eu", "prod-us"):
        note = parse(repo.lookup_note(commits[f"deploy-{env}"], "refs/notes/promoflow").message)
        assert note is not None and note.verified, env
        assert [g.kind for g in note.gates][:2] == ["sync", "health"]
        assert note.run == record["name"]


def _closed_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
    return port  # nothing listens there any more


@pytest.mark.parametrize("case", ["wrong token", "server down", "no such branch"])
def test_promote_local_checks_the_repository_before_anything_runs(
    served_config: tuple[Path, Path, str], tmp_path: Path, case: str
) -> None:
    """A run that could not read its repository would fail at its first deploy, after the
    stand-ins, the tree and a step process (and a step waits for a server that is down,
    as it should on a cluster). One request says so first, with the reason: nothing is
    started, retried or recorded."""
    config_dir, bare, url = served_config
    before = pygit2.Repository(str(bare)).references["refs/heads/main"].target
    env = clean_env(GIT_USERNAME="bot", GIT_TOKEN="t0ken-xyz")
    expected = ""
    if case == "wrong token":
        env["GIT_TOKEN"] = "wrong-token-0123"
        expected = f"authentication to {url} failed: check GIT_TOKEN (or GIT_SSH_KEY)"
    elif case == "server down":
        down = f"http://127.0.0.1:{_closed_port()}/gitops.git"
        _replace(config_dir, url, down)
        expected = f"connection to {down} refused (is the server running?)"
    else:
        product = config_dir / "products" / "checkout.yaml"
        text = product.read_text().replace("  repo:\n", "  repo:\n    branch: release\n")
        product.write_text(text)
        expected = f"branch 'release' not found in {url} (the branch of dev, staging, prod-eu, "
    result = subprocess.run(
        [str(PROMOFLOW), "promote", "--local", "-c", str(config_dir), "-p", "checkout",
         "-v", "2.1.0", "--auto-approve", "--stand-ins", "--runs-dir", str(tmp_path / "runs")],
        capture_output=True, text=True, env=env, cwd=tmp_path, timeout=60,
    )  # fmt: skip
    assert result.returncode == 1, result.stdout + result.stderr
    assert result.stdout == ""  # no run header, no tree: nothing started
    assert result.stderr.startswith(f"error: cannot promote checkout: {expected}"), result.stderr
    assert len(result.stderr.splitlines()) == 1
    assert "wrong-token-0123" not in result.stderr and "t0ken-xyz" not in result.stderr
    assert not (tmp_path / "runs").exists()
    assert pygit2.Repository(str(bare)).references["refs/heads/main"].target == before


def _replace(config_dir: Path, old: str, new: str) -> None:
    for path in config_dir.rglob("*.yaml"):
        text = path.read_text()
        if old in text:
            path.write_text(text.replace(old, new))


def test_promote_local_refuses_missing_templates_clearly(
    served_config: tuple[Path, Path, str], tmp_path: Path
) -> None:
    config_dir, bare, _ = served_config
    before = pygit2.Repository(str(bare)).references["refs/heads/main"].target
    result = subprocess.run(
        [
            str(PROMOFLOW),
            "promote",
            "--local",
            "-c",
            str(config_dir),
            "-p",
            "checkout",
            "-v",
            "2.1.0",
            "--auto-approve",
        ],
        capture_output=True,
        text=True,
        env=clean_env(),
        cwd=tmp_path,
        timeout=60,
    )
    assert result.returncode == 1
    assert "Traceback" not in result.stderr
    assert "smoke-tests" in result.stderr and "--stand-ins" in result.stderr
    assert pygit2.Repository(str(bare)).references["refs/heads/main"].target == before


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["demo", "--fail", "nope"], "'nope' is not in the flow of shop"),
        (["demo", "--reject", "dev"], "'dev' has no approval gate"),
        (
            [
                "promote",
                "--local",
                "-p",
                "shop",
                "-v",
                "1.5.0",
                "--set",
                "image.digest=sha256:1",
                "--reject",
                "qa",
            ],
            "'qa' is not in",
        ),
    ],
)
def test_environments_named_on_the_command_line_are_checked(
    args: list[str], message: str, tmp_path: Path
) -> None:
    result = subprocess.run(
        [str(PROMOFLOW), *args, "-c", str(ROOT / "environments")],
        capture_output=True, text=True, env=clean_env(), cwd=tmp_path, timeout=60,
    )  # fmt: skip
    assert result.returncode == 2
    assert "Traceback" not in result.stderr
    assert message in " ".join(result.stderr.split())
    assert not (tmp_path / ".promoflow").exists()


def test_a_broken_template_file_is_reported_with_its_position(tmp_path: Path) -> None:
    templates = tmp_path / "templates"
    templates.mkdir()
    (templates / "actions.yaml").write_text("kind: WorkflowTemplate\nspec: [\n")
    result = subprocess.run(
        [str(PROMOFLOW), "promote", "--local", "-c", str(ROOT / "environments"), "-p", "shop",
         "-v", "1.5.0", "--set", "image.digest=sha256:1", "--auto-approve",
         "--templates", str(templates)],
        capture_output=True, text=True, env=clean_env(), cwd=tmp_path, timeout=60,
    )  # fmt: skip
    assert result.returncode == 1
    assert result.stderr.startswith(f"{templates / 'actions.yaml'}:3:1: error: ")
    assert "Traceback" not in result.stderr


def test_an_approval_answered_by_someone_not_listed_does_not_promote(tmp_path: Path) -> None:
    """The approver check runs in the workflow: the local answer is labelled with who gave
    it, exactly as the Argo Server labels a caller, and the check refuses the answer."""
    phase, nodes, bare, output = demo(tmp_path, answer_as="mallory@example.com")
    assert phase is Phase.FAILED
    for env in ("prod-eu", "prod-us"):
        assert nodes[f"approve-{env}"].phase is Phase.SUCCEEDED  # the answer was YES ...
        check = nodes[f"approver-{env}"]
        assert check.phase is Phase.FAILED  # ... but not from an approver
        assert check.attempts[-1].message == (
            f"mallory@example.com may not approve {env} (approvers: "
            "user:sre-oncall@example.com, user:release-manager@example.com)"
        )
        assert nodes[f"deploy-{env}"].phase is Phase.OMITTED
        assert tag_at(bare, SHOP_DIRS[env]) == SEED_VERSION
    assert tag_at(bare, SHOP_DIRS["staging"]) == "1.5.0"
    assert "may not approve prod-eu" in output


def test_a_listed_approver_passes_the_check(tmp_path: Path) -> None:
    phase, nodes, _, _ = demo(tmp_path)
    assert phase is Phase.SUCCEEDED
    check = nodes["approver-prod-eu"]
    assert check.phase is Phase.SUCCEEDED
    assert check.outputs["approved-by"] == (
        "prod-eu approved by sre-oncall@example.com (an approver of prod-eu)"
    )


def test_the_demo_promotes_what_a_careful_team_would(tmp_path: Path) -> None:
    """File by file, what each environment holds after the demo: the version with its
    digest everywhere, the shared feature flags everywhere, and each environment's own
    settings untouched; the trigger's commit says where the version came from."""
    from orchestrator.demo.seed import field_value

    phase, _, bare, _ = demo(tmp_path)
    assert phase is Phase.SUCCEEDED
    repo = pygit2.Repository(str(bare))
    head = repo.revparse_single("refs/heads/main").peel(pygit2.Commit)
    seed = repo.revparse_single(_seed(bare)).peel(pygit2.Commit)

    def text(commit: pygit2.Commit, path: str) -> str:
        return bytes(repo[commit.tree[path].id].data).decode()

    digest = field_value("image.digest", "1.5.0")
    assert digest != field_value("image.digest", SEED_VERSION)
    for env, path in SHOP_DIRS.items():
        values = yaml.safe_load(text(head, f"{path}/values.yaml"))
        assert values["image"] == {"tag": "1.5.0", "digest": digest}, env
        flags = json.loads(text(head, f"{path}/config/features.json"))["flags"]
        assert flags == {"new-checkout": True, "dark-mode": True}, env
        own = text(head, f"{path}/environment.yaml")
        assert own == text(seed, f"{path}/environment.yaml"), env  # never promoted
        assert yaml.safe_load(own)["environment"] == env
    trigger = next(
        c for c in repo.walk(head.id) if c.message.startswith("Promote shop 1.5.0 to dev")
    )
    assert "Promoted-From" not in trigger.message
    assert "Set image.tag in values.yaml to 1.5.0 (with image.digest)." in trigger.message


def test_an_environment_that_holds_the_version_asks_no_approval_again(
    served_config: tuple[Path, Path, str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Promoting a version again: every environment is unchanged, so no commit is made and
    no approval is asked again, but each still waits for Argo CD to run its commit. A new
    version asks again."""
    config_dir, bare, _ = served_config
    wanted = clean_env(GIT_USERNAME="bot", GIT_TOKEN="t0ken-xyz")
    for key in set(os.environ) - set(wanted):
        monkeypatch.delenv(key)
    for key, value in wanted.items():
        monkeypatch.setenv(key, value)  # the steps' and the Argo CD stand-in's credentials
    approver = Asked()
    first, _ = promote_in_process(config_dir, "2.1.0", tmp_path, approver)
    assert first.phase is Phase.SUCCEEDED, first.message
    assert sorted(approver.asked) == ["prod-eu", "prod-us"]
    head = pygit2.Repository(str(bare)).references["refs/heads/main"].target

    again = Asked()
    second, output = promote_in_process(config_dir, "2.1.0", tmp_path, again)

    assert second.phase is Phase.SUCCEEDED, second.message
    assert again.asked == []  # nothing to approve
    assert pygit2.Repository(str(bare)).references["refs/heads/main"].target == head
    nodes = second.nodes
    for env in ("prod-eu", "prod-us"):
        assert nodes[f"plan-{env}"].outputs["changed"] == "false"
        assert nodes[f"approve-{env}"].phase is Phase.SKIPPED
        assert nodes[f"approver-{env}"].phase is Phase.OMITTED
    for env in ("dev", "staging", "prod-eu", "prod-us"):
        deploy = nodes[f"deploy-{env}"]
        assert deploy.phase is Phase.SUCCEEDED and deploy.outputs["changed"] == "false"
        assert deploy.outputs["commit"] == str(head)
        assert deploy.message == f"unchanged: {env} already holds the promoted values " + (
            f"({str(head)[:12]})"
        )
        assert nodes[f"sync-{env}"].phase is Phase.SUCCEEDED  # verification still runs
        assert nodes[f"sync-{env}"].outputs["revision"] == str(head)
    summary = [line for line in output.splitlines() if line.startswith("│ prod-eu")]
    assert summary and "unchanged" in summary[0] and "approve" not in summary[0]

    third = Asked()
    changed, _ = promote_in_process(config_dir, "2.2.0", tmp_path, third)
    assert changed.phase is Phase.SUCCEEDED, changed.message
    assert sorted(third.asked) == ["prod-eu", "prod-us"]
    assert changed.nodes["deploy-prod-eu"].outputs["changed"] == "true"
