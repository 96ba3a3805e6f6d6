"""Benchmark: how fast the reporter takes a watch stream, against the rate at which the
same client can only read and parse it, and whether its memory stays bounded.

A stream server (a third process) serves a Kubernetes list of APPS Applications and a
watch of EVENTS changes to them, as JSON lines over chunked HTTP. Each change is an app
being reconciled (churn), now and then one starting or finishing a sync at a new revision
or changing health. Two readers, each in a process of its own:

  limit     the kubernetes client's Watch reads and parses the stream, and nothing else
            (it decodes each line, encodes the object again and decodes that)
  reporter  the reporter's Watcher (the list read a page at a time, each watch line
            decoded once) -> coalescing queue -> pipeline (transitions, event ids, the
            SQLite outbox) -> a null sink, with the reporter's cycle collection
            (``reporters.collection``)
  catalog   the same with notifications: Argo CD's catalog (its eight triggers in expr,
            its templates in Go templates), every app subscribed to every trigger, the
            whole objects kept compressed and every update's state conditions evaluated

The reporter's time includes its first list (the 10,000 apps, each reported created),
the limit's does not. The server pages its list when asked (``limit``, ``continue``), as
the API server does. ``BENCH_APP_SIZE=real`` makes every app Argo CD's live Application
(13 KB of JSON each), ``BENCH_EVENTS`` sets the number of changes (30,000 keeps a
real-size run to minutes).

Printed: events/s of each and the ratios (target >= 0.5), and the reporter's peak RSS at
EVENTS/10 and at EVENTS (target: within 20% of each other: memory bounded by the apps,
not by the events).
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from rich.console import Console

from bench._report import Row, at_least, below, finish

APPS = 10_000
EVENTS = int(os.environ.get("BENCH_EVENTS", "200000"))
console = Console(highlight=False)


REAL_SIZE = os.environ.get("BENCH_APP_SIZE") == "real"
"""Each app Argo CD's live Application (14 KB: resources, history, conditions) but for its
name and the fields the stream changes; else a few hundred bytes each."""
LIVE = os.path.join(
    os.path.dirname(__file__), "..", "tests", "refdata", "argo-cd", "application-live-example.yaml"
)


def _live() -> dict[str, Any]:
    import yaml

    with open(LIVE) as fh:
        found: dict[str, Any] = yaml.safe_load(fh)
    return found


_BASE = json.dumps(_live()) if REAL_SIZE else ""


def _app(i: int, version: int, revision: str, health: str, op: str) -> dict[str, Any]:
    small = _small(i, version, revision, health, op)
    if not REAL_SIZE:
        return small
    app: dict[str, Any] = json.loads(_BASE)
    app["metadata"].update(small["metadata"])
    app["spec"]["source"] = small["spec"]["source"]
    app["status"].update(small["status"])
    if not op:
        app["status"].pop("operationState", None)
    return app


def _small(i: int, version: int, revision: str, health: str, op: str) -> dict[str, Any]:
    name = f"app-{i}"
    status: dict[str, Any] = {
        "sync": {"status": "Synced", "revision": revision},
        "health": {"status": health},
        "reconciledAt": f"2026-11-24T10:{(version // 60) % 60:02d}:{version % 60:02d}Z",
        "summary": {"images": [f"ghcr.io/acme/{name}:1.{i % 7}.0"]},
    }
    if op:
        status["operationState"] = {
            "phase": op,
            "startedAt": "2026-11-24T09:00:00Z",
            "finishedAt": "2026-11-24T09:00:30Z" if op != "Running" else None,
            "syncResult": {"revision": revision},
        }
    return {
        "apiVersion": "argoproj.io/v1alpha1",
        "kind": "Application",
        "metadata": {
            "name": name,
            "namespace": "argocd",
            "resourceVersion": str(version),
            "labels": {"promoflow.dev/product": f"p{i % 50}"},
            "managedFields": [{"manager": "argocd-application-controller"}],
        },
        "spec": {"source": {"repoURL": "https://git.example.com/gitops.git", "path": name}},
        "status": status,
    }


def stream_lines(events: int) -> Iterator[bytes]:
    """The watch: churn, and every 20th change a sync or a health change."""
    for n in range(events):
        i = n % APPS
        version = APPS + n + 1
        kind = n % 20
        revision = f"{(n // APPS) % 97:040x}"
        health = "Degraded" if kind == 7 else "Healthy"
        op = "Succeeded" if kind == 3 else ""
        obj = _app(i, version, revision, health, op)
        yield json.dumps({"type": "MODIFIED", "object": obj}).encode() + b"\n"


def serve_stream(port: int, events: int) -> None:
    import uvicorn
    from starlette.applications import Starlette
    from starlette.requests import Request
    from starlette.responses import JSONResponse, Response, StreamingResponse
    from starlette.routing import Route

    items = [_app(i, i + 1, f"{0:040x}", "Healthy", "") for i in range(APPS)]

    async def apps(request: Request) -> Response:
        if request.query_params.get("watch") == "true":
            if int(request.query_params.get("resourceVersion") or 0) > APPS:
                return StreamingResponse(iter([b""]), media_type="application/json")
            return StreamingResponse(stream_lines(events), media_type="application/json")
        # pages when asked (``limit``, ``continue``: an offset here), as the API server
        limit = int(request.query_params.get("limit") or 0) or len(items)
        start = int(request.query_params.get("continue") or 0)
        meta = {"resourceVersion": str(APPS)}
        if start + limit < len(items):
            meta["continue"] = str(start + limit)
        return JSONResponse({"metadata": meta, "items": items[start : start + limit]})

    app = Starlette(routes=[Route("/apis/argoproj.io/v1alpha1/applications", apps)])
    uvicorn.run(app, host="127.0.0.1", port=port, log_level="warning", access_log=False)


def _api(port: int) -> Any:
    from kubernetes import client

    configuration = client.Configuration()
    configuration.host = f"http://127.0.0.1:{port}"
    return client.CustomObjectsApi(client.ApiClient(configuration))


def read_limit(port: int, events: int) -> float:
    from kubernetes import watch

    api = _api(port)
    api.list_cluster_custom_object("argoproj.io", "v1alpha1", "applications")
    started = time.perf_counter()
    stream = watch.Watch().stream(  # type: ignore[no-untyped-call]
        api.list_cluster_custom_object, "argoproj.io", "v1alpha1", "applications",
        resource_version=str(APPS), timeout_seconds=600,
    )  # fmt: skip
    for seen, _ in enumerate(stream, start=1):
        if seen == events:
            break
    return time.perf_counter() - started


CATALOG = os.path.join(
    os.path.dirname(__file__),
    "..",
    "tests",
    "refdata",
    "argo-cd",
    "notifications-catalog-install.yaml",
)
SUBSCRIBED = """\
  service.stdout: ''
  context: |
    argocdUrl: https://argocd.example.com
  subscriptions: |
    - recipients: [stdout]
      triggers: [on-created, on-deleted, on-deployed, on-health-degraded, on-sync-failed,
                 on-sync-running, on-sync-status-unknown, on-sync-succeeded]
"""


def _notifier(tmp: str) -> Any:
    from pathlib import Path

    from reporters.notifications.config import load
    from reporters.notifications.notifier import Notifier

    path = Path(tmp) / "cm.yaml"
    path.write_text(Path(CATALOG).read_text().rstrip("\n") + "\n" + SUBSCRIBED)
    return Notifier(load(path), warn=lambda text: None)


def read_reporter(port: int, events: int, state: str, notifier: Any = None) -> float:
    from reporters.collection import fewer_collections
    from reporters.pipeline import Pipeline
    from reporters.queue import CoalescingQueue
    from reporters.runtime import BATCH
    from reporters.state.store import Store
    from reporters.watch.watcher import Watcher

    watcher = Watcher(_api(port), watch_seconds=600)
    queue: CoalescingQueue[Any] = CoalescingQueue()
    pipeline = Pipeline(Store(state), ["null"], notifier=notifier)
    read = [0]
    done = threading.Event()

    def produce() -> None:
        for key, app in watcher.changes(stop=done.is_set):
            queue.put(key, app)
            read[0] += 1
            if read[0] >= APPS + events:  # the first list, then the watch
                done.set()
                return

    started = time.perf_counter()
    with fewer_collections():  # as Reporter.run
        producer = threading.Thread(target=produce)
        producer.start()
        while not (done.is_set() and not len(queue)):
            item = queue.get(timeout=0.1)
            if item is not None:
                pipeline.handle_all([item, *queue.take(BATCH - 1)])
        producer.join()
    return time.perf_counter() - started


def child(mode: str, port: int, events: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        state = os.path.join(tmp, "state.db")
        if mode == "limit":
            seconds = read_limit(port, events)
        elif mode == "catalog":
            seconds = read_reporter(port, events, state, _notifier(tmp))
        else:
            seconds = read_reporter(port, events, state)
    rss_kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print(json.dumps({"seconds": seconds, "rss_mib": rss_kib / 1024}))


@contextmanager
def _server(events: int) -> Iterator[int]:
    import httpx

    from orchestrator.simulator.serve import free_port

    port = free_port()
    proc = subprocess.Popen([sys.executable, "-m", "bench.reporter_throughput", "serve",
                             str(port), str(events)])  # fmt: skip
    url = f"http://127.0.0.1:{port}/apis/argoproj.io/v1alpha1/applications"
    try:
        for _ in range(200):
            try:
                httpx.get(url, params={"limit": 1}, timeout=1)  # up, not the whole list
                break
            except httpx.TransportError:
                time.sleep(0.1)
        yield port
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def _run(mode: str, events: int) -> dict[str, float]:
    with _server(events) as port:
        done = subprocess.run(
            [sys.executable, "-m", "bench.reporter_throughput", mode, str(port), str(events)],
            capture_output=True, text=True, check=True, timeout=1800,
        )  # fmt: skip
    result: dict[str, float] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def main() -> None:
    size = "real-size (Argo CD's live Application)" if REAL_SIZE else "small"
    console.print(f"{APPS:,} {size} apps; the watch sends {EVENTS:,} changes")
    limit = _run("limit", EVENTS)
    reporter = _run("reporter", EVENTS)
    catalog = _run("catalog", EVENTS)
    small = _run("reporter", EVENTS // 10)
    rate_limit = EVENTS / limit["seconds"]
    rate = EVENTS / reporter["seconds"]
    rate_catalog = EVENTS / catalog["seconds"]
    console.print(
        f"  limit (read + parse only) {rate_limit:9,.0f} events/s   ({limit['seconds']:.1f} s)\n"
        f"  reporter (to a null sink) {rate:9,.0f} events/s   ({reporter['seconds']:.1f} s)\n"
        f"  reporter + Argo CD's catalog {rate_catalog:6,.0f} events/s   "
        f"({catalog['seconds']:.1f} s, peak RSS {catalog['rss_mib']:.0f} MiB)\n"
        f"  reporter peak RSS: {small['rss_mib']:.0f} MiB at {EVENTS // 10:,} events, "
        f"{reporter['rss_mib']:.0f} MiB at {EVENTS:,}"
    )
    growth = reporter["rss_mib"] / small["rss_mib"] - 1
    finish(
        "reporter throughput",
        [
            Row(
                "reporter/limit",
                rate / rate_limit,
                f"{rate:,.0f} / {rate_limit:,.0f} events/s",
                ">= 0.5",
                at_least(0.5),
            ),
            Row(
                "reporter with Argo CD's catalog/limit",
                rate_catalog / rate_limit,
                f"{rate_catalog:,.0f} / {rate_limit:,.0f} events/s",
                ">= 0.5",
                at_least(0.5),
            ),
            Row(
                f"RSS growth {EVENTS // 10:,} -> {EVENTS:,} events",
                growth,
                f"{small['rss_mib']:.0f} -> {reporter['rss_mib']:.0f} MiB",
                "< 0.2",
                below(0.2),
            ),
        ],
        console,
    )


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "serve":
        serve_stream(int(sys.argv[2]), int(sys.argv[3]))
    elif len(sys.argv) > 1:
        child(sys.argv[1], int(sys.argv[2]), int(sys.argv[3]))
    else:
        main()
