"""``status --watch`` and ``logs`` of runs on the Argo Server (the fake one, which answers
``/log`` in upstream's shape: a stream of ``{"result": {"content", "podName"}}`` lines).

They run as subprocesses: Hera's client calls a pydantic method that warns, and pytest turns
warnings into errors in process."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from orchestrator.engine.model import pod_name
from tests.fakes.argo_server import FakeArgoServer
from tests.unit.invoke import clean_env

ROOT = Path(__file__).resolve().parents[2]
TOKEN = "argo-token-do-not-print"
NS = "promotions"
RUN = "shop-2-0-0-3f9a1c2e"


def node(task: str, kind: str, phase: str, **extra: Any) -> dict[str, Any]:
    return {"id": f"{RUN}-{task}", "name": f"{RUN}.{task}", "displayName": task, "type": kind,
            "phase": phase, "startedAt": "2026-11-22T10:00:01Z", **extra}  # fmt: skip


def workflow(phase: str) -> dict[str, Any]:
    return {
        "metadata": {
            "name": RUN,
            "labels": {"promoflow.dev/product": "shop", "promoflow.dev/flow": "standard"},
            "annotations": {"promoflow.dev/version": "2.0.0"},
        },
        "spec": {"workflowTemplateRef": {"name": "promoflow-shop"}},
        "status": {
            "phase": phase,
            "startedAt": "2026-11-22T10:00:00Z",
            "nodes": {
                "a": node("deploy-dev", "Pod", "Succeeded"),
                "b": node("sync-dev", "Retry", phase),
                "b0": node("sync-dev(0)", "Pod", "Failed"),
                "b1": node("sync-dev(1)", "Pod", phase),
            },
        },
    }


@pytest.fixture
def argo() -> Iterator[FakeArgoServer]:
    with FakeArgoServer(token=TOKEN) as fake:
        fake.store.put("Workflow", NS, workflow("Running"))
        yield fake


def cli(argo: FakeArgoServer, *args: str) -> subprocess.CompletedProcess[str]:
    env = clean_env(
        {
            "ARGO_SERVER": argo.url.removeprefix("http://"),
            "ARGO_SECURE": "false",
            "ARGO_TOKEN": TOKEN,
            "ARGO_NAMESPACE": NS,
        }
    )
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")])
    result = subprocess.run(
        [sys.executable, "-m", "orchestrator.cli", *args],
        cwd=ROOT, capture_output=True, text=True, env=env, timeout=60, check=False,
    )  # fmt: skip
    assert TOKEN not in result.stdout + result.stderr
    assert "Traceback" not in result.stderr
    return result


@pytest.mark.parametrize(("end", "code"), [("Succeeded", 0), ("Failed", 1)])
def test_watch_polls_the_server_until_the_run_ends(
    argo: FakeArgoServer, end: str, code: int
) -> None:
    path = ("GET", f"/api/v1/workflows/{NS}/{RUN}")

    def finish() -> None:  # once the watch has seen the run Running
        deadline = time.monotonic() + 50
        while not any(r[:2] == path for r in argo.requests) and time.monotonic() < deadline:
            time.sleep(0.05)
        argo.store.put("Workflow", NS, workflow(end))

    writer = threading.Thread(target=finish)
    writer.start()
    result = cli(argo, "status", RUN, "--watch")
    writer.join()
    assert result.returncode == code, result.stderr
    assert result.stdout.splitlines()[0] == f"{RUN}: shop 2.0.0 — {end}"
    reads = [r for r in argo.requests if r[:2] == path]
    assert len(reads) >= 2


def test_logs_of_a_cluster_run_name_each_line_by_its_task(argo: FakeArgoServer) -> None:
    argo.logs[RUN] = [
        (pod_name(RUN, "deploy-dev", "promote"), '{"commit": "c0ffee12"}'),
        (pod_name(RUN, "sync-dev(0)", "wait-argocd"), "shop-dev: Degraded"),
        (f"{RUN}-sync-dev(1)", "shop-dev: deployed"),  # a v1 pod name: the node's id
    ]
    every = cli(argo, "logs", RUN)
    assert every.returncode == 0, every.stderr
    assert every.stdout.splitlines() == [
        'deploy-dev: {"commit": "c0ffee12"}',
        "sync-dev(0): shop-dev: Degraded",
        "sync-dev(1): shop-dev: deployed",
    ]
    one = cli(argo, "logs", RUN, "sync-dev", "-f")
    assert one.stdout.splitlines() == ["shop-dev: Degraded", "shop-dev: deployed"]
    asked = [path for method, path, _ in argo.requests if path.endswith("/log")]
    assert asked == [f"/api/v1/workflows/{NS}/{RUN}/log"] * 2


def test_logs_of_a_run_the_server_does_not_have(argo: FakeArgoServer) -> None:
    result = cli(argo, "logs", "no-such-run")
    assert result.returncode == 1
    assert result.stderr.startswith("error: Workflow no-such-run: not found")


def test_steps_that_ran_but_sent_no_lines_are_named(argo: FakeArgoServer) -> None:
    """The real Argo Server answers an empty 200 when the API server cannot reach a node's
    kubelet: finished steps with an exit code and no line are named, exit 1; a step whose
    container never ran (no exit code) is not."""
    ran = workflow("Failed")
    nodes = ran["status"]["nodes"]
    nodes["a"]["outputs"] = {"exitCode": "0"}
    nodes["b0"]["outputs"] = {"exitCode": "1"}
    argo.store.put("Workflow", NS, ran)
    argo.logs[RUN] = [(pod_name(RUN, "sync-dev(0)", "wait-argocd"), "shop-dev: Degraded")]

    every = cli(argo, "logs", RUN)
    assert every.returncode == 1
    assert every.stdout.splitlines() == ["sync-dev(0): shop-dev: Degraded"]
    assert every.stderr.startswith("error: the Argo Server sent no log lines for deploy-dev,")
    assert f"kubectl logs -n {NS} POD -c main" in every.stderr
    heard = cli(argo, "logs", RUN, "sync-dev")
    assert heard.returncode == 0, heard.stderr


def test_a_log_stream_refused_before_its_first_line(argo: FakeArgoServer) -> None:
    """The log stream's errors come wrapped (``{"error": {"grpc_code", ...}}``, as the real
    Argo Server answers, tests/e2e/test_fakes_match_real_servers.py): read as such."""
    from orchestrator.adapters.argo import ArgoClient, ArgoError
    from orchestrator.settings import ArgoSettings

    def first(token: str, name: str) -> str:
        settings = ArgoSettings(server=argo.url, token=token, namespace=NS)
        with pytest.raises(ArgoError) as raised:
            next(ArgoClient(settings).workflow_logs(name))
        return str(raised.value)

    assert first(TOKEN, "no-such-run") == (
        'logs of no-such-run: not found (workflows.argoproj.io "no-such-run" not found)'
    )
    refused = first("other", RUN)
    assert refused == f"logs of {RUN}: the Argo Server refused the credentials (check ARGO_TOKEN)"
