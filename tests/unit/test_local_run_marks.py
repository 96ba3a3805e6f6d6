"""A local run says what it stands in for: results from the Argo CD simulator are marked
"simulated", and the team's container templates, run as processes on this host, are named
with the image a cluster would run them in (header, live lines and summary)."""

from __future__ import annotations

import io
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from rich.console import Console

import orchestrator
from orchestrator.compiler import PromotionRequest, compile_product, library_templates
from orchestrator.engine.model import NodeRecord, Phase, ProgressEvent, RunRecord
from orchestrator.loading import Config, load_config
from orchestrator.local.session import local_setup
from orchestrator.local.standins import stand_ins
from orchestrator.local.view import LocalSetup, RunView, summary
from orchestrator.settings import StepSettings
from tests.support.local_runs import point_example_at
from tests.unit.invoke import clean_env

REPO = Path(__file__).resolve().parents[2]
PROMOFLOW = Path(sys.executable).parent / "promoflow"
IMAGE = "python:3.12-slim"
ENVS = ["dev", "staging", "prod-eu", "prod-us"]
SIMULATOR = "http://127.0.0.1:9999"


def _team_templates(command: list[str]) -> list[dict[str, Any]]:
    """The team's smoke-tests and announce WorkflowTemplates: containers of their own image."""
    return [
        {
            "apiVersion": "argoproj.io/v1alpha1",
            "kind": "WorkflowTemplate",
            "metadata": {"name": name},
            "spec": {
                "templates": [{"name": "main", "container": {"image": IMAGE, "command": command}}]
            },
        }
        for name in ("smoke-tests", "announce")
    ]


@pytest.fixture(scope="module")
def config() -> Config:
    loaded, problems = load_config(REPO / "environments")
    assert [p for p in problems if p.severity == "error"] == []
    return loaded


def _setup(config: Config, templates: list[dict[str, Any]], **where: str) -> LocalSetup:
    settings = StepSettings.model_construct()
    request = PromotionRequest("shop", "1.5.0", "", "alice", "r1")
    compiled = compile_product(config, "shop", settings, request)
    assert compiled.workflow is not None
    manifests = [compiled.template, *library_templates(settings), *templates]
    return local_setup(compiled.workflow, manifests, **where)


def test_the_setup_knows_which_nodes_argo_cd_answers_and_what_runs_on_the_host(
    config: Config,
) -> None:
    setup = _setup(config, _team_templates(["./smoke.sh", "--fast"]), simulator=SIMULATOR)
    assert setup.argocd_tasks == {f"sync-{env}" for env in ENVS}
    theirs = {s.template: s for s in setup.host_steps if not s.promoflow}
    assert set(theirs) == {"smoke-tests/main", "announce/main"}
    smoke = theirs["smoke-tests/main"]
    assert (smoke.image, smoke.command) == (IMAGE, "./smoke.sh --fast")
    assert smoke.tasks == ("pre-prod-eu", "pre-prod-us")
    own = {s.template for s in setup.host_steps if s.promoflow}
    assert {"promoflow-promote/promote", "promoflow-wait-argocd/wait-argocd"} <= own
    assert "onExit.notify" in next(
        s.tasks for s in setup.host_steps if s.template == "promoflow-notify/notify"
    )


def test_the_header_says_argo_cd_is_simulated_and_which_images_are_not_used(
    config: Config,
) -> None:
    header = _setup(config, _team_templates(["./smoke.sh"]), simulator=SIMULATOR).header()
    assert header[0].startswith(
        f"Argo CD: simulated: the Argo CD simulator (not a real Argo CD) at {SIMULATOR} "
    )
    assert header[1] == "container steps run as processes on this host, not in pods:"
    assert header[2] == (
        "  promoflow step approver, http-check, notify, plan, promote, record, wait-argocd, "
        "wait-merge: this "
        "installation's promoflow (image ghcr.io/promoflow/promoflow:"
        f"{orchestrator.__version__} on a cluster)"
    )
    assert f"  smoke-tests/main (pre-prod-eu, pre-prod-us): runs `./smoke.sh` on this host, " \
        f"ignoring its image {IMAGE}" in header  # fmt: skip


def test_a_real_argo_cd_is_named_and_nothing_is_marked_simulated(config: Config) -> None:
    setup = _setup(config, _team_templates(["true"]), real_argocd="argocd.example.com:443")
    assert setup.header()[0] == "Argo CD: argocd.example.com:443 (ARGOCD_SERVER)"
    assert setup.mark("sync-dev") == ""
    assert not any("simulated" in line for line in [*setup.header(), *setup.footnotes()])


def test_stand_ins_are_named_as_such_not_as_the_teams_containers(config: Config) -> None:
    settings = StepSettings.model_construct()
    request = PromotionRequest("shop", "1.5.0", "", "alice", "r1")
    compiled = compile_product(config, "shop", settings, request)
    assert compiled.workflow is not None
    manifests = [compiled.template, *library_templates(settings)]
    manifests += stand_ins(manifests, "http://127.0.0.1:1")
    setup = local_setup(compiled.workflow, manifests, simulator=SIMULATOR)
    assert setup.stand_ins == ("announce", "smoke-tests")
    assert all(s.promoflow for s in setup.host_steps)
    assert setup.mark("pre-prod-eu") == "stand-in"
    assert setup.header()[-1] == (
        "stand-ins for announce, smoke-tests: a call to the local status page, "
        "not your WorkflowTemplates"
    )


def _lines(setup: LocalSetup, events: list[ProgressEvent]) -> list[str]:
    buffer = io.StringIO()
    view = RunView(
        Console(file=buffer, soft_wrap=True), "run", [e.node for e in events], ENVS, setup
    )
    with view:
        for event in events:
            view.handle(event)
    return buffer.getvalue().splitlines()


def test_results_from_the_simulator_and_the_host_are_marked_as_they_arrive(
    config: Config,
) -> None:
    setup = _setup(config, _team_templates(["./smoke.sh"]), simulator=SIMULATOR)
    healthy = "shop-dev: Synced at 2d65f6fd52d2 and Healthy"
    lines = _lines(
        setup,
        [
            ProgressEvent("deploy-dev", "deploy-dev", Phase.SUCCEEDED, 0.6),
            ProgressEvent("sync-dev", "sync-dev", Phase.RUNNING),
            ProgressEvent("sync-dev", "sync-dev", Phase.SUCCEEDED, 0.8, healthy),
            ProgressEvent("pre-prod-eu", "pre-prod-eu", Phase.SUCCEEDED, 0.4),
            ProgressEvent("sync-prod-eu", "sync-prod-eu", Phase.OMITTED, 0.0, "omitted"),
        ],
    )
    assert lines == [
        "deploy dev: Succeeded (0.6s)",
        "sync dev: Running",
        f"sync dev: Succeeded (0.8s): {healthy} (simulated Argo CD)",
        f"pre prod-eu: Succeeded (0.4s) (on this host, not in image {IMAGE})",
        "sync prod-eu: Omitted (0.0s): omitted",
    ]


def test_the_live_tree_marks_them_too(config: Config) -> None:
    setup = _setup(config, _team_templates(["./smoke.sh"]), simulator=SIMULATOR)
    view = RunView(Console(file=io.StringIO()), "run", ["sync-dev"], ENVS, setup)
    view.handle(ProgressEvent("sync-dev", "sync-dev", Phase.SUCCEEDED, 0.8, "shop-dev: Healthy"))
    console = Console(file=io.StringIO(), width=120, color_system=None)
    console.print(view.render())
    text: str = console.file.getvalue()  # type: ignore[attr-defined]
    assert "✔ sync dev  0.8s  shop-dev: Healthy  (simulated Argo CD)" in text


def _record(failed: str = "") -> RunRecord:
    record = RunRecord(name="shop-1-5-0-r1", phase=Phase.SUCCEEDED)
    for env in ENVS:
        # in the order the chain runs them, as the engine records nodes
        for kind in (("pre",) if env.startswith("prod") else ()) + ("deploy", "sync"):
            name = f"{kind}-{env}"
            phase = Phase.FAILED if name == failed else Phase.SUCCEEDED
            node = NodeRecord(name, f"{kind} {env}", kind, phase=phase)
            if kind == "deploy":
                node.outputs["commit"] = "c0ffee" * 3
            if phase is Phase.FAILED:
                node.message = "shop-dev: Degraded"
            record.nodes[name] = node
    return record


def _summary(setup: LocalSetup, record: RunRecord) -> str:
    console = Console(file=io.StringIO(), width=200, color_system=None)
    console.print(summary(record, ENVS, setup))
    text: str = console.file.getvalue()  # type: ignore[attr-defined]
    return text


def test_the_summary_marks_simulated_gates_and_host_runs_and_says_what_marks_mean(
    config: Config,
) -> None:
    setup = _setup(config, _team_templates(["./smoke.sh"]), simulator=SIMULATOR)
    text = _summary(setup, _record())
    rows = {line.split("│")[1].strip(): line for line in text.splitlines() if "│" in line}
    assert "│ sync (simulated) " in rows["dev"]
    assert "│ pre (on this host), sync (simulated) " in rows["prod-eu"]
    assert text.splitlines()[-2:] == [
        "simulated: Argo CD results came from the Argo CD simulator, not a real Argo CD",
        f"on this host: ran as a process here; on a cluster: announce/main in {IMAGE}, "
        f"smoke-tests/main in {IMAGE}",
    ]
    failed = _summary(setup, _record(failed="sync-dev"))
    assert "failed at sync dev: shop-dev: Degraded (simulated Argo CD)" in failed


def test_a_real_argo_cd_run_summary_has_no_simulated_mark(config: Config) -> None:
    setup = _setup(config, [], real_argocd="argocd.example.com:443")
    assert "simulated" not in _summary(setup, _record())


# -- as a user runs it -----------------------------------------------------------------------


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[Path, str]]:
    """The example configuration pushing to a bare repository served over smart HTTP, its
    HTTP gates on a local status page and its pull-request action a commit."""
    from orchestrator.demo.seed import commit_files, product_files
    from orchestrator.graph.plan import plan_product
    from orchestrator.local.status_page import StatusPage, serve_status_page
    from orchestrator.simulator.git_http import GitHttpServer, init_bare_repo

    root = tmp_path / "srv"
    root.mkdir()
    bare = init_bare_repo(root / "gitops.git")
    config_dir = tmp_path / "config"
    shutil.copytree(REPO / "environments", config_dir)
    with (
        GitHttpServer(root, username="bot", password="t0ken-xyz") as git,
        serve_status_page(StatusPage()) as status,
    ):
        url = git.repo_url("gitops")
        point_example_at(config_dir, url, status)
        loaded, _ = load_config(config_dir)
        commit_files(bare, product_files(plan_product(loaded, "checkout"), "2.0.0"), "seed", "main")
        yield config_dir, url


def test_promote_local_says_what_it_stands_in_for(served: tuple[Path, str], tmp_path: Path) -> None:
    config_dir, _ = served
    templates = tmp_path / "templates"
    templates.mkdir()
    team = _team_templates([sys.executable, "-c", "print('ok')"])
    (templates / "actions.yaml").write_text(yaml.safe_dump_all(team))
    result = subprocess.run(
        [str(PROMOFLOW), "promote", "--local", "-c", str(config_dir), "-p", "checkout",
         "-v", "2.1.0", "--auto-approve", "--as", "sre-oncall@example.com",
         "--soak-scale", "0.0005", "--templates", str(templates),
         "--runs-dir", str(tmp_path / "runs")],
        capture_output=True, text=True, cwd=tmp_path, timeout=120, check=False,
        env=clean_env({"GIT_USERNAME": "bot", "GIT_TOKEN": "t0ken-xyz"}),
    )  # fmt: skip
    assert result.returncode == 0, result.stdout + result.stderr
    lines = result.stdout.splitlines()
    header = lines[: lines.index(next(x for x in lines if x.startswith("deploy dev")))]
    assert header[0].endswith(": a local run, no cluster")
    assert header[1].startswith("  · Argo CD: simulated: the Argo CD simulator (not a real")
    assert f"    smoke-tests/main (pre-prod-eu, pre-prod-us): runs `{sys.executable} -c " \
        f"print('ok')` on this host, ignoring its image {IMAGE}" in header  # fmt: skip
    synced = [x for x in lines if x.startswith("sync dev: Succeeded")]
    # the simulator shows the image the promoted files name, and the wait checked it
    assert synced and synced[0].endswith(
        "and Healthy, runs ghcr.io/acme/checkout:2.1.0 (simulated Argo CD)"
    ), synced
    assert any(
        x.startswith("pre prod-eu: Succeeded")
        and x.endswith(f"(on this host, not in image {IMAGE})")
        for x in lines
    )
    assert "pre (on this host)" in result.stdout and "sync (simulated)" in result.stdout
    assert "simulated: Argo CD results came from the Argo CD simulator" in result.stdout
