"""Benchmark: a 10-environment promotion run locally, and where its time goes.

A chain of 10 environments (two of them production, with an approval and a soak) is
promoted by the local engine against a real git server and the Argo CD simulator, exactly
as ``promoflow promote --local`` runs it. The chain is serial, so the run's time splits
cleanly into:

- promoflow itself: the engine's scheduling (the gaps between nodes) plus the start-up of
  every ``promoflow step`` process: the interpreter and the imports of that step's code
  path, measured on their own for each step kind;
- git and waiting: the rest (pushing commits, Argo CD syncing, the soak).

The run is made twice: with the simulator as fast as the demo's (each stage of a
deployment 0.3 s: a whole sync in under a second, which no real Argo CD does) and with
modest real-world timings (2 s per stage: a sync and rollout in about 5 s). Target:
promoflow itself below 20% of the total. The start-up of ``promoflow step`` is printed
beside a bare ``python -c pass``, since every pod on a cluster pays it too.
"""

from __future__ import annotations

import io
import os
import secrets
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from rich.console import Console

sys.path.insert(0, str(Path(__file__).resolve().parent))
from validate import write_config

from bench._report import Row, below, finish
from orchestrator.compiler import PromotionRequest
from orchestrator.demo.seed import commit_files, product_files
from orchestrator.engine.model import Phase
from orchestrator.graph.plan import plan_product
from orchestrator.loading import load_config
from orchestrator.local.localize import localize
from orchestrator.local.session import LocalOptions, run_local
from orchestrator.simulator.git_http import GitHttpServer, init_bare_repo

PROMOFLOW = Path(sys.executable).parent / "promoflow"
ENVIRONMENTS = 10


def wall(argv: list[str], repeats: int = 7) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        subprocess.run(argv, capture_output=True, check=True)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


STEP_IMPORTS = {
    "promote": "orchestrator.steps.promote, orchestrator.steps.request, orchestrator.adapters.git",
    "wait-argocd": "orchestrator.gates.wait, orchestrator.gates.sources, orchestrator.settings",
    "notify": "orchestrator.steps.notify, orchestrator.settings",
}


def startup(kind: str) -> float:
    """Interpreter + the modules ``promoflow step KIND`` loads before it does any work."""
    code = (
        "import sys; sys.modules['httpx._main'] = None; "
        f"import orchestrator.entry, orchestrator.commands.step, {STEP_IMPORTS[kind]}"
    )
    return wall([sys.executable, "-c", code])


def run(delay: float, err: Console) -> tuple[float, dict[str, tuple[int, float]], float]:
    """One promotion; returns total seconds, busy seconds per step kind and the gaps."""
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        (root / "config").mkdir()
        write_config(root / "config", ENVIRONMENTS, "chain")
        config, problems = load_config(root / "config")
        if problems:
            sys.exit(f"generated config is invalid: {problems[0]}")
        bare = init_bare_repo(root / "srv" / "gitops.git")
        token = secrets.token_urlsafe(16)
        with GitHttpServer(root / "srv", username="bench", password=token) as git:
            url = git.repo_url("gitops")
            local = localize(config, url).config
            plan = plan_product(local, "shop")
            seed = commit_files(bare, product_files(plan, "1.0.0"), "seed", "main")
            options = LocalOptions(
                auto_approve=True,
                soak_scale=0.5 / 1800,
                runs_dir=root / "runs",
                repos={url: bare},
                extra_env={"GIT_USERNAME": "bench", "GIT_TOKEN": token},
                argocd_delay=delay,
            )
            request = PromotionRequest("shop", "1.1.0", seed, "bench", "b1")
            err.print(f"promoting through {ENVIRONMENTS} environments, Argo CD stages {delay} s")
            record, _ = run_local(local, plan, request, options, Console(file=io.StringIO()))
    if record.phase is not Phase.SUCCEEDED:
        sys.exit(f"the run failed: {record.message}")
    nodes = [*record.nodes.values(), *record.exit_nodes.values()]
    kinds: dict[str, tuple[int, float]] = {}
    for node in nodes:
        kind = node.template_name
        count, busy = kinds.get(kind, (0, 0.0))
        kinds[kind] = (count + len(node.attempts), busy + (node.duration or 0.0))
    total = record.duration or 0.0
    gaps = max(total - sum(n.duration or 0.0 for n in nodes), 0.0)
    return total, kinds, gaps


def main() -> None:
    err = Console(stderr=True)
    # the run is measured against the Argo CD simulator: an ARGOCD_SERVER in the caller's
    # environment (the e2e cluster's, say) would send the local run to a real Argo CD
    # that has none of the bench's applications
    for name in [n for n in os.environ if n.startswith("ARGOCD_")]:
        del os.environ[name]
    python = wall([sys.executable, "-c", "pass"])
    costs = {kind: startup(kind) for kind in STEP_IMPORTS}
    for kind, cost in costs.items():
        print(
            f"start-up of promoflow step {kind}: {cost * 1000:.0f} ms "
            f"(python -c pass {python * 1000:.0f} ms, ratio {cost / python:.1f})"
        )
    worst = 0.0
    for label, delay in (("demo-fast simulator", 0.3), ("real-world timings", 2.0)):
        total, kinds, gaps = run(delay, err)
        processes = sum(count for kind, (count, _) in kinds.items() if kind in costs)
        starting = sum(count * costs[kind] for kind, (count, _) in kinds.items() if kind in costs)
        own = gaps + starting
        share = own / total
        worst = share if delay > 1 else worst
        print(f"{label}: {total:.2f} s, {processes} step processes")
        print(f"  engine scheduling {gaps:.2f} s + step start-up {starting:.2f} s = {own:.2f} s")
        print(f"  git, Argo CD and soak {total - own:.2f} s")
        print(f"  promoflow share {share:.1%}")
    rows = [
        Row(
            f"step {kind} start-up / python -c pass",
            cost / python,
            f"{cost * 1000:.0f} ms / {python * 1000:.0f} ms",
        )
        for kind, cost in costs.items()
    ]
    rows.append(
        Row(
            "promoflow share, real-world timings",
            worst,
            "engine scheduling + step start-up, of the run",
            "< 0.20",
            below(0.20),
        )
    )
    finish("local run", rows)


if __name__ == "__main__":
    main()
