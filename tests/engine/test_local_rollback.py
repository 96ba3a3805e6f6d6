"""``rollback`` on the local engine, after real promotions: the environment's files come
back byte for byte as they were at the verified version's commit, through the
environment's approval, with the reason in the commit; a version never verified there is
refused unless forced, and then recorded as forced."""

from __future__ import annotations

import io
import subprocess
import sys
from pathlib import Path

import pygit2
import pytest
from rich.console import Console

from orchestrator.compiler import PromotionRequest
from orchestrator.compiler.workflow import RollbackOf
from orchestrator.engine.model import Phase, RunRecord
from orchestrator.loading import load_config
from tests.support.local_runs import (
    Asked,
    clean_env,
    credentials,
    promote_in_process,
    served_config,
)

__all__ = ["credentials", "served_config"]  # the fixture, used by name
PROMOFLOW = Path(sys.executable).parent / "promoflow"
OVERLAY = "overlays/prod-eu/checkout"


def files_at(bare: Path, commit: str, folder: str) -> dict[str, bytes]:
    repo = pygit2.Repository(str(bare))
    tree = repo[commit].peel(pygit2.Commit).tree[folder]
    return {e.name: bytes(repo[e.id].peel(pygit2.Blob).data) for e in repo[tree.id]}


def head(bare: Path) -> str:
    return str(pygit2.Repository(str(bare)).references["refs/heads/main"].target)


def rollback_in_process(config_dir: Path, tmp_path: Path, version: str, commit: str,
                        asked: Asked) -> RunRecord:  # fmt: skip
    from orchestrator.graph.plan import plan_product
    from orchestrator.local.session import LocalOptions, run_local

    config, problems = load_config(config_dir)
    assert problems == []
    plan = plan_product(config, "checkout")
    request = PromotionRequest(
        "checkout", version, "", "alice", "rb", {},
        rollback=RollbackOf("prod-eu", commit, "SHOP-431: 5xx after 2.2.0"),
    )  # fmt: skip
    options = LocalOptions(
        use_stand_ins=True, soak_scale=0.0005, runs_dir=tmp_path / "runs", approver=asked
    )
    record, _ = run_local(config, plan, request, options, Console(file=io.StringIO()))
    return record


def rollback_cli(config_dir: Path, tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(PROMOFLOW), "rollback", "-c", str(config_dir), "-p", "checkout", "-e", "prod-eu",
         "--cache", str(tmp_path / "cache"), "--dry-run", *args],
        capture_output=True, text=True, env=clean_env(GIT_USERNAME="bot", GIT_TOKEN="t0ken-xyz"),
        cwd=tmp_path, timeout=120, check=False,
    )  # fmt: skip


@pytest.mark.usefixtures("credentials")
def test_a_rollback_restores_the_verified_files_through_the_approval(
    served_config: tuple[Path, Path, str], tmp_path: Path
) -> None:
    config_dir, bare, _ = served_config
    first, _ = promote_in_process(config_dir, "2.1.0", tmp_path, Asked())
    assert first.phase is Phase.SUCCEEDED, first.message
    verified_commit = first.nodes["deploy-prod-eu"].outputs["commit"]
    second, _ = promote_in_process(config_dir, "2.2.0", tmp_path, Asked())
    assert second.phase is Phase.SUCCEEDED, second.message
    assert files_at(bare, head(bare), OVERLAY) != files_at(bare, verified_commit, OVERLAY)

    # what `rollback` picks from the history in Git: the last verified version before
    planned = rollback_cli(config_dir, tmp_path, "--reason", "SHOP-431")
    assert planned.returncode == 0, planned.stderr
    assert f"checkout in prod-eu: 2.2.0 -> 2.1.0 (restoring {verified_commit[:12]}, verified" in (
        planned.stdout
    )
    assert "entrypoint: rollback-prod-eu" in planned.stdout
    assert f"value: {verified_commit}" in planned.stdout

    asked = Asked()
    record = rollback_in_process(config_dir, tmp_path, "2.1.0", verified_commit, asked)
    assert record.phase is Phase.SUCCEEDED, record.message
    assert asked.asked == ["prod-eu"]  # its approval, as any promotion into prod-eu
    assert set(record.nodes) >= {"approve-prod-eu", "deploy-prod-eu", "sync-prod-eu",
                                 "record-prod-eu"}  # fmt: skip
    assert not any(n.startswith(("deploy-dev", "deploy-staging")) for n in record.nodes)
    rolled = head(bare)
    assert files_at(bare, rolled, OVERLAY) == files_at(bare, verified_commit, OVERLAY)
    message = pygit2.Repository(str(bare))[rolled].peel(pygit2.Commit).message
    assert "Rollback: 2.2.0 -> 2.1.0" in message
    assert "Rollback-Reason: SHOP-431: 5xx after 2.2.0" in message
    assert f"Promoted-From: prod-eu@{verified_commit[:12]}" in message
    note = pygit2.Repository(str(bare)).lookup_note(rolled, "refs/notes/promoflow").message
    assert "Promotion-Outcome: verified" in note  # its gates passed: verified again


@pytest.mark.usefixtures("credentials")
def test_a_version_never_verified_there_is_refused_unless_forced(
    served_config: tuple[Path, Path, str], tmp_path: Path
) -> None:
    config_dir, bare, _ = served_config
    first, _ = promote_in_process(config_dir, "2.1.0", tmp_path, Asked())
    assert first.phase is Phase.SUCCEEDED, first.message
    # a hand commit wrote 2.1.1 into prod-eu: it ran there, but no gate verified it
    repo = pygit2.Repository(str(bare))
    tip = repo[head(bare)].peel(pygit2.Commit)
    text = files_at(bare, head(bare), OVERLAY)["kustomization.yaml"].replace(b"2.1.0", b"2.1.1")
    index = pygit2.Index()
    index.read_tree(tip.tree)
    index.add(pygit2.IndexEntry(f"{OVERLAY}/kustomization.yaml", repo.create_blob(text),
                                pygit2.enums.FileMode.BLOB))  # fmt: skip
    who = pygit2.Signature("Bob", "bob@example.com")
    repo.create_commit("refs/heads/main", who, who, "hotfix 2.1.1", index.write_tree(repo),
                       [tip.id])  # fmt: skip
    second, _ = promote_in_process(config_dir, "2.2.0", tmp_path, Asked())
    assert second.phase is Phase.SUCCEEDED, second.message

    refused = rollback_cli(config_dir, tmp_path, "--to", "2.1.1")
    assert refused.returncode == 1
    assert "2.1.1 was never verified in prod-eu" in refused.stderr
    assert "--force" in refused.stderr and "Traceback" not in refused.stderr
    forced = rollback_cli(config_dir, tmp_path, "--to", "2.1.1", "--force", "--reason", "x")
    assert forced.returncode == 0, forced.stderr
    assert "never verified there" in forced.stdout
    assert "forced: 2.1.1 was never verified in prod-eu; x" in forced.stdout
    none = rollback_cli(config_dir, tmp_path, "--to", "9.9.9")
    assert none.returncode == 1 and "prod-eu never ran 9.9.9 before" in none.stderr
