"""Benchmark: a 10-environment promotion run locally, and where its time goes.

A chain of 10 environments (two of them production, with an approval and a soak) is
promoted by the local engine against a real git server and the Argo CD simulator, exactly
as ``promoflow promote --local`` runs it. The chain is serial, so the run's time splits
cleanly into:

- promoflow itself: the engine's scheduling (the gaps between nodes) plus the start-up of
  every ``promoflow step`` process (measured on its own, ``promoflow step promote --help``);
- git and waiting: the rest (pushing commits, Argo CD syncing, the soak).

Target: promoflow itself below 20% of the total. The start-up of ``promoflow step`` is
printed beside a bare ``python -c pass`` (the baseline no Python step can beat), since it
is paid by every pod on a cluster too.
"""

from __future__ import annotations

import io
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

from orchestrator.compiler import PromotionRequest
from orchestrator.compiler.plan import plan_product
from orchestrator.demo.seed import commit_files, product_files
from orchestrator.engine.model import Phase
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


def main() -> None:
    err = Console(stderr=True)
    python = wall([sys.executable, "-c", "pass"])
    startup = wall([str(PROMOFLOW), "step", "promote", "--help"])
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
            )
            request = PromotionRequest("shop", "1.1.0", seed, "bench", "b1")
            err.print(f"promoting shop through a chain of {ENVIRONMENTS} environments")
            quiet = Console(file=io.StringIO())
            record, _ = run_local(local, plan, request, options, quiet)
    if record.phase is not Phase.SUCCEEDED:
        sys.exit(f"the run failed: {record.message}")
    total = record.duration or 0.0
    nodes = list(record.nodes.values())
    busy = sum(n.duration or 0.0 for n in nodes)
    containers = [n for n in nodes if n.kind == "container"]
    attempts = sum(len(n.attempts) for n in containers) + len(record.exit_nodes)
    gaps = max(total - busy - sum(n.duration or 0.0 for n in record.exit_nodes.values()), 0.0)
    own = gaps + attempts * startup
    rest = total - own
    print(f"run: {total:.2f} s for {len(nodes)} nodes ({attempts} step processes)")
    print(f"  engine scheduling (gaps between nodes): {gaps:.2f} s")
    print(f"  step start-up: {attempts} x {startup * 1000:.0f} ms = {attempts * startup:.2f} s")
    print(f"  git, Argo CD sync and soak: {rest:.2f} s")
    print(f"promoflow share: {own / total:.1%} (target < 20%)")
    print(
        f"step start-up: promoflow step {startup * 1000:.0f} ms vs python -c pass "
        f"{python * 1000:.0f} ms (ratio {startup / python:.1f})"
    )


if __name__ == "__main__":
    main()
