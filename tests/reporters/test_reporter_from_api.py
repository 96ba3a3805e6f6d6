"""``promoflow reporter --notifications-from argocd/argocd-notifications-cm --secrets-from
argocd/argocd-notifications-secret`` as a team running Argo CD notifications runs it:
against a fake Kubernetes API over real HTTP through a kubeconfig, the configuration is
read from the objects themselves, reloaded when they change, a broken change refused
while the last good one keeps sending, and no secret's value is ever printed."""

from __future__ import annotations

import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import yaml
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from orchestrator.simulator.argocd import ArgoCDSimulator
from orchestrator.simulator.serve import ServerThread
from tests.fakes.kube import FakeKubeAPI
from tests.fakes.kube_objects import FakeKubeObjects
from tests.unit.invoke import clean_env

REPORTER = [sys.executable, "-m", "orchestrator.cli", "reporter"]
REPO = "https://git.example.com/acme/gitops.git"
CM, SECRET = ("argocd", "argocd-notifications-cm"), ("argocd", "argocd-notifications-secret")
FROM = ["--notifications-from", "argocd/argocd-notifications-cm",
        "--secrets-from", "argocd/argocd-notifications-secret"]  # fmt: skip
TOKEN, ROTATED = "t0ken-never-logged", "r0tated-never-logged"


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


def _configmap(url: str, version: str) -> dict[str, str]:
    rev = "{{.app.status.sync.revision}}"
    return {
        "service.webhook.deploys": (
            f"url: {url}\nheaders:\n- name: Authorization\n  value: Bearer $receiver-token\n"
        ),
        "template.app-deployed": (
            f"message: deployed\nwebhook:\n  deploys:\n    method: POST\n    path: /deployed\n"
            f"    body: '{version} {rev}'\n"
        ),
        "subscriptions": "- recipients: [deploys]\n  triggers: [on-deployed]\n",
    }


def _waits(check: Callable[[], bool], what: str, said: list[str]) -> None:
    deadline = time.monotonic() + 30
    while not check():
        assert time.monotonic() < deadline, (what, said)
        time.sleep(0.05)


def test_the_reporter_follows_argocds_own_configmap_and_secret(tmp_path: Path) -> None:
    got: list[tuple[str, str]] = []

    async def take(request: Request) -> JSONResponse:
        got.append((request.headers["authorization"], (await request.body()).decode()))
        return JSONResponse({})

    receiver = Starlette(routes=[Route("/hooks/deployed", take, methods=["POST"])])
    sim = ArgoCDSimulator()
    sim.add_app("shop-dev", repo_url=REPO, path="dev")
    objects = FakeKubeObjects(bookmark_interval=0.5)
    kube = FakeKubeAPI(sim, bookmark_interval=0.5, objects=objects)
    said: list[str] = []
    with ServerThread(receiver) as hook, kube.serve() as served:
        url = f"{hook.url}/hooks"
        objects.put("configmaps", *CM, _configmap(url, "one"))
        objects.put("secrets", *SECRET, {"receiver-token": TOKEN})
        env = {**clean_env(), "KUBECONFIG": str(_kubeconfig(tmp_path / "kubeconfig", served.url))}
        command = [*REPORTER, *FROM, "--state", str(tmp_path / "state.db"), "--port", "0"]
        proc = subprocess.Popen(
            command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
        )
        stderr: Any = proc.stderr
        reader = threading.Thread(target=lambda: said.extend(iter(stderr.readline, "")))
        reader.start()

        def deployed(revision: str) -> tuple[str, str]:
            sim.deploy("shop-dev", revision)
            _waits(lambda: any(b.endswith(revision) for _, b in got), revision, said)
            return next((h, b) for h, b in got if b.endswith(revision))

        def logged(text: str, count: int = 1) -> None:
            _waits(lambda: sum(text in line for line in said) >= count, text, said)

        try:
            logged("reporting all namespaces")
            assert deployed("a" * 40) == (f"Bearer {TOKEN}", f"one {'a' * 40}")

            objects.put("configmaps", *CM, _configmap(url, "two"))
            logged("notifications: loaded argocd/argocd-notifications-cm and ")
            assert deployed("b" * 40) == (f"Bearer {TOKEN}", f"two {'b' * 40}")

            broken = {**_configmap(url, "three"), "subscriptions": "- recipients: [deploy]\n"}
            objects.put("configmaps", *CM, broken)
            logged("notifications: refused: ")
            assert deployed("c" * 40) == (f"Bearer {TOKEN}", f"two {'c' * 40}")  # the last good

            objects.put("configmaps", *CM, _configmap(url, "two"))  # fixed
            logged("notifications: loaded", 2)
            objects.put("secrets", *SECRET, {"receiver-token": ROTATED})
            logged("notifications: loaded", 3)
            assert deployed("d" * 40) == (f"Bearer {ROTATED}", f"two {'d' * 40}")
        finally:
            proc.send_signal(signal.SIGTERM)
            proc.wait(timeout=30)
            reader.join(10)
            out = proc.stdout.read() if proc.stdout else ""
            for stream in (proc.stdout, proc.stderr):
                if stream is not None:
                    stream.close()
    assert proc.returncode == 0
    assert (
        "notifications: refused: argocd/argocd-notifications-cm/subscriptions:1:16: error: "
        "unknown service 'deploy' (did you mean 'deploys'?): define it as service.<type> "
        "(webhooks: service.webhook.deploy)\n"
    ) in said
    told = out + "".join(said)
    assert "Traceback" not in told and TOKEN not in told and ROTATED not in told
    kept = (tmp_path / "state.db").read_bytes().decode(errors="replace")
    assert TOKEN not in kept and ROTATED not in kept


def test_a_missing_configmap_stops_the_start_with_the_reason(tmp_path: Path) -> None:
    objects = FakeKubeObjects()
    with FakeKubeAPI(ArgoCDSimulator(), objects=objects).serve() as served:
        env = {**clean_env(), "KUBECONFIG": str(_kubeconfig(tmp_path / "kubeconfig", served.url))}
        run = subprocess.run(
            [*REPORTER, *FROM], env=env, capture_output=True, text=True, timeout=60, check=False
        )
    assert run.returncode == 2
    assert run.stderr.splitlines() == [
        "argocd/argocd-notifications-cm:1:1: error: ConfigMap not found: create it, or point "
        "--notifications-from at the one Argo CD reads"
    ]


def test_no_kubernetes_credentials_stop_the_start_saying_so_once(tmp_path: Path) -> None:
    env = {**clean_env(), "KUBECONFIG": str(tmp_path / "nowhere")}
    run = subprocess.run(
        [*REPORTER, *FROM], env=env, capture_output=True, text=True, timeout=60, check=False
    )
    assert run.returncode == 2
    [line] = run.stderr.splitlines()
    assert line.startswith("error: no Kubernetes credentials: "), line
    assert line.count("no Kubernetes credentials") == 1, line


def test_a_secret_the_reporter_may_not_read_stops_the_start_naming_the_role(
    tmp_path: Path,
) -> None:
    objects = FakeKubeObjects()
    objects.put("configmaps", *CM, _configmap("http://127.0.0.1:1/hooks", "one"))
    objects.put("secrets", *SECRET, {"receiver-token": TOKEN})
    objects.forbidden = {SECRET[1]}
    with FakeKubeAPI(ArgoCDSimulator(), objects=objects).serve() as served:
        env = {**clean_env(), "KUBECONFIG": str(_kubeconfig(tmp_path / "kubeconfig", served.url))}
        run = subprocess.run(
            [*REPORTER, *FROM], env=env, capture_output=True, text=True, timeout=60, check=False
        )
    assert run.returncode == 2
    assert run.stderr.splitlines() == [
        "error: cannot read argocd/argocd-notifications-cm and "
        "argocd/argocd-notifications-secret: the Kubernetes API answered 403 Forbidden (the "
        "reporter needs get, list and watch on them: the chart's fromArgoCD Role)"
    ]


def test_a_file_and_an_object_for_one_configuration_is_a_usage_error(tmp_path: Path) -> None:
    both = subprocess.run(
        [*REPORTER, *FROM, "--notifications", str(tmp_path / "cm.yaml")],
        env=clean_env(), capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    mixed = subprocess.run(
        [*REPORTER, "--notifications", str(tmp_path / "cm.yaml"), "--secrets-from", "a/b"],
        env=clean_env(), capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    assert both.returncode == mixed.returncode == 2
    assert both.stderr.splitlines()[-1] == (
        "error: Invalid value for --notifications-from: give --notifications (a file) or "
        "--notifications-from (NAMESPACE/NAME), not both"
    )
    assert mixed.stderr.splitlines()[-1] == (
        "error: Invalid value for --secrets-from: goes with --notifications-from; with "
        "--notifications, give --secrets"
    )


def test_apps_subscribed_on_their_appproject_are_sent_as_argo_cd_sends_them(
    tmp_path: Path,
) -> None:
    """No subscription in the ConfigMap nor on the app: the app's AppProject (``default``,
    in the app's namespace) subscribes it, read before the first app, then followed."""
    got: list[str] = []

    async def take(request: Request) -> JSONResponse:
        got.append((await request.body()).decode())
        return JSONResponse({})

    receiver = Starlette(routes=[Route("/hooks/deployed", take, methods=["POST"])])
    sim = ArgoCDSimulator()
    sim.add_app("shop-dev", repo_url=REPO, path="dev")
    objects = FakeKubeObjects(bookmark_interval=0.5)
    kube = FakeKubeAPI(sim, bookmark_interval=0.5, objects=objects)
    said: list[str] = []
    legacy = {"on-deployed.recipients.argocd-notifications.argoproj.io": "deploys"}
    with ServerThread(receiver) as hook, kube.serve() as served:
        data = _configmap(f"{hook.url}/hooks", "one")
        del data["subscriptions"]
        objects.put("configmaps", *CM, data)
        objects.put("secrets", *SECRET, {"receiver-token": TOKEN})
        objects.put("appprojects", "argocd", "default", {}, legacy)
        env = {**clean_env(), "KUBECONFIG": str(_kubeconfig(tmp_path / "kubeconfig", served.url))}
        command = [*REPORTER, *FROM, "--state", str(tmp_path / "state.db"), "--port", "0"]
        proc = subprocess.Popen(
            command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True
        )
        stderr: Any = proc.stderr
        reader = threading.Thread(target=lambda: said.extend(iter(stderr.readline, "")))
        reader.start()
        try:
            _waits(lambda: any("reporting all namespaces" in line for line in said), "start", said)
            # the app as first listed is deployed already (no revision yet): sent at once,
            # the project having been read before the first app; waited for, as the log
            # line may come before the list is read
            _waits(lambda: "one <no value>" in got, "first list", said)
            sim.deploy("shop-dev", "a" * 40)
            _waits(lambda: f"one {'a' * 40}" in got, "legacy", said)
            modern = {"notifications.argoproj.io/subscribe.on-deployed.deploys": ""}
            objects.put("appprojects", "argocd", "default", {}, modern)
            time.sleep(1)  # the watch reads it; the next update of the app applies it
            sim.deploy("shop-dev", "b" * 40)
            _waits(lambda: f"one {'b' * 40}" in got, "modern", said)
        finally:
            proc.send_signal(signal.SIGTERM)
            proc.wait(timeout=30)
            reader.join(10)
            if proc.stderr is not None:
                proc.stderr.close()
    assert proc.returncode == 0
    assert got == ["one <no value>", f"one {'a' * 40}", f"one {'b' * 40}"]
    assert not [line for line in said if "appprojects" in line or "Traceback" in line]
