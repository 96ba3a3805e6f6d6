"""Local promotions in a test: the example configuration served from a real Git server,
an approver that remembers what it was asked, ``promote --local`` in this process, and
the environment a CLI subprocess runs with."""

from __future__ import annotations

import io
import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from rich.console import Console

from orchestrator.engine.model import RunRecord
from orchestrator.engine.suspend import Answer, AutoApprover, Question
from orchestrator.loading import load_config
from orchestrator.local.status_page import StatusPage, serve_status_page
from orchestrator.simulator.git_http import GitHttpServer, init_bare_repo

ROOT = Path(__file__).resolve().parents[2]


def clean_env(**extra: str) -> dict[str, str]:
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("GIT_", "ARGOCD_", "PROMOFLOW_", "ARGO_"))
    }
    return {**env, "NO_COLOR": "1", "COLUMNS": "200", **extra}


@pytest.fixture
def credentials(monkeypatch: pytest.MonkeyPatch) -> None:
    """This process's environment as a step's: the served repository's token, nothing of
    the developer's own Git, Argo or promoflow settings."""
    wanted = clean_env(GIT_USERNAME="bot", GIT_TOKEN="t0ken-xyz")
    for key in set(os.environ) - set(wanted):
        monkeypatch.delenv(key)
    for key, value in wanted.items():
        monkeypatch.setenv(key, value)


def point_example_at(config_dir: Path, url: str, status: str) -> None:
    """The example configuration copied to ``config_dir``, pointed at the repository
    ``url`` and the status page ``status``, its pull-request action turned into a commit
    (nobody reviews a test's pull request)."""
    for path in [p for p in config_dir.rglob("*") if p.suffix in (".yaml", ".py")]:
        text = path.read_text()
        text = text.replace("https://git.example.com/acme/gitops.git", url)
        text = text.replace("https://status.example.com", status)
        text = text.replace("action: pull-request", "action: commit")
        text = text.replace('us.with_policy(action="pull-request")', "us")
        path.write_text(text)


@pytest.fixture
def served_config(tmp_path: Path) -> Iterator[tuple[Path, Path, str]]:
    """The example config pointed at a served bare repository (token auth) and a status
    page, with the pull-request action turned into a commit."""
    from orchestrator.demo.seed import commit_files, product_files
    from orchestrator.graph.plan import plan_product

    root = tmp_path / "srv"
    root.mkdir()
    bare = init_bare_repo(root / "gitops.git")
    config_dir = tmp_path / "config"
    shutil.copytree(ROOT / "environments", config_dir)
    page = StatusPage()
    with (
        GitHttpServer(root, username="bot", password="t0ken-xyz") as git,
        serve_status_page(page) as status,
    ):
        url = git.repo_url("gitops")
        point_example_at(config_dir, url, status)
        config, _ = load_config(config_dir)
        files = product_files(plan_product(config, "checkout"), "2.0.0")
        commit_files(bare, files, "seed", "main")
        yield config_dir, bare, url


class Asked(AutoApprover):
    """Approves as a listed approver would, and remembers which environments it was asked."""

    def __init__(self) -> None:
        super().__init__(who="sre-oncall@example.com", actor="sre-oncall@example.com")
        self.asked: list[str] = []

    def answer(self, question: Question) -> Answer:
        self.asked.append(question.environment)
        return super().answer(question)


def promote_in_process(
    config_dir: Path, version: str, tmp_path: Path, approver: Asked
) -> tuple[RunRecord, str]:
    """``promote --local`` of checkout in this process, with stand-ins for the actions."""
    from orchestrator.compiler import PromotionRequest
    from orchestrator.graph.plan import plan_product
    from orchestrator.local.session import LocalOptions, run_local

    config, problems = load_config(config_dir)
    assert problems == []
    plan = plan_product(config, "checkout")
    request = PromotionRequest("checkout", version, "", "alice", f"req-{len(approver.asked)}")
    options = LocalOptions(
        use_stand_ins=True, soak_scale=0.0005, runs_dir=tmp_path / "runs", approver=approver
    )
    buffer = io.StringIO()
    record, _ = run_local(config, plan, request, options, Console(file=buffer, width=200))
    return record, buffer.getvalue()
