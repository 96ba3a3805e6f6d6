"""Benchmark: the deploy gate on a real Argo CD: stream vs polling (tests/e2e/latency.py).

bench/wait_latency.py measures the gate against the simulator; this one against the real
Argo CD of the e2e cluster (``make cluster``, or any cluster configured as in
tests/e2e/README.md): an automated app in a fresh repository, a commit pushed per round,
the gate (``Waiter`` over the Argo CD API) started at once. The latency is the time from
Argo CD reporting the app Synced at the commit and Healthy (seen on a Kubernetes watch of
the Application, judged by the gate's own ``assess``) to the gate returning; 5 rounds per
mode, medians printed. Modes: ``stream`` (the event stream, the default) and ``polling``
(``PROMOFLOW_STREAM=false``: ``GateSettings``' default 5 s interval).

Targets: stream median < 1 s, and polling/stream >= 10. Without a configured cluster it
says so and measures nothing (exit 0): ``make bench`` runs on machines without one.
"""

from __future__ import annotations

import statistics
import tempfile
from pathlib import Path

from rich.console import Console

from bench._report import Row, at_least, below, finish

ROUNDS = 5
console = Console(highlight=False)


def main() -> None:
    from tests.e2e.settings import NotConfigured, load

    try:
        e2e = load()
    except NotConfigured as exc:
        console.print(f"e2e_wait_latency: not measured, no cluster configured ({exc})")
        return
    from tests.e2e.gitops import GitopsRepo
    from tests.e2e.k8s import Apps, configmap, short_id
    from tests.e2e.latency import measure

    apps = Apps.connect(e2e)
    with tempfile.TemporaryDirectory() as work:
        repo = GitopsRepo(e2e, Path(work) / "repo")
        name = f"pfbench-{short_id()}"
        try:
            first = repo.commit({"app/configmap.yaml": configmap(name, "0")})
            apps.create(name, repo.url, "app", repo.branch, name)
            apps.wait_deployed(name, first, e2e.timeout)
            rounds = measure(e2e, name, "app", repo, ROUNDS)
        finally:
            apps.delete_all()
            repo.remove()
    stream = statistics.median(r.latency for r in rounds if r.mode == "stream")
    polling = statistics.median(r.latency for r in rounds if r.mode == "polling")
    totals = {
        mode: statistics.median(r.total for r in rounds if r.mode == mode)
        for mode in ("stream", "polling")
    }
    ratio = polling / stream if stream > 0 else float("inf")
    finish(
        f"deploy gate on a real Argo CD ({e2e.argocd_server}), {ROUNDS} rounds per mode",
        [
            Row(
                "stream: Healthy -> gate returns (median)",
                stream,
                f"{stream * 1000:.1f} ms (push -> return {totals['stream']:.2f} s)",
                "< 1 s",
                below(1.0),
            ),
            Row(
                "polling (5 s): Healthy -> gate returns (median)",
                polling,
                f"{polling:.2f} s (push -> return {totals['polling']:.2f} s)",
            ),
            Row(
                "polling / stream",
                ratio,
                f"{polling:.2f} s / {stream * 1000:.1f} ms",
                ">= 10",
                at_least(10),
            ),
        ],
        console,
    )


if __name__ == "__main__":
    main()
