"""Benchmark: promoflow's reporter against Argo CD's notifications controller, one burst.

On the e2e cluster (``make cluster``), both controllers run side by side on the same
ConfigMap (Argo CD's catalog and the operator manual's example, services pointed at a
receiver on loopback: tests/e2e/notifyparity.py). 20 apps, each in its own repository,
take 10 commits each, round after round: 200 deployments the real Argo CD syncs. Measured:

- each controller's **CPU seconds** over the burst (user + system, from /proc), promoflow's
  reporter being the ``promoflow reporter`` process a team runs;
- each controller's **latency from app change to delivery**: from the moment this
  benchmark's own watch sees an app Succeeded and Healthy at a new revision, its sync
  status compared since (the change that makes ``on-deployed`` true for both controllers:
  Argo CD's skips the update that ends the operation, :mod:`reporters.notifications.refreshed`;
  seen by all three watchers of the same API server at once), to the moment the receiver
  takes the ``app-deployed`` Slack message naming that revision. Median and 95th
  percentile, of the burst's 200 deployments.

Targets: the reporter within 2x the controller's CPU seconds (Python against Go) and
within 1.5x its median latency. Without a configured cluster it says so and measures
nothing (exit 0): ``make bench`` runs on machines without one.
"""

from __future__ import annotations

import statistics
import tempfile
import threading
import time
from contextlib import ExitStack
from pathlib import Path
from typing import Any

from rich.console import Console

from bench._report import Row, below, finish
from reporters.notifications.refreshed import sync_status_refreshed

APPS = 20
ROUNDS = 10
console = Console(highlight=False)


class Seen:
    """When each (app, revision) was first seen Succeeded and Healthy, by a watch of its
    own on the same API server."""

    def __init__(self, e2e: Any, names: set[str]) -> None:
        """``names``: the apps to watch; :attr:`at` holds every revision seen, the burst's
        are picked by :func:`latencies`."""
        self.e2e, self.names = e2e, names
        self.at: dict[tuple[str, str], float] = {}
        self.stopped = threading.Event()
        self.thread = threading.Thread(target=self._watch, daemon=True)

    def _watch(self) -> None:
        from kubernetes import client, watch

        from tests.e2e.k8s import APPS as PLURAL
        from tests.e2e.k8s import GROUP, VERSION, api_client

        api = client.CustomObjectsApi(api_client(self.e2e))
        while not self.stopped.is_set():
            stream = watch.Watch().stream(  # type: ignore[no-untyped-call]
                api.list_namespaced_custom_object,
                GROUP,
                VERSION,
                self.e2e.argocd_namespace,
                PLURAL,
                timeout_seconds=5,
            )
            for event in stream:
                app = event["object"]
                name = app["metadata"]["name"]
                status = app.get("status") or {}
                phase = (status.get("operationState") or {}).get("phase")
                healthy = (status.get("health") or {}).get("status") == "Healthy"
                revision = (status.get("sync") or {}).get("revision", "")
                current = sync_status_refreshed(app)
                if name in self.names and phase == "Succeeded" and healthy and current:
                    self.at.setdefault((name, revision), time.time())


def latencies(receiver: Any, sender: str, seen: Seen, burst: set[str]) -> list[float]:
    out = []
    for (name, revision), at in seen.at.items():
        if revision not in burst:
            continue
        got = [
            m.at
            for m in receiver.of(sender)
            if m.service == "slack" and revision in m.body and name in m.body
        ]
        if got:
            out.append(min(got) - at)
    return out


def p95(values: list[float]) -> float:
    return statistics.quantiles(values, n=20)[-1] if len(values) >= 2 else values[0]


def main() -> None:
    from tests.e2e.settings import NotConfigured, load

    try:
        e2e = load()
    except NotConfigured as exc:
        console.print(f"notifications_controllers: not measured, no cluster configured ({exc})")
        return
    from tests.e2e.gitops import GitopsRepo
    from tests.e2e.k8s import Apps, configmap, deployment, short_id
    from tests.e2e.notifyparity import (
        LABEL,
        ArgoNotifications,
        PromoflowReporter,
        Receiver,
        cpu_seconds,
        parity_configmap,
        refresh,
        secrets_for,
        settle,
    )

    run = short_id()
    data = parity_configmap(run)
    apps = Apps.connect(e2e)
    receiver = Receiver()
    receiver.up()
    with tempfile.TemporaryDirectory() as scratch, ExitStack() as stack:
        stack.callback(receiver.down)
        repos = [GitopsRepo(e2e, Path(scratch) / f"repo-{i}") for i in range(APPS)]
        for repo in repos:
            stack.callback(repo.remove)
        stack.callback(apps.delete_all)
        argocd = stack.enter_context(
            ArgoNotifications(e2e, data, secrets_for("argocd", receiver.url))
        )
        reporter = stack.enter_context(
            PromoflowReporter(
                e2e, data, secrets_for("promoflow", receiver.url), Path(scratch) / "r"
            )
        )
        names = [f"pfnb-{short_id()}" for _ in range(APPS)]
        with console.status("20 apps: first deployment") as status:
            firsts = []
            for name, repo in zip(names, repos, strict=True):
                files = {
                    "configmap.yaml": configmap(name, "0"),
                    "deployment.yaml": deployment(name, "0"),
                }
                firsts.append(repo.commit({f"app/{k}": v for k, v in files.items()}))
                apps.create(name, repo.url, "app", repo.branch, name, labels={LABEL: run})
            for name, first in zip(names, firsts, strict=True):
                apps.wait_deployed(name, first, e2e.timeout)
            settle(receiver)
            seen = Seen(e2e, set(names))
            seen.thread.start()
            stack.callback(seen.stopped.set)
            cpu = {
                "argocd": cpu_seconds(argocd.process),
                "promoflow": cpu_seconds(reporter.process),
            }
            burst: set[str] = set()
            for round_ in range(ROUNDS):
                status.update(f"{APPS} apps: round {round_ + 1}/{ROUNDS}")
                revisions = [
                    repo.commit({"app/configmap.yaml": configmap(name, str(round_ + 1))})
                    for name, repo in zip(names, repos, strict=True)
                ]
                burst.update(revisions)
                for name in names:
                    refresh(e2e, name)
                for name, revision in zip(names, revisions, strict=True):
                    apps.wait_deployed(name, revision, e2e.timeout * 2)
            status.update("until both controllers are quiet")
            settle(receiver, quiet=20, limit=300)
            spent = {
                "argocd": cpu_seconds(argocd.process) - cpu["argocd"],
                "promoflow": cpu_seconds(reporter.process) - cpu["promoflow"],
            }
            argocd.alive()
            reporter.alive()
        found = {s: latencies(receiver, s, seen, burst) for s in ("argocd", "promoflow")}
    deployments = len(burst)
    for sender, values in found.items():
        console.print(
            f"{sender}: {len(values)}/{deployments} deployments delivered, "
            f"latency p50 {statistics.median(values) * 1000:.0f} ms, "
            f"p95 {p95(values) * 1000:.0f} ms, "
            f"CPU {spent[sender]:.1f} s"
        )
    a, p = found["argocd"], found["promoflow"]
    rows = [
        Row(
            "CPU seconds, reporter / argocd-notifications",
            spent["promoflow"] / spent["argocd"],
            f"{spent['promoflow']:.1f} s vs {spent['argocd']:.1f} s, {deployments} deployments",
            "<= 2",
            below(2.0001),
        ),
        Row(
            "median latency, reporter / argocd-notifications",
            statistics.median(p) / statistics.median(a),
            f"{statistics.median(p) * 1000:.0f} ms vs {statistics.median(a) * 1000:.0f} ms",
            "<= 1.5",
            below(1.5001),
        ),
        Row(
            "p95 latency, reporter / argocd-notifications",
            p95(p) / p95(a),
            f"{p95(p) * 1000:.0f} ms vs {p95(a) * 1000:.0f} ms",
        ),
        Row(
            "deployments announced, reporter / argocd-notifications",
            len(p) / max(1, len(a)),
            f"{len(p)} vs {len(a)} of {deployments}",
        ),
    ]
    finish("notifications_controllers: promoflow reporter vs argocd-notifications", rows, console)


if __name__ == "__main__":
    main()
