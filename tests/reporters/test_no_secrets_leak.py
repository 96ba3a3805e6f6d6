"""Secrets planted in every form they arrive in (URL user-info, credential query
parameters, echoed headers, a prefix of a token, another case, base64 inside
``user:token``) never reach what the reporter publishes or keeps: the stdout sink, an
HTTP sink, a Slack sink, ``/stream``, ``/metrics``, the store file and its WAL, and the
log. The reporter runs as ``promoflow reporter`` against a fake Kubernetes API over real
HTTP, with real sinks delivering to a loopback receiver."""

from __future__ import annotations

import base64
import json
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

import httpx
import yaml
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from orchestrator.simulator.argocd import ArgoCDSimulator
from orchestrator.simulator.serve import ServerThread, free_port
from orchestrator.steps.notify import build_report
from tests.fakes.kube import FakeKubeAPI
from tests.unit.invoke import clean_env

REPORTER = [sys.executable, "-m", "orchestrator.cli", "reporter"]
"""``promoflow reporter``, from this checkout."""

GIT_TOKEN = "glpat-Xq7RmZ2vKp9sLw4tYb8n"
"""Known to the reporter (its environment): masked in every form."""
REPORT_TOKEN = "report-Hq3ZpV8wNc5mTj2R"
SINK_SECRET = "sink-Lr6YbQ1dFs9kGx4W"
QUERY_SECRET = "Qs9vTn2LmX5cRb8Z"
HEADER_SECRET = "eyJhbGciOiJIUzI1NiJ9.HdrEchoSecret.Zk3"
PRIVATE_TOKEN = "pt-Wm4Kc8Jz2Ns6Hv1D"
HOOK_SECRET = "HkS3cr3tPathPart9XyZ"
BASIC = base64.b64encode(f"bot:{GIT_TOKEN}".encode()).decode()

FORMS = {
    "the token": GIT_TOKEN,
    "the token in lower case": GIT_TOKEN.lower(),
    "the token in upper case": GIT_TOKEN.upper(),
    "a prefix of the token": GIT_TOKEN[:10],
    "the token in base64 (bot:token)": BASIC[6:30],
    "the token alone in base64": base64.b64encode(GIT_TOKEN.encode()).decode()[:24],
    "the report token": REPORT_TOKEN,
    "the sink's signing secret": SINK_SECRET,
    "a credential query parameter": QUERY_SECRET,
    "an echoed Authorization header": HEADER_SECRET,
    "an echoed PRIVATE-TOKEN header": PRIVATE_TOKEN,
    "a URL path that is a credential": HOOK_SECRET,
}


def _kubeconfig(path: Path, server: str) -> Path:
    config = {
        "apiVersion": "v1", "kind": "Config",
        "clusters": [{"name": "fake", "cluster": {"server": server}}],
        "users": [{"name": "me", "user": {}}],
        "contexts": [{"name": "fake", "context": {"cluster": "fake", "user": "me"}}],
        "current-context": "fake",
    }  # fmt: skip
    path.write_text(yaml.safe_dump(config))
    return path


class Receiver:
    def __init__(self) -> None:
        self.bodies: list[str] = []

    def app(self) -> Starlette:
        async def take(request: Request) -> JSONResponse:
            self.bodies.append((await request.body()).decode())
            return JSONResponse({"ok": True})

        return Starlette(routes=[Route("/{path:path}", take, methods=["POST"])])


def _until(what: str, done: Callable[[], bool], seconds: float = 90) -> None:
    deadline = time.monotonic() + seconds
    while not done():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.1)


def _stream(url: str, into: list[str], stop: threading.Event) -> None:
    headers = {"Authorization": f"Bearer {REPORT_TOKEN}"}
    try:
        with httpx.stream("GET", f"{url}/stream", headers=headers, timeout=120) as response:
            for line in response.iter_lines():
                into.append(line)
                if stop.is_set():
                    return
    except httpx.HTTPError:  # the reporter stopped
        return


def _leaks(where: str, text: str) -> list[str]:
    lowered = text.lower()
    return [
        f"{name} in {where}"
        for name, form in FORMS.items()
        if form in text or (name == "the token" and form.lower() in lowered)
    ]


def test_planted_secrets_reach_no_sink_store_wal_stream_metric_or_log(tmp_path: Path) -> None:
    sim = ArgoCDSimulator(health_messages="app")  # Argo CD 2: the message on the app
    labels = {"promoflow.dev/product": "shop", "promoflow.dev/environment": "dev"}
    sim.add_app(
        "shop-dev", repo_url=f"https://bot:{GIT_TOKEN}@git.example.com/acme/gitops.git",
        path="dev", labels=labels,
    )  # fmt: skip
    receiver = Receiver()
    kube = FakeKubeAPI(sim, bookmark_interval=0.5)
    port = free_port()
    state = tmp_path / "state.db"
    out, err = tmp_path / "stdout", tmp_path / "stderr"
    with kube.serve() as served, ServerThread(receiver.app()) as hooks:
        env = {
            **clean_env(), "KUBECONFIG": str(_kubeconfig(tmp_path / "kubeconfig", served.url)),
            "GIT_TOKEN": GIT_TOKEN, "PROMOFLOW_REPORT_TOKEN": REPORT_TOKEN,
            "PROMOFLOW_SINK_SECRET": SINK_SECRET,
        }  # fmt: skip
        command = [
            *REPORTER, "--state", str(state), "--port", str(port),
            "--sink", "stdout",
            "--sink", f"{hooks.url}/cloudevents?private_token={QUERY_SECRET}",
            "--sink", f"slack:{hooks.url}/services/T000/B000/{HOOK_SECRET}",
        ]  # fmt: skip
        with out.open("w") as stdout, err.open("w") as stderr:
            proc = subprocess.Popen(command, env=env, stdout=stdout, stderr=stderr)
        url = f"http://127.0.0.1:{port}"
        lines: list[str] = []
        stop = threading.Event()
        try:
            _until("the reporter to listen", lambda: "/stream at" in err.read_text())
            _until("/healthz", lambda: _healthy(url))
            reader = threading.Thread(target=_stream, args=(url, lines, stop), daemon=True)
            reader.start()
            time.sleep(0.5)
            message = (
                f"git fetch https://git.example.com/x.git?private_token={QUERY_SECRET} failed; "
                f"request had Authorization: Bearer {HEADER_SECRET} and PRIVATE-TOKEN: "
                f"{PRIVATE_TOKEN}; server said: token {GIT_TOKEN[:10]}... rejected "
                f"({GIT_TOKEN.upper()}); basic {BASIC}"
            )
            sim.deploy("shop-dev", "d" * 40, health="Degraded", message=message)
            report = build_report(
                product="shop", version="1.4.0", flow="default", status="Failed",
                failures=json.dumps([{"displayName": "promote", "phase": "Failed",
                                      "message": f"push to https://bot:{GIT_TOKEN}@git.example"
                                      f".com failed: PRIVATE-TOKEN: {PRIVATE_TOKEN}"}]),
                run="shop-1-4-0-x1", requested_by="ci",
            )  # fmt: skip
            posted = httpx.post(
                f"{url}/reports", json={**report, "namespace": "argo"},
                headers={"Authorization": f"Bearer {REPORT_TOKEN}"},
            )  # fmt: skip
            assert posted.status_code == 202, posted.text
            _until("the stdout sink", lambda: "promotion.failed" in out.read_text())
            _until("the HTTP sink", lambda: any("promotion.failed" in b for b in receiver.bodies))
            _until("the Slack sink", lambda: len(receiver.bodies) >= 6)
            _until("the stream", lambda: sum("promotion.failed" in x for x in lines) >= 1)
            metrics = httpx.get(
                f"{url}/metrics", headers={"Authorization": f"Bearer {REPORT_TOKEN}"}
            ).text
            wal = Path(f"{state}-wal")
            wal_held = wal.read_bytes()  # the writes not yet checkpointed into the file
            kept_while_running = state.read_bytes() + wal_held
        finally:
            stop.set()
            proc.send_signal(signal.SIGTERM)
            proc.wait(timeout=60)
    logged, printed = err.read_text(), out.read_text()
    kept = kept_while_running + state.read_bytes()
    assert "app.health-degraded" in printed and "promotion.failed" in printed  # it ran
    assert "Bearer ***" in printed and "private_token=***" in printed  # and was masked
    assert b"promotion.failed" in wal_held  # the WAL was read while it held the events
    assert "promoflow_reporter_delivered_total" in metrics
    leaks = [
        *_leaks("the stdout sink", printed),
        *_leaks("the log", logged),
        *_leaks("the HTTP and Slack sinks", "\n".join(receiver.bodies)),
        *_leaks("/stream", "\n".join(lines)),
        *_leaks("/metrics", metrics),
        *_leaks("the store and its WAL", kept.decode("utf-8", "replace")),
    ]
    assert leaks == []


def _healthy(url: str) -> bool:
    try:
        return httpx.get(f"{url}/healthz", timeout=2).status_code == 200
    except httpx.HTTPError:
        return False


def test_metrics_labels_name_sinks_without_their_secret_paths_or_queries() -> None:
    from orchestrator.access import Access
    from reporters.app import create_app
    from reporters.sinks.http import HttpSink
    from reporters.stream import Stream

    sinks = [
        HttpSink(f"https://hooks.slack.com/services/T000/B000/{HOOK_SECRET}"),
        HttpSink(f"https://gitlab.example.com/hook?private_token={QUERY_SECRET}"),
        HttpSink(f"https://bot:{GIT_TOKEN}@hooks.example.com/x"),
    ]
    numbers = {
        "received": 0, "emitted": 0, "coalesced": 0, "queue": 0, "watch_restarts": 0,
        "watch_relists": 0, "watch_errors": 0, "held": 0, "enrichment_failures": 0,
        "notification_problems": 0, "sinks": {s.name: (1, 0) for s in sinks},
        "dead": {s.name: 0 for s in sinks},
    }  # fmt: skip
    app = create_app(Stream(), lambda: numbers, dict, access=Access(REPORT_TOKEN))
    with ServerThread(app) as server:
        auth = {"Authorization": f"Bearer {REPORT_TOKEN}"}
        metrics = httpx.get(f"{server.url}/metrics", headers=auth).text
    for sink in sinks:
        sink.close()
    assert 'sink="http https://hooks.slack.com/services/***"' in metrics
    assert 'sink="http https://gitlab.example.com/hook?private_token=***"' in metrics
    assert _leaks("/metrics", metrics) == []
