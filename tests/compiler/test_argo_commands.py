"""apply / promote / runs / status against the fake Argo Server, as a user runs them."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator

import pytest

from orchestrator.compiler.library import LIBRARY
from tests.compiler.helpers import EXAMPLES, ROOT
from tests.fakes import argo_server
from tests.fakes.argo_server import FakeArgoServer
from tests.support.argo_schema import schema_errors, unknown_fields

TOKEN = "argo-token-do-not-print"


@pytest.fixture
def argo() -> Iterator[FakeArgoServer]:
    with FakeArgoServer(token=TOKEN) as fake:
        yield fake


@pytest.fixture
def proxied() -> Iterator[FakeArgoServer]:
    with FakeArgoServer(token=TOKEN, base_href="/argo") as fake:
        yield fake


def run(argo: FakeArgoServer, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    host = argo.url.removeprefix("http://")
    environment = {
        **os.environ,
        "ARGO_SERVER": host,
        "ARGO_SECURE": "false",
        "ARGO_TOKEN": TOKEN,
        "ARGO_NAMESPACE": "promotions",
        "PROMOFLOW_REQUESTED_BY": "alice",
        **env,
    }
    result = subprocess.run(
        [sys.executable, "-m", "orchestrator.cli", *args],
        cwd=ROOT, capture_output=True, text=True, env=environment, timeout=60,
    )  # fmt: skip
    assert TOKEN not in result.stdout + result.stderr
    assert "Traceback" not in result.stderr
    return result


def test_apply_creates_then_reports_unchanged_then_updates(argo: FakeArgoServer) -> None:
    first = run(argo, "apply", "-c", str(EXAMPLES))
    assert first.returncode == 0, first.stderr
    lines = first.stdout.splitlines()
    assert len(lines) == len(LIBRARY) + 2 and all(line.endswith(" created") for line in lines)
    assert "workflowtemplate/promoflow-shop created" in lines
    stored = argo.store.list("WorkflowTemplate", "promotions")
    assert len(stored) == len(LIBRARY) + 2  # the step templates and two products
    for manifest in stored:
        kind = "WorkflowTemplate"  # the server answers without apiVersion/kind
        assert schema_errors(manifest, kind) == [] and unknown_fields(manifest, kind) == []
    second = run(argo, "apply", "-c", str(EXAMPLES))
    assert all(line.endswith(" unchanged") for line in second.stdout.splitlines())
    third = run(argo, "apply", "-c", str(EXAMPLES), PROMOFLOW_STEP_IMAGE="registry.local/pf:2")
    updated = [line for line in third.stdout.splitlines() if line.endswith(" updated")]
    containers = sorted(
        f"workflowtemplate/{m['metadata']['name']} updated"
        for m in stored
        if any("container" in t for t in m["spec"]["templates"])
    )
    assert sorted(updated) == containers  # suspend templates and products unchanged
    assert len(containers) == 9  # every step but the approval and the soak (suspend nodes)
    promote = argo.store.get("WorkflowTemplate", "promotions", "promoflow-promote")
    assert promote["spec"]["templates"][0]["container"]["image"] == "registry.local/pf:2"


@pytest.mark.parametrize("version", ["v3.5.10", "v3.6.0-rc1", "3.4.0"])
def test_apply_refuses_an_argo_older_than_the_mutexes_before_applying_anything(
    argo: FakeArgoServer, monkeypatch: pytest.MonkeyPatch, version: str
) -> None:
    monkeypatch.setitem(argo_server.VERSION, "version", version)
    result = run(argo, "apply", "-c", str(EXAMPLES))
    assert result.returncode == 1
    assert f"runs Argo Workflows {version}; promoflow needs v3.6.0 or later" in result.stderr
    assert "synchronization.mutexes" in result.stderr and "Traceback" not in result.stderr
    assert argo.store.list("WorkflowTemplate", "promotions") == []


def test_apply_warns_of_a_server_build_that_names_no_release(
    argo: FakeArgoServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(argo_server.VERSION, "version", "untagged")
    result = run(argo, "apply", "-c", str(EXAMPLES), "--no-steps")
    assert result.returncode == 0, result.stderr
    assert "warning: the Argo Server's version 'untagged' names no release" in result.stderr
    assert len(argo.store.list("WorkflowTemplate", "promotions")) == 2


def test_apply_without_steps_installs_only_the_products(argo: FakeArgoServer) -> None:
    """Where the Helm chart installs the step templates, its job applies the products."""
    result = run(argo, "apply", "-c", str(EXAMPLES), "--no-steps")
    assert result.returncode == 0, result.stderr
    assert sorted(result.stdout.splitlines()) == [
        "workflowtemplate/promoflow-checkout created",
        "workflowtemplate/promoflow-shop created",
    ]
    assert len(argo.store.list("WorkflowTemplate", "promotions")) == 2


def test_base_href_prefixes_api_and_links(proxied: FakeArgoServer) -> None:
    assert (
        run(proxied, "apply", "-c", str(EXAMPLES), "-p", "shop", ARGO_BASE_HREF="/argo/").returncode
        == 0
    )
    first = run(proxied, "promote", "-c", str(EXAMPLES), "-p", "shop", "--version", "1.4.2",
                "--set", "image.digest=sha256:1111", ARGO_BASE_HREF="/argo/")  # fmt: skip
    assert first.returncode == 0, first.stderr
    name, link = first.stdout.split()[0], first.stdout.splitlines()[1]
    assert link == f"{proxied.url}/argo/workflows/promotions/{name}"


def test_promote_submits_once_and_detects_a_repeat(argo: FakeArgoServer) -> None:
    assert run(argo, "apply", "-c", str(EXAMPLES), "-p", "shop").returncode == 0
    first = run(
        argo,
        "promote",
        "-c",
        str(EXAMPLES),
        "-p",
        "shop",
        "--version",
        "1.4.2",
        "--set",
        "image.digest=sha256:1111",
    )
    assert first.returncode == 0, first.stderr
    name = first.stdout.split()[0]
    assert first.stdout.splitlines()[1] == f"{argo.url}/workflows/promotions/{name}"
    stored = argo.store.get("Workflow", "promotions", name)
    assert stored["metadata"]["labels"]["promoflow.dev/product"] == "shop"
    assert schema_errors(stored, "Workflow") == []
    params = {p["name"]: p["value"] for p in stored["spec"]["arguments"]["parameters"]}
    assert params["requested-by"] == "alice" and params["version"] == "1.4.2"
    again = run(
        argo,
        "promote",
        "-c",
        str(EXAMPLES),
        "-p",
        "shop",
        "--version",
        "1.4.2",
        "--set",
        "image.digest=sha256:1111",
    )
    assert again.returncode == 0 and "already running" in again.stdout
    assert len(argo.store.list("Workflow", "promotions")) == 1
    other = run(argo, "promote", "-c", str(EXAMPLES), "-p", "shop", "--version", "1.4.2",
                "--set", "image.digest=sha256:1111", "--request-id", "hotfix-2")  # fmt: skip
    assert other.returncode == 0 and len(argo.store.list("Workflow", "promotions")) == 2


def test_promote_without_templates_says_to_apply(argo: FakeArgoServer) -> None:
    result = run(
        argo,
        "promote",
        "-c",
        str(EXAMPLES),
        "-p",
        "shop",
        "--version",
        "1.0.0",
        "--set",
        "image.digest=sha256:1111",
    )
    assert result.returncode == 1
    assert "not found" in result.stderr and "promoflow apply" in result.stderr


def test_runs_and_status_show_environments(argo: FakeArgoServer) -> None:
    run(argo, "apply", "-c", str(EXAMPLES), "-p", "shop")
    name = run(
        argo,
        "promote",
        "-c",
        str(EXAMPLES),
        "-p",
        "shop",
        "--version",
        "2.0.0",
        "--set",
        "image.digest=sha256:1111",
    ).stdout.split()[0]
    workflow = argo.store.get("Workflow", "promotions", name)
    workflow["status"] = {
        "phase": "Running",
        "startedAt": "2026-11-22T10:00:00Z",
        "nodes": {
            "a": {"id": "a", "name": f"{name}.deploy-dev", "displayName": "deploy-dev",
                  "type": "Retry", "phase": "Succeeded"},
            "a0": {"id": "a0", "name": f"{name}.deploy-dev(0)", "displayName": "deploy-dev(0)",
                   "type": "Pod", "phase": "Succeeded"},
            "b": {"id": "b", "name": f"{name}.approve-prod-eu", "displayName": "approve-prod-eu",
                  "type": "Suspend", "phase": "Running", "message": "waiting for approval"},
        },
    }  # fmt: skip
    argo.store.put("Workflow", "promotions", workflow)
    runs = run(argo, "runs", "-p", "shop")
    assert runs.returncode == 0 and name in runs.stdout and "Running" in runs.stdout
    status = run(argo, "status", name)
    assert status.returncode == 0, status.stderr
    assert "shop 2.0.0" in status.stdout
    assert "prod-eu" in status.stdout and "waiting for approval" in status.stdout
    assert "deploy-dev(0)" not in status.stdout
    missing = run(argo, "status", "no-such-run")
    assert missing.returncode == 1 and "not found" in missing.stderr


def test_bad_token_and_unreachable_server(argo: FakeArgoServer) -> None:
    bad = run(argo, "runs", ARGO_TOKEN="wrong-token")
    assert bad.returncode == 1 and "ARGO_TOKEN" in bad.stderr and "wrong-token" not in bad.stderr
    down = run(argo, "runs", ARGO_SERVER="127.0.0.1:1")
    assert down.returncode == 75 and "cannot reach" in down.stderr  # may mend: EX_TEMPFAIL
