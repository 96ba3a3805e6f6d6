"""``promoflow runs`` and ``promoflow status`` in the formats scripts read (``-o json``,
``yaml``, ``name``) and the ``wide`` table, against the fake Argo Server.

They run as subprocesses: Hera's client calls a pydantic method that warns, and pytest turns
warnings into errors in process.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from orchestrator.simulator.serve import free_port
from tests.fakes.argo_server import FakeArgoServer
from tests.unit.invoke import clean_env

PROMOFLOW = Path(sys.executable).parent / "promoflow"

TOKEN = "argo-token-do-not-print"
NS = "promotions"
RUN = "shop-2-0-0-3f9a1c2e"
OLDER = "checkout-1-0-0-0badc0de"


def _workflow(name: str, product: str, version: str, phase: str, started: str) -> dict[str, Any]:
    return {
        "apiVersion": "argoproj.io/v1alpha1",
        "kind": "Workflow",
        "metadata": {
            "name": name,
            "labels": {
                "promoflow.dev/product": product,
                "promoflow.dev/version": version,
                "promoflow.dev/flow": "standard",
            },
            "annotations": {"promoflow.dev/version": version},
        },
        "spec": {"workflowTemplateRef": {"name": f"promoflow-{product}"}},
        "status": {"phase": phase, "startedAt": started},
    }


@pytest.fixture
def argo() -> Iterator[FakeArgoServer]:
    with FakeArgoServer(token=TOKEN) as fake:
        running = _workflow(RUN, "shop", "2.0.0", "Running", "2026-11-22T10:00:00Z")
        running["status"]["nodes"] = {
            "a": {"id": "a", "name": f"{RUN}.deploy-dev", "displayName": "deploy-dev",
                  "type": "Pod", "phase": "Succeeded", "startedAt": "2026-11-22T10:00:01Z",
                  "finishedAt": "2026-11-22T10:00:03Z",
                  "outputs": {"parameters": [{"name": "commit", "value": "c0ffee12"}]}},
            "b": {"id": "b", "name": f"{RUN}.approve-prod-eu", "displayName": "approve-prod-eu",
                  "type": "Suspend", "phase": "Running", "message": "waiting for approval",
                  "startedAt": "2026-11-22T10:05:00Z"},
        }  # fmt: skip
        failed = _workflow(OLDER, "checkout", "1.0.0", "Failed", "2026-11-21T09:00:00Z")
        failed["status"]["message"] = "child 'sync-dev' failed"
        fake.store.put("Workflow", NS, running)
        fake.store.put("Workflow", NS, failed)
        yield fake


def run(argo: FakeArgoServer, *args: str) -> subprocess.CompletedProcess[str]:
    result = attempt(argo.url.removeprefix("http://"), *args)
    assert result.returncode == 0, result.stderr
    assert TOKEN not in result.stdout + result.stderr
    return result


def attempt(server: str, *args: str) -> subprocess.CompletedProcess[str]:
    env = {
        "ARGO_SERVER": server,
        "ARGO_SECURE": "false",
        "ARGO_TOKEN": TOKEN,
        "ARGO_NAMESPACE": NS,
    }
    result = subprocess.run(
        [str(PROMOFLOW), *args],
        env=clean_env(env), capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    return result


def test_a_failure_exits_as_a_step_does_75_only_when_trying_again_may_help(
    argo: FakeArgoServer,
) -> None:
    """``PromoflowError.exit_code`` becomes the process's exit in one place: a run that
    does not exist cannot be shown as asked (1); an Argo Server nothing answers for may
    come back (75, what a script or a workflow retries). Either is one ``error:`` line."""
    missing = attempt(argo.url.removeprefix("http://"), "status", "no-such-run")
    assert missing.returncode == 1, missing.stderr
    assert missing.stderr.startswith("error: ") and missing.stderr.count("\n") == 1
    assert "no-such-run" in missing.stderr and missing.stdout == ""
    down = attempt(f"127.0.0.1:{free_port()}", "runs")
    assert down.returncode == 75, down.stderr
    assert down.stderr.startswith("error: ") and down.stderr.count("\n") == 1, down.stderr
    assert "Traceback" not in down.stderr and TOKEN not in down.stderr


def test_runs_o_json_lists_every_run_newest_first(argo: FakeArgoServer) -> None:
    result = run(argo, "runs", "-o", "json")
    runs = json.loads(result.stdout)
    assert [r["name"] for r in runs] == [RUN, OLDER]
    assert runs[0] == {
        "name": RUN,
        "product": "shop",
        "version": "2.0.0",
        "flow": "standard",
        "phase": "Running",
        "started": "2026-11-22T10:00:00Z",
        "finished": "",
        "message": "",
        "where": "cluster",
    }
    assert runs[1]["message"] == "child 'sync-dev' failed"
    assert result.stderr == ""


def test_runs_o_yaml_and_o_name(argo: FakeArgoServer) -> None:
    as_yaml = yaml.safe_load(run(argo, "runs", "-p", "shop", "-o", "yaml").stdout)
    assert [r["name"] for r in as_yaml] == [RUN]
    assert run(argo, "runs", "-o", "name").stdout == f"{RUN}\n{OLDER}\n"


def test_runs_o_json_of_nothing_is_an_empty_list(argo: FakeArgoServer) -> None:
    result = run(argo, "runs", "-p", "billing", "-o", "json")
    assert (json.loads(result.stdout), result.stderr) == ([], "")


def test_runs_o_wide_adds_the_flow_and_message(argo: FakeArgoServer) -> None:
    table = run(argo, "runs").stdout.splitlines()
    wide = run(argo, "runs", "-o", "wide").stdout.splitlines()
    assert table[0].split() == ["RUN", "PRODUCT", "VERSION", "PHASE", "STARTED", "FINISHED"]
    assert wide[0].split() == [*table[0].split(), "FLOW", "WHERE", "MESSAGE"]
    assert "child 'sync-dev' failed" in wide[2] and "failed" not in table[2]


def test_status_o_json_has_every_node_and_the_link(argo: FakeArgoServer) -> None:
    status = json.loads(run(argo, "status", RUN, "-o", "json").stdout)
    assert (status["name"], status["phase"], status["version"]) == (RUN, "Running", "2.0.0")
    assert status["url"] == f"{argo.url}/workflows/{NS}/{RUN}"
    assert status["nodes"] == [
        {
            "task": "deploy-dev",
            "step": "deploy",
            "environment": "dev",
            "phase": "Succeeded",
            "message": "",
            "started": "2026-11-22T10:00:01Z",
            "finished": "2026-11-22T10:00:03Z",
            "outputs": {"commit": "c0ffee12"},
        },
        {
            "task": "approve-prod-eu",
            "step": "approve",
            "environment": "prod-eu",
            "phase": "Running",
            "message": "waiting for approval",
            "started": "2026-11-22T10:05:00Z",
            "finished": "",
            "outputs": {},
        },
    ]
    as_yaml = yaml.safe_load(run(argo, "status", RUN, "-o", "yaml").stdout)
    assert as_yaml == status


def test_status_o_wide_shows_times_and_outputs(argo: FakeArgoServer) -> None:
    lines = run(argo, "status", RUN, "-o", "wide").stdout.splitlines()
    assert lines[1].split() == [
        "ENVIRONMENT", "STEP", "PHASE", "MESSAGE", "STARTED", "FINISHED", "OUTPUTS",
    ]  # fmt: skip
    assert "commit=c0ffee12" in lines[2] and "2026-11-22T10:00:03Z" in lines[2]


def test_json_output_is_scrubbed_of_credentials(argo: FakeArgoServer) -> None:
    workflow = argo.store.get("Workflow", NS, RUN)
    workflow["status"]["message"] = "cannot push to https://bot:hunter22@git.example.com/x.git"
    argo.store.put("Workflow", NS, workflow)
    for args in (["runs", "-o", "json"], ["status", RUN, "-o", "yaml"]):
        output = run(argo, *args).stdout
        assert "hunter22" not in output and "git.example.com/x.git" in output
