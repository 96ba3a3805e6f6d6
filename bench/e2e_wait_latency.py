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

The image check: in the same run, on an app with a Deployment whose image tag moves every
round (pods on the kwok node), the stream gate with and without ``--image`` alternately,
5 rounds each; the difference of the medians (Healthy -> return) must stay under 50 ms.
Beside it, what one read of the workloads costs (the fallback when Argo CD's summary lacks
the image: one managed-resources request), for information.
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
    from tests.e2e.k8s import Apps, configmap, deployment, short_id
    from tests.e2e.latency import measure, measure_image_check, workloads_read

    apps = Apps.connect(e2e)
    with tempfile.TemporaryDirectory() as work:
        repo = GitopsRepo(e2e, Path(work) / "repo")
        name = f"pfbench-{short_id()}"
        workload = f"pfbench-{short_id()}"
        try:
            first = repo.commit(
                {
                    "app/configmap.yaml": configmap(name, "0"),
                    "images/deployment.yaml": deployment(workload, "0"),
                }
            )
            apps.create(name, repo.url, "app", repo.branch, name)
            apps.create(workload, repo.url, "images", repo.branch, workload)
            apps.wait_deployed(name, first, e2e.timeout)
            apps.wait_deployed(workload, first, e2e.timeout)
            rounds = measure(e2e, name, "app", repo, ROUNDS)
            checked = measure_image_check(e2e, workload, "images", repo, ROUNDS)
            reads = workloads_read(e2e, workload, ROUNDS * 4)
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
    with_image = statistics.median(r.latency for r in checked if r.mode == "stream+image")
    without = statistics.median(r.latency for r in checked if r.mode == "stream")
    more = with_image - without
    read = statistics.median(reads)
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
            Row(
                "image check: Healthy -> gate returns, with - without (medians)",
                more,
                f"{more * 1000:+.1f} ms ({with_image * 1000:.1f} ms with, "
                f"{without * 1000:.1f} ms without; ratio {with_image / without:.2f})"
                if without > 0
                else f"{more * 1000:+.1f} ms",
                "< 50 ms more",
                below(0.050),
            ),
            Row(
                "image check fallback: one read of the workloads (median)",
                read,
                f"{read * 1000:.1f} ms (managed resources, {len(reads)} reads)",
            ),
        ],
        console,
    )


if __name__ == "__main__":
    main()
