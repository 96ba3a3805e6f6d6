"""``promoflow reporter --sink stdout`` as a user runs it, against the fake Kubernetes API
over real HTTP through a kubeconfig: CloudEvents lines for real changes, SIGTERM ends it,
and bad options are usage errors."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import yaml

from orchestrator.simulator.argocd import ArgoCDSimulator
from tests.fakes.kube import FakeKubeAPI
from tests.unit.invoke import clean_env

REPORTER = [sys.executable, "-m", "orchestrator.cli", "reporter"]
"""``promoflow reporter``, from this checkout."""

REPO = "https://git.example.com/acme/gitops.git"


def _kubeconfig(path: Path, server: str) -> Path:
    config = {
        "apiVersion": "v1",
        "kind": "Config",
        "clusters": [{"name": "fake", "cluster": {"server": server}}],
        "users": [{"name": "me", "user": {}}],
        "contexts": [{"name": "fake", "context": {"cluster": "fake", "user": "me"}}],
        "current-context": "fake",
    }
    path.write_text(yaml.safe_dump(config))
    return path


def test_stdout_sink_prints_cloudevents_of_real_changes(tmp_path: Path) -> None:
    sim = ArgoCDSimulator()
    sim.add_app("shop-dev", repo_url=REPO, path="dev")
    kube = FakeKubeAPI(sim, bookmark_interval=0.5)
    with kube.serve() as served:
        env = {**clean_env(), "KUBECONFIG": str(_kubeconfig(tmp_path / "kubeconfig", served.url))}
        command = [*REPORTER, "--sink", "stdout",
                   "--state", str(tmp_path / "state.db")]  # fmt: skip
        proc = subprocess.Popen(
            command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
        )
        lines: list[str] = []
        stdout = proc.stdout
        assert stdout is not None
        reader = threading.Thread(target=lambda: lines.extend(iter(stdout.readline, "")))
        reader.start()

        def printed(kind: str) -> bool:  # waits on what the process says, not on a clock
            deadline = time.monotonic() + 60
            while time.monotonic() < deadline and proc.poll() is None:
                if any(f'"type": "{kind}"' in line or f'"type":"{kind}"' in line for line in lines):
                    return True
                time.sleep(0.05)
            return False

        try:
            assert printed("app.created"), lines
            sim.deploy("shop-dev", "d" * 40)
            for _ in range(5):
                sim.reconcile("shop-dev")  # churn: nothing
            assert printed("app.deployed"), lines
            time.sleep(1)  # the churn's turn to (not) print
        finally:
            proc.send_signal(signal.SIGTERM)
            proc.wait(timeout=30)
            reader.join(10)  # stdout is the reader's alone: read to its end
            assert proc.stderr is not None
            err = proc.stderr.read()
            proc.stderr.close()
            stdout.close()
    events = [json.loads(line) for line in lines]
    kinds = [e["type"] for e in events]
    assert kinds[0] == "app.created"
    assert "app.deployed" in kinds and kinds.count("app.deployed") <= 2
    deployed = [e for e in events if e["type"] == "app.deployed"][-1]
    assert deployed["data"]["revision"] == "d" * 40 and deployed["subject"] == "argocd/shop-dev"
    assert all(e["specversion"] == "1.0" and e["id"] for e in events)
    assert "reporting all namespaces (shard 0 of 1) to stdout" in err
    assert proc.returncode == 0


def test_usage_errors() -> None:
    run = subprocess.run(
        [*REPORTER, "--shard", "3", "--replicas", "2"],
        env=clean_env(), capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    assert run.returncode == 2
    assert run.stderr.splitlines() == [
        "Usage: promoflow reporter [OPTIONS] COMMAND [ARGS]...",
        "error: Invalid value for --shard: 3 is not below --replicas 2",
    ]


def test_a_queue_of_nothing_and_a_store_that_cannot_be_opened_are_usage_errors(
    tmp_path: Path,
) -> None:
    env = {**clean_env(), "KUBECONFIG": str(_kubeconfig(tmp_path / "kc", "http://127.0.0.1:1"))}
    queue = subprocess.run(
        [*REPORTER, "--queue", "0"],
        env=env, capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    state = subprocess.run(
        [*REPORTER, "--state", str(blocker / "state.db")],
        env=env, capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    assert queue.returncode == 2
    assert queue.stderr.splitlines()[-1] == (
        "error: Invalid value for --queue: 0: the queue holds at least one app"
    )
    assert state.returncode == 2 and "Traceback" not in state.stderr
    assert state.stderr.startswith(f"error: --state {blocker / 'state.db'}: cannot open the store")


def test_sharing_unknown_private_data_is_a_usage_error() -> None:
    run = subprocess.run(
        [*REPORTER, "--share", "author-emails,phone-numbers"],
        env=clean_env(), capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    assert run.returncode == 2
    assert run.stderr.splitlines()[-1] == (
        "error: Invalid value for --share: 'phone-numbers': one of author-emails, jira-fields"
    )


NOTIFICATIONS = """\
apiVersion: v1
kind: ConfigMap
metadata:
  name: promoflow-notifications-cm
data:
  service.webhook.deploys: |
    url: {url}
    headers:
    - name: Authorization
      value: Bearer $receiver-token
  template.app-deployed: |
    message: "{{{{.app.metadata.name}}}} is live"
    webhook:
      deploys:
        method: POST
        path: /deployed
        body: '{{"app": "{{{{.app.metadata.name}}}}", "rev": "{{{{.event.data.revision}}}}"}}'
  subscriptions: |
    - recipients: [deploys]
      triggers: [on-deployed]
"""


def test_configured_notifications_reach_a_webhook_with_its_secret_header(tmp_path: Path) -> None:
    from starlette.applications import Starlette
    from starlette.requests import Request
    from starlette.responses import JSONResponse
    from starlette.routing import Route

    from orchestrator.simulator.serve import ServerThread

    got: list[tuple[dict[str, str], dict[str, str]]] = []

    async def take(request: Request) -> JSONResponse:
        got.append((dict(request.headers), await request.json()))
        return JSONResponse({}, 200)

    receiver = Starlette(routes=[Route("/hooks/deployed", take, methods=["POST"])])
    sim = ArgoCDSimulator()
    sim.add_app("shop-dev", repo_url=REPO, path="dev")
    kube = FakeKubeAPI(sim, bookmark_interval=0.5)
    secrets = tmp_path / "secret"
    secrets.mkdir()
    (secrets / "receiver-token").write_text("t0ken-never-logged\n")
    with ServerThread(receiver) as hook, kube.serve() as served:
        config = tmp_path / "cm.yaml"
        config.write_text(NOTIFICATIONS.format(url=f"{hook.url}/hooks"))
        env = {**clean_env(), "KUBECONFIG": str(_kubeconfig(tmp_path / "kubeconfig", served.url))}
        command = [*REPORTER, "--notifications", str(config),
                   "--secrets", str(secrets), "--state", str(tmp_path / "state.db"),
                   "-n", "argocd,apps-team"]  # fmt: skip
        proc = subprocess.Popen(
            command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
        )
        try:
            time.sleep(2)
            sim.deploy("shop-dev", "d" * 40)
            deadline = time.monotonic() + 20
            while not any(b.get("rev") == "d" * 40 for _, b in got):
                assert time.monotonic() < deadline, got
                time.sleep(0.2)
        finally:
            proc.send_signal(signal.SIGTERM)
            out, err = proc.communicate(timeout=30)
    headers, body = next((h, b) for h, b in got if b.get("rev") == "d" * 40)
    assert body == {"app": "shop-dev", "rev": "d" * 40}
    assert headers["authorization"] == "Bearer t0ken-never-logged"
    assert "to deploys;" in err and out == ""  # no --sink: nothing on stdout
    assert "reporting argocd,apps-team (shard 0 of 1)" in err
    assert "t0ken" not in out + err
    assert "t0ken" not in (tmp_path / "state.db").read_bytes().decode(errors="replace")


def test_a_broken_notifications_file_is_a_usage_error_with_positions(tmp_path: Path) -> None:
    config = tmp_path / "cm.yaml"
    config.write_text("subscriptions: |\n  - recipients: [slack:x]\n    triggers: [on-deploy]\n")
    run = subprocess.run(
        [*REPORTER, "--notifications", str(config)],
        env=clean_env(), capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    assert run.returncode == 2 and "Traceback" not in run.stderr
    assert run.stderr.splitlines() == [
        f"{config}:2:18: error: unknown service 'slack': define it as service.<type> "
        "(webhooks: service.webhook.slack)",
        f"{config}:3:16: error: unknown trigger 'on-deploy' (did you mean 'on-deployed'?)",
    ]


def test_the_reporter_takes_h_and_shows_help_as_every_command_does() -> None:
    """One CLI framework: ``-h`` works, the help lists the options with their defaults,
    and the queue's default is the reporter's own."""
    from orchestrator.commands.reporter import DEFAULT_QUEUE
    from reporters.queue import DEFAULT_CAPACITY
    from tests.unit.invoke import invoke

    short, long = invoke("reporter", "-h"), invoke("reporter", "--help")
    assert short.code == long.code == 0 and short.stdout == long.stdout
    assert "Usage: promoflow reporter [OPTIONS]" in short.stdout
    for option in ("--namespace", "--sink", "--notifications", "--kube-auth", "--no-kube-auth"):
        assert option in short.stdout
    assert DEFAULT_QUEUE == DEFAULT_CAPACITY
