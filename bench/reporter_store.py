"""Benchmark: where the reporter keeps what it delivered, measured on the choice the issue
offered: SQLite on the replica's volume, or a ConfigMap per shard on the API server.

Each of CHANGES changes to APPS apps is recorded as the reporter records one: the app's
trimmed state and its events' outbox rows. The ConfigMap store does what any
annotation- or ConfigMap-based store must: a merge patch of the shard's ConfigMap per
change (the app's state under its key), against the real kube-apiserver of the e2e
cluster (``make cluster``). Without a configured cluster, it says so and measures SQLite
only (exit 0): ``make bench`` runs on machines without one.

Printed: changes/s of SQLite one transaction per change, SQLite batched as the reporter
runs it (200 per transaction), and the ConfigMap; the ratio of SQLite to the ConfigMap
(the reason for the choice; target >= 10) and the ConfigMap's size after the run against
the API server's 1 MiB object limit (the other reason).
"""

from __future__ import annotations

import json
import tempfile
import time
from pathlib import Path
from typing import Any

from rich.console import Console

from bench._report import Row, at_least, finish

APPS = 200
CHANGES = 1_000
BATCH = 200
console = Console(highlight=False)


def _state(i: int, n: int) -> dict[str, Any]:
    return {
        "metadata": {
            "name": f"app-{i}",
            "namespace": "argocd",
            "labels": {"promoflow.dev/product": f"p{i % 20}", "promoflow.dev/environment": "dev"},
        },
        "spec": {"source": {"repoURL": "https://git.example.com/gitops.git", "path": f"app-{i}"}},
        "status": {
            "sync": {"status": "Synced", "revision": f"{n:040x}"},
            "health": {"status": "Healthy"},
            "reconciledAt": "2026-11-24T10:00:00Z",
            "summary": {"images": [f"ghcr.io/acme/app-{i}:1.{n}.0"]},
        },
    }


def _changes() -> list[tuple[str, dict[str, Any], list[Any]]]:
    from reporters.state.store import Outgoing

    out = []
    for n in range(CHANGES):
        i = n % APPS
        state = _state(i, n)
        event = {"specversion": "1.0", "id": f"e{n}", "type": "app.deployed", "data": state}
        out.append((f"argocd/app-{i}", state, [Outgoing("http", f"e{n}", event)]))
    return out


def sqlite_rate(batched: bool) -> float:
    from reporters.state.store import Store

    changes = _changes()
    with tempfile.TemporaryDirectory() as tmp:
        store = Store(Path(tmp) / "state.db")
        started = time.perf_counter()
        for start in range(0, len(changes), BATCH if batched else 1):
            chunk = changes[start : start + (BATCH if batched else 1)]
            if batched:
                with store.batch():
                    for key, state, rows in chunk:
                        store.record(key, state, state, rows)
            else:
                for key, state, rows in chunk:
                    store.record(key, state, state, rows)
        seconds = time.perf_counter() - started
        store.close()
    return len(changes) / seconds


def configmap_rate() -> tuple[float, int] | None:
    """Changes/s and the ConfigMap's final size in bytes; None without a cluster."""
    from tests.e2e.settings import NotConfigured, load

    try:
        e2e = load()
    except NotConfigured as exc:
        console.print(f"reporter_store: no cluster configured ({exc}); SQLite only")
        return None
    from kubernetes import client

    from tests.e2e.k8s import api_client, short_id

    core = client.CoreV1Api(api_client(e2e))
    name = f"promoflow-reporter-state-{short_id()}"
    namespace = e2e.argo_namespace
    core.create_namespaced_config_map(namespace, {"metadata": {"name": name}, "data": {}})
    try:
        changes = _changes()
        started = time.perf_counter()
        for key, state, _ in changes:
            body = {"data": {key.replace("/", "."): json.dumps(state, separators=(",", ":"))}}
            core.patch_namespaced_config_map(name, namespace, body)
        seconds = time.perf_counter() - started
        found = core.read_namespaced_config_map(name, namespace)
        size = sum(len(k) + len(v) for k, v in (found.data or {}).items())
    finally:
        core.delete_namespaced_config_map(name, namespace)
    return len(changes) / seconds, size


def main() -> None:
    console.print(f"{CHANGES:,} changes to {APPS} apps, recorded with their outbox rows")
    single = sqlite_rate(batched=False)
    batched = sqlite_rate(batched=True)
    console.print(f"  SQLite, a transaction per change   {single:10,.0f} changes/s")
    console.print(f"  SQLite, {BATCH} per transaction       {batched:10,.0f} changes/s")
    rows = [Row("SQLite batched/single", batched / single, f"{batched:,.0f} / {single:,.0f}/s")]
    found = configmap_rate()
    if found is not None:
        rate, size = found
        console.print(f"  ConfigMap merge patch per change   {rate:10,.0f} changes/s")
        per_app = size / APPS
        console.print(
            f"  ConfigMap after the run: {size / 1024:,.0f} KiB for {APPS} apps "
            f"({per_app:,.0f} B each): 1 MiB holds {1024 * 1024 // per_app:,.0f} apps, "
            "and no outbox"
        )
        rows.append(
            Row("SQLite/ConfigMap", single / rate, f"{single:,.0f} / {rate:,.0f}/s", ">= 10",
                at_least(10))
        )  # fmt: skip
    finish("reporter store", rows, console)


if __name__ == "__main__":
    main()
