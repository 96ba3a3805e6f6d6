"""Argo CD's notifications controller and promoflow's reporter, side by side.

Both read the same ``argocd-notifications-cm``: Argo CD's catalog and the operator manual's
example (tests/refdata/argo-cd), with services pointed at :class:`Receiver` on loopback.
Only the Secret differs: each controller's ``$slack-token`` and ``$teams-url`` name it, so
the receiver tells who sent what, and the two sets of messages can be compared.

- :func:`parity_configmap`: that ConfigMap's data. The catalog wins where the manual's
  example defines the same key (``trigger.on-deployed``, ``trigger.on-sync-status-unknown``);
  the manual's services (gmail, a placeholder Opsgenie key) and its global subscriptions
  (every app's ``on-sync-status-unknown`` to ``slack:test2``) are replaced by the receiver's
  services and one subscription limited to the test's apps by label.
- :class:`ArgoNotifications`: ``argocd-notifications``, the entry of the Argo CD binary the
  cluster builds, run as Argo CD's Procfile runs it, reading the ConfigMap and Secret from
  the Argo CD namespace.
- :class:`PromoflowReporter`: ``promoflow reporter --notifications FILE --secrets FILE``,
  the CLI a team runs, on the same ConfigMap written to a file.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl

import yaml
from kubernetes import client
from kubernetes.client.exceptions import ApiException
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, Response
from starlette.routing import Route

from orchestrator.simulator.serve import ServerThread, free_port
from tests.e2e.k8s import APPS, GROUP, VERSION, api_client
from tests.e2e.settings import E2ESettings

REFDATA = Path(__file__).resolve().parents[1] / "refdata" / "argo-cd"
LABEL = "promoflow.dev/parity"
SENDERS = ("argocd", "promoflow")
TRIGGERS = (
    "on-created",
    "on-deleted",
    "on-deployed",
    "on-health-degraded",
    "on-sync-failed",
    "on-sync-running",
    "on-sync-status-unknown",
    "on-sync-succeeded",
)
SLACK_CHANNEL = "parity"
TEAMS_RECIPIENT = "parity"
PROJECT_CHANNEL, LEGACY_CHANNEL = "parity-project", "parity-legacy"
"""Slack channels subscribed on an AppProject, by annotation and by legacy annotation."""


def _data(name: str) -> dict[str, str]:
    text = (REFDATA / name).read_text()
    # The manual's Opsgenie example holds a literal "..." under apiKeys: not YAML a
    # ConfigMap can hold (kubectl refuses it too), so that one key is left out.
    text = text.replace("      ...\n", "")
    data: dict[str, str] = yaml.safe_load(text)["data"]
    return data


def parity_configmap(run: str) -> dict[str, str]:
    """The ConfigMap's data for apps labelled ``LABEL=run``."""
    catalog = _data("notifications-catalog-install.yaml")
    manual = _data("notifications-cm-docs-example.yaml")
    data = {k: v for k, v in manual.items() if not k.startswith(("service.", "subscriptions"))}
    data.update(catalog)
    data["service.slack"] = "token: $slack-token\napiURL: $slack-api\nusername: argocd\n"
    data["service.teams"] = f"recipientUrls:\n  {TEAMS_RECIPIENT}: $teams-url\n"
    data["subscriptions"] = yaml.safe_dump(
        [
            {
                "recipients": [f"slack:{SLACK_CHANNEL}", f"teams:{TEAMS_RECIPIENT}"],
                "selector": f"{LABEL}={run}",
                "triggers": list(TRIGGERS),
            }
        ]
    )
    return data


def secrets_for(sender: str, receiver: str) -> dict[str, str]:
    """What ``sender``'s Secret holds: credentials that name it to the receiver."""
    return {
        "slack-token": f"xoxb-{sender}-parity",
        "slack-api": f"{receiver}/slack/api/",
        "teams-url": f"{receiver}/teams/{sender}",
    }


@dataclass(frozen=True)
class Message:
    """One message as the receiver took it, reduced to what a reader sees."""

    sender: str
    service: str
    recipient: str
    body: str
    """JSON of the message's fields, keys sorted: comparable across encodings."""
    at: float


_SLACK_FIELDS = ("text", "attachments", "blocks", "username", "icon_emoji", "icon_url")


def _without_nulls(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _without_nulls(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [_without_nulls(v) for v in value]
    return value


def _slack_fields(raw: dict[str, Any]) -> dict[str, Any]:
    """slack-go posts a form whose attachments and blocks are JSON strings, and writes
    every attachment with ``"blocks": null``; promoflow posts JSON without the null.
    Slack reads both the same: so does the comparison."""
    out: dict[str, Any] = {}
    for key in _SLACK_FIELDS:
        value = raw.get(key)
        if isinstance(value, str) and key in ("attachments", "blocks"):
            value = _without_nulls(json.loads(value)) if value.strip() else None
        if value not in (None, "", []):
            out[key] = value
    return out


@dataclass
class Receiver:
    """Slack's ``chat.postMessage`` and a Teams connector on one port, answering as they
    do (``{"ok": true, ...}``, ``1``); :meth:`down` and :meth:`up` make an outage."""

    port: int = field(default_factory=free_port)
    got: list[Message] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)
    _thread: ServerThread | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def app(self) -> Starlette:
        async def slack(request: Request) -> Response:
            raw = await request.body()
            form = request.headers.get("content-type", "").startswith("application/x-www")
            body = (
                dict(parse_qsl(raw.decode(), keep_blank_values=True)) if form else json.loads(raw)
            )
            token = request.headers.get("authorization", "").removeprefix("Bearer ")
            token = token or str(body.get("token", ""))
            sender = token.removeprefix("xoxb-").removesuffix("-parity")
            if sender not in SENDERS:
                return JSONResponse({"ok": False, "error": "invalid_auth"})
            channel = str(body.get("channel", ""))
            if channel not in (SLACK_CHANNEL, PROJECT_CHANNEL, LEGACY_CHANNEL):
                return JSONResponse({"ok": False, "error": "channel_not_found"})
            self._take(sender, "slack", channel, _slack_fields(body))
            ts = f"{time.time():.6f}"
            return JSONResponse({"ok": True, "channel": "C0PARITY", "ts": ts})

        async def teams(request: Request) -> Response:
            sender = request.path_params["sender"]
            if sender not in SENDERS:
                return PlainTextResponse("Bad Request", 400)
            self._take(sender, "teams", TEAMS_RECIPIENT, json.loads(await request.body()))
            return PlainTextResponse("1")

        return Starlette(
            routes=[
                Route("/slack/api/chat.postMessage", slack, methods=["POST"]),
                Route("/teams/{sender}", teams, methods=["POST"]),
            ]
        )

    def _take(self, sender: str, service: str, recipient: str, fields: Any) -> None:
        body = json.dumps(fields, sort_keys=True)
        with self.lock:
            self.got.append(Message(sender, service, recipient, body, time.time()))

    def up(self) -> None:
        self._thread = ServerThread(self.app(), self.port).start()

    def down(self) -> None:
        if self._thread is not None:
            self._thread.stop()
            self._thread = None

    def of(self, sender: str) -> list[Message]:
        with self.lock:
            return [m for m in self.got if m.sender == sender]

    def counts(self, sender: str) -> Counter[tuple[str, str, str]]:
        return Counter((m.service, m.recipient, m.body) for m in self.of(sender))


class ArgoNotifications:
    """The real controller, its ConfigMap and Secret in the Argo CD namespace."""

    CM, SECRET = "argocd-notifications-cm", "argocd-notifications-secret"

    def __init__(self, e2e: E2ESettings, data: dict[str, str], secrets: dict[str, str]) -> None:
        self.e2e = e2e
        self.core = client.CoreV1Api(api_client(e2e))
        self.data, self.secrets = data, secrets
        self.log = Path(tempfile.mkstemp(prefix="argocd-notifications-", suffix=".log")[1])
        self.process: subprocess.Popen[bytes] | None = None

    def __enter__(self) -> ArgoNotifications:
        from tests.e2e.cluster import argocd
        from tests.e2e.cluster.config import PATHS

        binary = PATHS.bin / "argocd-notifications"
        if not binary.exists():
            raise AssertionError(f"{binary} is missing: `make cluster` links it")
        ns = self.e2e.argocd_namespace
        self._replace(
            self.core.create_namespaced_config_map,
            self.core.replace_namespaced_config_map,
            {"metadata": {"name": self.CM}, "data": self.data},
        )
        self._replace(
            self.core.create_namespaced_secret,
            self.core.replace_namespaced_secret,
            {"metadata": {"name": self.SECRET}, "stringData": self.secrets},
        )
        command = [
            str(binary),
            "--loglevel=info",
            f"--namespace={ns}",
            f"--argocd-repo-server={argocd.REPO_SERVER}",
            "--argocd-repo-server-plaintext",
            f"--metrics-port={free_port()}",
        ]
        env = {**argocd.env("argocd-notifications"), "KUBECONFIG": str(self.e2e.kubeconfig)}
        with self.log.open("wb") as out:
            self.process = subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT, env=env)
        return self

    def _replace(self, create: Any, replace: Any, body: dict[str, Any]) -> None:
        ns, name = self.e2e.argocd_namespace, body["metadata"]["name"]
        try:
            create(ns, body)
        except ApiException as exc:
            if exc.status != 409:
                raise
            replace(name, ns, body)

    def __exit__(self, *_: object) -> None:
        stop(self.process)
        ns = self.e2e.argocd_namespace
        for delete, name in (
            (self.core.delete_namespaced_config_map, self.CM),
            (self.core.delete_namespaced_secret, self.SECRET),
        ):
            try:
                delete(name, ns)
            except ApiException as exc:
                if exc.status != 404:
                    raise

    def alive(self) -> None:
        assert self.process is not None and self.process.poll() is None, self.log.read_text()


class PromoflowReporter:
    """``promoflow reporter`` with the same ConfigMap as a file, its Secret as another."""

    def __init__(
        self, e2e: E2ESettings, data: dict[str, str], secrets: dict[str, str], workdir: Path
    ) -> None:
        self.e2e, self.workdir = e2e, workdir
        workdir.mkdir(parents=True, exist_ok=True)
        self.cm = workdir / "argocd-notifications-cm.yaml"
        self.secret = workdir / "argocd-notifications-secret.yaml"
        manifest = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "cm"}}
        self.cm.write_text(yaml.safe_dump({**manifest, "data": data}, sort_keys=False))
        secret = {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "s"}}
        self.secret.write_text(yaml.safe_dump({**secret, "stringData": secrets}))
        self.log = workdir / "reporter.log"
        self.process: subprocess.Popen[bytes] | None = None

    def __enter__(self) -> PromoflowReporter:
        command = [
            str(Path(sys.executable).parent / "promoflow"),
            "reporter",
            "-n",
            self.e2e.argocd_namespace,
            "--notifications",
            str(self.cm),
            "--secrets",
            str(self.secret),
            "--state",
            str(self.workdir / "state.db"),
            "--port",
            str(free_port()),
        ]
        env = {**os.environ, "KUBECONFIG": str(self.e2e.kubeconfig)}
        with self.log.open("wb") as out:
            self.process = subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT, env=env)
        return self

    def __exit__(self, *_: object) -> None:
        stop(self.process)

    def alive(self) -> None:
        assert self.process is not None and self.process.poll() is None, self.log.read_text()


def stop(process: subprocess.Popen[bytes] | None) -> None:
    if process is None or process.poll() is not None:
        return
    process.terminate()
    try:
        process.wait(20)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait(5)


def cpu_seconds(process: subprocess.Popen[bytes] | None) -> float:
    """User + system CPU of a running process, from /proc (Linux)."""
    assert process is not None
    fields = Path(f"/proc/{process.pid}/stat").read_text().rsplit(")", 1)[1].split()
    ticks = os.sysconf("SC_CLK_TCK")
    return (int(fields[11]) + int(fields[12])) / ticks


KINDS = {
    "created": ("has been created",),
    "deleted": ("has been deleted",),
    "deployed": ("is now running new version", "is up and running"),
    "degraded": ("has degraded",),
    "sync-failed": ("has failed at", "Failed to sync application"),
    "sync-running": ("has started at", "Start syncing application"),
    "sync-succeeded": ("has been successfully synced",),
    "sync-unknown": ("sync is 'Unknown'", "sync status is 'Unknown'"),
}


def kind_of(message: Message) -> str:
    """Which catalog template made the message, from the words only it writes."""
    for kind, words in KINDS.items():
        if any(w in message.body for w in words):
            return kind
    return "other"


def settle(receiver: Receiver, quiet: float = 20, limit: float = 180) -> None:
    """Until neither controller has sent anything for ``quiet`` seconds (counted from the
    call at the earliest: what is on its way has time to arrive)."""
    start = time.time()
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        with receiver.lock:
            last = max((m.at for m in receiver.got), default=start)
        if time.time() - max(last, start) >= quiet:
            return
        time.sleep(1)


def refresh(e2e: E2ESettings, name: str) -> None:
    """Ask Argo CD to look at the repository now rather than at its next resync."""
    api = client.CustomObjectsApi(api_client(e2e))
    patch = {"metadata": {"annotations": {"argocd.argoproj.io/refresh": "normal"}}}
    api.patch_namespaced_custom_object(GROUP, VERSION, e2e.argocd_namespace, APPS, name, patch)
