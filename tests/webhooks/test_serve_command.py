"""``promoflow serve`` as a user starts it: a process, its flags, its stderr, SIGTERM."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx

from orchestrator.simulator.serve import free_port
from tests.unit.invoke import clean_env, invoke
from tests.unit.samples import HEADER
from tests.webhooks.harness import (
    PRODUCTS,
    SECRET,
    config_text,
    github_push,
    harness,
    signed,
    values,
)


@contextmanager
def _serve(args: list[str], env: dict[str, str]) -> Iterator[tuple[str, subprocess.Popen[str]]]:
    port = free_port()
    command = [sys.executable, "-m", "orchestrator.cli", "serve", "--port", str(port), *args]
    proc = subprocess.Popen(
        command, env=clean_env(env), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 90  # a loaded machine starts Python slowly
    try:
        while True:
            try:
                httpx.get(f"{url}/healthz", timeout=1)
                break
            except httpx.TransportError:
                if proc.poll() is not None or time.monotonic() > deadline:
                    if proc.poll() is None:  # still starting: stop it, or reading waits for ever
                        proc.kill()
                    raise AssertionError(proc.communicate(timeout=20)[1]) from None
                time.sleep(0.1)
        yield url, proc
    finally:
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
            proc.wait(timeout=20)


def test_serve_starts_promotions_and_logs_no_secret(tmp_path: Path) -> None:
    with harness(tmp_path) as h:
        path = "envs/dev/shop/values.yaml"
        before, after = h.push({path: values("1.9.0")})
        body = github_push(h.repo_url, before, after, [(after, "Release 1.9.0", [path])])
        env = {"PROMOFLOW_WEBHOOK_GITHUB_SECRET": SECRET, "ARGO_NAMESPACE": "argo"}
        args = ["-c", str(tmp_path / "config"), "--argo-server", h.argo.url]
        with _serve(args, env) as (url, proc):
            assert httpx.get(f"{url}/readyz").status_code == 200
            reply = httpx.post(f"{url}/webhooks/github", content=body, headers=signed(body))
            wrong = httpx.post(
                f"{url}/webhooks/github", content=body, headers=signed(body, secret="nope")
            )
            proc.send_signal(signal.SIGTERM)
            _, stderr = proc.communicate(timeout=20)
        assert reply.status_code == 202, reply.text
        assert wrong.status_code == 401
        assert [w["metadata"]["name"] for w in h.created()] == [
            reply.json()["promotions"][0]["run"]
        ]
    # uvicorn shuts down gracefully, then re-raises the signal (exit 143 in a pod)
    assert proc.returncode in (0, -signal.SIGTERM)
    assert "Finished server process" in stderr
    assert f"accepting github deliveries at {url}/webhooks/github" in stderr
    assert "github 202 submitted" in stderr and "github 401 refused" in stderr
    assert SECRET not in stderr and signed(body)["X-Hub-Signature-256"] not in stderr


def test_serve_refuses_what_it_cannot_run_with(tmp_path: Path) -> None:
    with harness(tmp_path):
        config = str(tmp_path / "config")
        var = "PROMOFLOW_WEBHOOK_GITHUB_SECRET"
        no_argo = invoke("serve", "-c", config, env={var: "x"})
        both = invoke("serve", "-c", config, env={var: "x", f"{var}_FILE": "/y"})
        bad = f"{HEADER}\nkind: Product\nmetadata: {{name: x}}\nspec: 3\n"
        (tmp_path / "bad.yaml").write_text(bad)
        broken = invoke("serve", "-c", str(tmp_path / "bad.yaml"), env={var: "x"})
    assert no_argo.code == 2
    assert no_argo.lines == [
        "error: no Argo Server configured: set ARGO_SERVER or pass --argo-server "
        "(or run promotions here with --local)"
    ]
    assert both.code == 2 and both.lines == [f"error: set {var} or {var}_FILE, not both"]
    assert broken.code == 1 and ": error:" in broken.lines[0]
    assert os.path.basename(broken.lines[0].split(":")[0]) == "bad.yaml"


def test_serve_follows_its_configuration_in_git(tmp_path: Path) -> None:
    with harness(tmp_path) as h:
        text = config_text(h.repo_url)
        h.push({"promoflow/promoflow.yaml": text.encode()}, "configuration")
        env = {
            "PROMOFLOW_WEBHOOK_GITHUB_SECRET": SECRET,
            "ARGO_NAMESPACE": "argo",
            "PROMOFLOW_CONFIG_GIT_URL": h.repo_url,
            "PROMOFLOW_CONFIG_GIT_PATH": "promoflow",
            "PROMOFLOW_CONFIG_GIT_INTERVAL": "1",
            "PROMOFLOW_CONFIG_GIT_TOKEN": "config-token-never-shown",
        }
        with _serve(["--argo-server", h.argo.url], env) as (url, proc):
            deadline = time.monotonic() + 30
            while httpx.get(f"{url}/readyz").status_code != 200:
                assert time.monotonic() < deadline, httpx.get(f"{url}/readyz").text
                time.sleep(0.1)
            assert httpx.get(f"{url}/readyz").json()["config"]["products"] == list(PRODUCTS)
            broken = text.replace("flow: standard", "flow: standrad", 1)
            _, refused = h.push({"promoflow/promoflow.yaml": broken.encode()}, "typo")
            while "refused" not in httpx.get(f"{url}/readyz").json()["config"]:
                assert time.monotonic() < deadline + 30
                time.sleep(0.1)
            proc.send_signal(signal.SIGTERM)
            _, stderr = proc.communicate(timeout=20)
    assert f"following the configuration in {h.repo_url} main:promoflow" in stderr
    assert f"configuration {refused[:12]} refused (1 errors);" in stderr
    assert "promoflow/promoflow.yaml:" in stderr and "unknown PromotionFlow 'standrad'" in stderr
    assert "config-token-never-shown" not in stderr
