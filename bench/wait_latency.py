"""Benchmark: how long after an app turns Synced + Healthy does the deploy gate notice?

The Argo CD simulator is served over real HTTP; the gate's :class:`Waiter` reaches it through
the Argo CD API (``ApiSource`` + ``ArgoCDClient``) in two modes:

  stream   reacts to ``/api/v1/stream/applications`` events (the default)
  polling  ``stream=False``, the default poll interval from ``GateSettings`` (5 s)

Each round adds a fresh app at an old commit, starts the wait for a new one and, once the
waiter is watching (stream open, or first read done), flips the app to Synced + Healthy at
the new commit after a random delay (seeded, within the first poll interval). The delay from
the flip to ``Waiter.run()`` returning is measured; 5 rounds per mode, medians printed.

Targets: stream median < 1 s, and polling/stream >= 10.
"""

from __future__ import annotations

import random
import statistics
import sys
import threading
import time

from rich.console import Console
from rich.progress import Progress

from bench._report import Row, at_least, below, finish
from orchestrator.adapters.argocd import ArgoCDClient
from orchestrator.gates.sources import ApiSource
from orchestrator.gates.wait import Waiter, WaitOptions, WaitResult
from orchestrator.settings import ArgoCDSettings, GateSettings
from orchestrator.simulator.serve import ServerThread
from tests.fakes.argocd import FaultyArgoCD

OLD, SHA = "0a" * 20, "5b" * 20
ROUNDS = 5
SEED = 20240611
TOKEN = "bench-token"
console = Console(highlight=False)


def one_round(
    sim: FaultyArgoCD, server: ServerThread, name: str, stream: bool, flip_after: float
) -> float:
    """Seconds from the flip to the waiter returning."""
    sim.add_app(name, repo_url="https://git.example.com/deploy.git", path=name, revision=OLD)
    poll = GateSettings.model_fields["poll_interval"].default
    options = WaitOptions(sync_timeout=60, health_timeout=60, poll_interval=poll, stream=stream)
    settings = ArgoCDSettings(
        server=server.url.removeprefix("http://"), auth_token=TOKEN, opts="--plaintext"
    )
    returned: list[float] = []
    results: list[WaitResult] = []

    def wait() -> None:
        with ArgoCDClient(settings) as client:
            results.append(Waiter(ApiSource(client), [name], SHA, options).run())
            returned.append(time.perf_counter())

    seen = len(sim.requests)
    waiter = threading.Thread(target=wait, daemon=True)
    waiter.start()
    marker = "/api/v1/stream/applications" if stream else f"/api/v1/applications/{name}"
    while not any(marker in r for r in sim.requests[seen:]):  # watching (or first read done)
        time.sleep(0.005)
    time.sleep(flip_after)
    flipped = time.perf_counter()
    sim.deploy(name, SHA)  # Synced + Healthy at SHA, in one change
    waiter.join(60)
    if not results or not results[0].ok:
        sys.exit(f"{name}: the wait did not end deployed: {results}")
    sim.drop_streams()
    return returned[0] - flipped


def main() -> None:
    rng = random.Random(SEED)
    poll = GateSettings.model_fields["poll_interval"].default
    delays: dict[str, list[float]] = {"stream": [], "polling": []}
    sim = FaultyArgoCD(token=TOKEN)
    with sim.serve() as server, Progress(console=console, transient=True) as progress:
        for mode in delays:
            task = progress.add_task(f"{mode:8}", total=ROUNDS)
            for i in range(ROUNDS):
                flip_after = rng.uniform(0.2, poll - 0.2)
                delays[mode].append(
                    one_round(sim, server, f"{mode}-{i}", mode == "stream", flip_after)
                )
                progress.advance(task)
    stream, polling = (statistics.median(delays[m]) for m in ("stream", "polling"))
    console.print(f"flip to Synced+Healthy -> Waiter returns (median of {ROUNDS}, seed {SEED}):")
    for mode, values in delays.items():
        each = " ".join(f"{v * 1000:.0f}" for v in values)
        console.print(f"  {mode:8} {statistics.median(values) * 1000:8.1f} ms   ({each} ms)")
    finish(
        "wait latency",
        [
            Row("stream median, seconds", stream, f"{stream * 1000:.1f} ms", "< 1", below(1.0)),
            Row(
                "polling/stream",
                polling / stream,
                f"{polling * 1000:.0f} ms / {stream * 1000:.1f} ms (poll {poll:g} s)",
                ">= 10",
                at_least(10),
            ),
        ],
        console,
    )


if __name__ == "__main__":
    main()
