"""A whole promotion on a real cluster: the scenario of tests/engine/test_local_promotion.py.

``PROMOFLOW_E2E_CONFIG`` is a promoflow configuration whose product
(``PROMOFLOW_E2E_PRODUCT``, default ``shop``) lives in a repository the cluster's Argo CD
deploys from and the workflow's Git Secret may push to. The templates are applied, a
promotion is submitted to the Argo Server (``ARGO_SERVER``/``ARGO_TOKEN`` as the argo CLI
reads them), every approval is answered with ``promoflow approve``, and the run must
succeed with a commit per environment. The same flow then runs with the local engine
against the cluster's Argo CD (``ARGOCD_SERVER``/``ARGOCD_AUTH_TOKEN``).
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

from orchestrator.adapters.argo import ArgoClient
from orchestrator.settings import ArgoSettings
from tests.e2e.conftest import Cluster

pytestmark = pytest.mark.e2e

PROMOFLOW = Path(sys.executable).parent / "promoflow"
DONE = ("Succeeded", "Failed", "Error")


def promoflow(*args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(PROMOFLOW), *args], capture_output=True, text=True, timeout=timeout, check=False
    )


@pytest.fixture(scope="module")
def config(cluster: Cluster) -> Path:
    """Needs the cluster (skipped without one) and a configuration to promote."""
    missing = [k for k in ("PROMOFLOW_E2E_CONFIG", "ARGO_SERVER") if not os.environ.get(k)]
    if missing:
        pytest.fail(f"set {', '.join(missing)} (see tests/e2e/README.md)")
    return Path(os.environ["PROMOFLOW_E2E_CONFIG"]).expanduser()


def product() -> str:
    return os.environ.get("PROMOFLOW_E2E_PRODUCT", "shop")


def test_a_promotion_submitted_to_the_argo_server_succeeds(config: Path) -> None:
    applied = promoflow("apply", "-c", str(config))
    assert applied.returncode == 0, applied.stderr
    version = f"0.0.{int(time.time())}"
    submitted = promoflow(
        "promote", "-c", str(config), "-p", product(), "-v", version,
        "--request-id", uuid.uuid4().hex[:8], "--requested-by", "e2e",
    )  # fmt: skip
    assert submitted.returncode == 0, submitted.stderr
    name = submitted.stdout.split()[0]
    client = ArgoClient(ArgoSettings())
    deadline = time.monotonic() + float(os.environ.get("PROMOFLOW_E2E_RUN_SECONDS", "1800"))
    approved: set[str] = set()
    while True:
        workflow = client.get_workflow(name)
        status = workflow.get("status") or {}
        if status.get("phase") in DONE:
            break
        assert time.monotonic() < deadline, f"{name} still {status.get('phase')}"
        for node in (status.get("nodes") or {}).values():
            task = str(node.get("displayName", ""))
            if task.startswith("approve-") and node.get("phase") == "Running":
                env = task.removeprefix("approve-")
                if env not in approved:
                    answer = promoflow("approve", name, "--env", env, "-m", "e2e")
                    assert answer.returncode == 0, answer.stderr
                    approved.add(env)
        time.sleep(5)
    assert status["phase"] == "Succeeded", status.get("message")
    commits = {
        str(node["displayName"]): p["value"]
        for node in status["nodes"].values()
        for p in (node.get("outputs") or {}).get("parameters") or []
        if str(node.get("displayName", "")).startswith("deploy-") and p["name"] == "commit"
    }
    assert commits and all(len(sha) == 40 for sha in commits.values())


def test_the_same_flow_runs_locally_against_the_real_argocd(config: Path, tmp_path: Path) -> None:
    if not os.environ.get("ARGOCD_SERVER"):
        pytest.fail("set ARGOCD_SERVER (and ARGOCD_AUTH_TOKEN) for the local run")
    result = promoflow(
        "promote", "--local", "-c", str(config), "-p", product(),
        "-v", f"0.0.{int(time.time())}", "--auto-approve", "--soak-scale", "0.01",
        "--stand-ins", "--runs-dir", str(tmp_path / "runs"),
        timeout=1800,
    )  # fmt: skip
    assert result.returncode == 0, result.stdout + result.stderr
    assert "simulator" not in result.stdout.lower()
    assert list((tmp_path / "runs").glob("*.json"))
