"""Benchmark: one promotion on a large repository, promoflow vs the git CLI recipes.

A repository of N files (50,000 by default, plus a run at 5,000) and 1,000 commits is
generated with ``git fast-import`` and served by a local ``git http-backend``, twice: with
partial clones allowed (``uploadpack.allowFilter``, as GitHub and GitLab do) and with git's
defaults (no filter, as most self-hosted servers are). Each variant promotes ``shop`` from
dev to staging (copy image.tag), whole process, timed end to end:

  (a) the common script: git clone --depth 1, edit, git commit, git push
  (b) filter server, the best git CLI recipe: shallow, --filter=blob:none, --sparse clone
      of only the two environment directories, edit, commit, push
  (c) default server, the best git CLI recipe it allows: shallow --sparse clone (every
      file is fetched, only the two directories are checked out), edit, commit, push
  promoflow cold: `promoflow step promote` with no cache
  promoflow warm: the same with a cache directory kept between runs (printed vs cold)

Every contender runs once per round (7 rounds; (a), 20-30x slower, in the first 3 only),
in a shuffled order, on a fresh dev version; each figure is the median of the ratios of
the rounds both ran (a slow minute of a shared machine slows one round of all of them
alike), printed with their range. The 5,000-file repository is served beside the
50,000-file one and its cold run taken right beside the large one's, so the growth is
paired by round too.

Targets: filter server: cold <= (b) and >= 10x faster than (a); default server: cold <=
(c) and >= 5x faster than (a); promoflow at 5,000 vs 50,000 files grows by less than 50%.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from contextlib import ExitStack
from dataclasses import dataclass
from functools import partial as partial_call
from pathlib import Path

from rich.console import Console
from rich.progress import Progress

from bench._report import Row, at_least, below, finish
from orchestrator.simulator.git_http import GitHttpServer, init_bare_repo

console = Console(highlight=False)
ROUNDS = 7
SLOW_ROUNDS = 3
"""Rounds that also run (a), the full clone: 20-30x the others, its ratio is far from
its target, and seven of them would take most of the benchmark's time."""
ENV = {
    **os.environ,
    "GIT_AUTHOR_NAME": "bench",
    "GIT_AUTHOR_EMAIL": "bench@example.com",
    "GIT_COMMITTER_NAME": "bench",
    "GIT_COMMITTER_EMAIL": "bench@example.com",
    "GIT_TERMINAL_PROMPT": "0",
}
PROMOFLOW = str(Path(sys.executable).with_name("promoflow"))
VALUES = '# {env} values for shop\nimage:\n  repository: ghcr.io/acme/shop\n  tag: "{tag}"\n'


def _data(text: str) -> bytes:
    raw = text.encode()
    return b"data %d\n" % len(raw) + raw + b"\n"


def generate(bare: Path, files: int, commits: int = 1000) -> None:
    """fast-import stream: one big commit, then small commits touching random files."""
    rng = random.Random(7)
    paths = [f"services/svc{i // 100:04d}/file{i % 100:02d}.yaml" for i in range(files - 2)]
    chunks: list[bytes] = [b"commit refs/heads/main\n", b"committer bench <b@e> 1700000000 +0000\n"]
    chunks.append(_data("initial import"))
    for i, path in enumerate(paths):
        chunks.append(f"M 100644 inline {path}\n".encode())
        chunks.append(_data(f"name: svc-{i}\nreplicas: {i % 5 + 1}\nnote: {'x' * 120}\n"))
    for env in ("dev", "staging"):
        chunks.append(f"M 100644 inline envs/{env}/shop/values.yaml\n".encode())
        chunks.append(_data(VALUES.format(env=env, tag="1.0.0")))
    for n in range(1, commits):
        chunks.append(b"commit refs/heads/main\n")
        chunks.append(f"committer bench <b@e> {1700000000 + n} +0000\n".encode())
        chunks.append(_data(f"change {n}"))
        for path in rng.sample(paths, 3):
            chunks.append(f"M 100644 inline {path}\n".encode())
            chunks.append(_data(f"name: changed-{n}\nreplicas: {n % 7}\n"))
    subprocess.run(
        ["git", "--git-dir", str(bare), "fast-import", "--quiet"],
        input=b"".join(chunks), check=True, env=ENV,
    )  # fmt: skip
    subprocess.run(["git", "--git-dir", str(bare), "gc", "--quiet"], check=True, env=ENV)


def set_dev_version(url: str, tag: str, scratch: Path) -> None:
    """Move dev to a new version (setup, not timed) so every promotion has work to do."""
    work = scratch / f"setup-{tag}"
    _git("clone", "--quiet", "--depth=1", "--filter=blob:none", "--sparse", url, str(work))
    _git("-C", str(work), "sparse-checkout", "set", "envs/dev")
    (work / "envs/dev/shop/values.yaml").write_text(VALUES.format(env="dev", tag=tag))
    _git("-C", str(work), "commit", "--quiet", "-am", f"dev {tag}")
    _git("-C", str(work), "push", "--quiet", "origin", "main")
    shutil.rmtree(work)


def _git(*args: str) -> None:
    subprocess.run(["git", *args], check=True, env=ENV, capture_output=True)


def _edit_staging(work: Path) -> None:
    dev = (work / "envs/dev/shop/values.yaml").read_text()
    tag = dev.split('tag: "')[1].split('"')[0]
    (work / "envs/staging/shop/values.yaml").write_text(VALUES.format(env="staging", tag=tag))


def recipe_a(url: str, scratch: Path) -> None:
    work = scratch / "a"
    _git("clone", "--quiet", "--depth=1", url, str(work))
    _edit_staging(work)
    _git("-C", str(work), "commit", "--quiet", "-am", "promote shop to staging")
    _git("-C", str(work), "push", "--quiet", "origin", "HEAD:main")
    shutil.rmtree(work)


def recipe_b(url: str, scratch: Path, partial: bool = True) -> None:
    work = scratch / "b"
    blobless = ("--filter=blob:none",) if partial else ()
    _git("clone", "--quiet", "--depth=1", *blobless, "--sparse", url, str(work))
    _git("-C", str(work), "sparse-checkout", "set", "envs/dev/shop", "envs/staging/shop")
    _edit_staging(work)
    _git("-C", str(work), "commit", "--quiet", "-am", "promote shop to staging")
    _git("-C", str(work), "push", "--quiet", "origin", "HEAD:main")
    shutil.rmtree(work)


def promoflow(url: str, cache: Path | None) -> None:
    files = json.dumps([{"file": "values.yaml", "paths": ["image.tag"]}])
    args = [
        PROMOFLOW, "step", "promote", "--product", "shop", "--to", "staging", "--from", "dev",
        "--repo", url, "--branch", "main", "--source-path", "envs/dev/shop",
        "--target-path", "envs/staging/shop", "--files", files,
    ]  # fmt: skip
    if cache is not None:
        args += ["--cache-dir", str(cache)]
    result = subprocess.run(args, env=ENV, capture_output=True, text=True, check=False)
    if result.returncode != 0 or '"changed": true' not in result.stdout:
        raise SystemExit(f"promoflow failed: {result.stdout}{result.stderr}")


def timed(label: str, url: str, scratch: Path, run: Callable[[], None]) -> float:
    """One run, on a fresh dev version (so every promotion has something to commit)."""
    set_dev_version(url, f"{label}-{time.time_ns()}", scratch)
    start = time.perf_counter()
    run()
    return time.perf_counter() - start


@dataclass
class Server:
    """One generated repository behind its own ``git http-backend``."""

    kind: str
    files: int
    url: str
    cache: Path


Runs = dict[str, dict[int, float]]
"""Each contender's time by round, by label (``filter-50000/a``, ``default-50000/cold``)."""


def contenders(servers: list[Server], scratch: Path) -> list[tuple[str, Callable[[], None]]]:
    """What each round runs on each server: the recipes only on the large repositories
    (where the targets are set), promoflow cold on every one."""
    runs: list[tuple[str, Callable[[], None]]] = []
    for srv in servers:
        key = f"{srv.kind}-{srv.files}"
        if srv.files == max(s.files for s in servers):
            recipe = "b" if srv.kind == "filter" else "c"
            blobless = srv.kind == "filter"
            runs.append((f"{key}/a", partial_call(recipe_a, srv.url, scratch)))
            runs.append((f"{key}/{recipe}", partial_call(recipe_b, srv.url, scratch, blobless)))
        runs.append((f"{key}/cold", partial_call(promoflow, srv.url, None)))
    return runs


def interleaved(
    servers: list[Server], scratch: Path, runs: list[tuple[str, Callable[[], None]]]
) -> Runs:
    """``ROUNDS`` runs of each ((a) in the first ``SLOW_ROUNDS`` only), taking turns in a
    shuffled order per round, the two sizes' cold runs side by side: a slow minute of a
    shared machine then slows one round of every contender alike, and each figure is the
    median of its rounds' ratios, with their range printed."""
    urls = {f"{s.kind}-{s.files}": s.url for s in servers}
    times: Runs = {label: {} for label, _ in runs}
    order = random.Random(11)
    cold = [(label, run) for label, run in runs if label.startswith("filter-") and "/cold" in label]
    units = [[item] for item in runs if item not in cold] + [cold]
    total = sum(len(runs) - (0 if n < SLOW_ROUNDS else 2) for n in range(ROUNDS))
    with Progress(console=console, transient=True) as progress:
        task = progress.add_task("rounds", total=total)
        for n in range(ROUNDS):
            order.shuffle(units)
            for unit in units:
                for label, run in order.sample(unit, len(unit)):
                    if label.endswith("/a") and n >= SLOW_ROUNDS:
                        continue
                    progress.update(task, description=f"round {n + 1}/{ROUNDS}: {label}")
                    url = urls[label.split("/")[0]]
                    times[label][n] = timed(label, url, scratch, run)
                    progress.advance(task)
    return times


def warm(srv: Server, scratch: Path) -> list[float]:
    """promoflow with its cache kept between runs (the first run fills it)."""
    set_dev_version(srv.url, f"warmup-{time.time_ns()}", scratch)
    promoflow(srv.url, srv.cache)
    return [
        timed("warm", srv.url, scratch, lambda: promoflow(srv.url, srv.cache))
        for _ in range(ROUNDS)
    ]


def serve(files: int, kind: str, scratch: Path, stack: ExitStack) -> Server:
    root = scratch / f"srv-{files}-{kind}"
    root.mkdir()
    bare = init_bare_repo(root / "gitops.git", allow_filter=kind == "filter")
    subprocess.run(
        ["git", "--git-dir", str(bare), "config", "http.receivepack", "true"], check=True
    )
    with console.status(f"generating {files:,} files x 1,000 commits ({kind} server)"):
        generate(bare, files)
    server = stack.enter_context(GitHttpServer(root))
    return Server(kind, files, server.repo_url("gitops"), scratch / f"cache-{files}-{kind}")


def ratio(runs: Runs, top: str, bottom: str) -> tuple[float, str]:
    """The median of the ratios top/bottom of the rounds both ran, and what it was
    measured from."""
    rounds = sorted(runs[top].keys() & runs[bottom].keys())
    ratios = [runs[top][n] / runs[bottom][n] for n in rounds]
    median_top = statistics.median(runs[top][n] for n in rounds)
    median_bottom = statistics.median(runs[bottom][n] for n in rounds)
    detail = (
        f"{median_top:.2f} s / {median_bottom:.2f} s, {len(rounds)} rounds "
        f"{min(ratios):.2f}-{max(ratios):.2f}"
    )
    return statistics.median(ratios), detail


def main() -> None:
    large = int(os.environ.get("BENCH_FILES", "50000"))
    small = large // 10
    with tempfile.TemporaryDirectory(prefix="promoflow-bench-") as tmp, ExitStack() as stack:
        scratch = Path(tmp)
        servers = [
            serve(large, "filter", scratch, stack),
            serve(small, "filter", scratch, stack),
            serve(large, "default", scratch, stack),
        ]
        runs = interleaved(servers, scratch, contenders(servers, scratch))
        warms = {srv.kind: warm(srv, scratch) for srv in servers if srv.files == large}
    f, d = f"filter-{large}", f"default-{large}"
    console.print(
        f"{large:,} files, 1,000 commits; median of {ROUNDS} rounds ((a): {SLOW_ROUNDS}), "
        "every contender in each round, in a shuffled order:"
    )
    for title, key, recipe in (
        ("filter server", f, "(b) shallow blob-less sparse clone"),
        ("default server", d, "(c) shallow sparse clone"),
    ):
        label = "b" if key == f else "c"
        console.print(f"  {title}:")
        for name, times in (
            ("(a) clone --depth 1 + commit + push", list(runs[f"{key}/a"].values())),
            (recipe, list(runs[f"{key}/{label}"].values())),
            ("promoflow cold", list(runs[f"{key}/cold"].values())),
            ("promoflow warm (cache kept)", warms[key.split("-")[0]]),
        ):
            spread = f"{min(times):.2f}-{max(times):.2f}"
            console.print(f"    {name:<36}  {statistics.median(times):7.2f} s  ({spread})")
    rows = []
    for server, key, recipe, floor in (("filter", f, "b", 10), ("default", d, "c", 5)):
        value, detail = ratio(runs, f"{key}/a", f"{key}/cold")
        rows.append(Row(f"{server}: (a)/cold", value, detail, f">= {floor}", at_least(floor)))
        value, detail = ratio(runs, f"{key}/{recipe}", f"{key}/cold")
        rows.append(Row(f"{server}: ({recipe})/cold", value, detail, ">= 1", at_least(1)))
        cold, hot = (
            statistics.median(runs[f"{key}/cold"].values()),
            statistics.median(warms[server]),
        )
        rows.append(Row(f"{server}: cold/warm", cold / hot, f"{cold:.2f} s / {hot:.2f} s"))
    value, detail = ratio(runs, f"{f}/cold", f"filter-{small}/cold")
    rows.append(Row(f"cold {large:,}/{small:,} files", value, detail, "< 1.5",
                    below(1.5)))  # fmt: skip
    finish("git promote", rows, console)


if __name__ == "__main__":
    main()
