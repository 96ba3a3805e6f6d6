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
from pathlib import Path

from rich.console import Console

from bench._report import Row, at_least, below, finish
from orchestrator.simulator.git_http import GitHttpServer, init_bare_repo

console = Console(highlight=False)
ROUNDS = 5
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


def interleaved(
    url: str, scratch: Path, runs: list[tuple[str, Callable[[], None]]], rounds: int
) -> dict[str, float]:
    """Median of ``rounds`` runs of each, taking turns: a slow minute of a shared machine
    then slows every contender alike instead of whichever ran in it."""
    times: dict[str, list[float]] = {label: [] for label, _ in runs}
    for _ in range(rounds):
        for label, run in runs:
            times[label].append(timed(label, url, scratch, run))
    return {label: statistics.median(values) for label, values in times.items()}


def measure(files: int, scratch: Path, with_a: bool, partial: bool) -> dict[str, float]:
    kind = "filter" if partial else "default"
    root = scratch / f"srv-{files}-{kind}"
    root.mkdir()
    bare = init_bare_repo(root / "gitops.git", allow_filter=partial)
    subprocess.run(
        ["git", "--git-dir", str(bare), "config", "http.receivepack", "true"], check=True
    )
    with console.status(f"generating {files:,} files x 1,000 commits"):
        generate(bare, files)
    results: dict[str, float] = {}
    with GitHttpServer(root) as server:
        url = server.repo_url("gitops")
        cache = scratch / f"cache-{files}-{kind}"
        if with_a:
            with console.status(f"{kind} server, {files:,} files: timing (a)"):
                results["a"] = timed("a", url, scratch, lambda: recipe_a(url, scratch))
        with console.status(f"{kind} server, {files:,} files: timing the CLI recipe and cold"):
            results |= interleaved(
                url,
                scratch,
                [
                    ("b" if partial else "c", lambda: recipe_b(url, scratch, partial)),
                    ("cold", lambda: promoflow(url, None)),
                ],
                ROUNDS,
            )
        set_dev_version(url, f"warmup-{time.time_ns()}", scratch)
        promoflow(url, cache)  # fills the cache, as the first run on a workflow volume would
        with console.status(f"{kind} server, {files:,} files: timing warm"):
            results |= interleaved(url, scratch, [("warm", lambda: promoflow(url, cache))], ROUNDS)
    return results


def main() -> None:
    large = int(os.environ.get("BENCH_FILES", "50000"))
    small = large // 10
    with tempfile.TemporaryDirectory(prefix="promoflow-bench-") as tmp:
        scratch = Path(tmp)
        big = measure(large, scratch, with_a=True, partial=True)
        little = measure(small, scratch, with_a=False, partial=True)
        plain = measure(large, scratch, with_a=True, partial=False)
    console.print(f"{large:,} files, 1,000 commits (median of {ROUNDS}, taking turns; (a) once):")
    for title, r, recipe in (
        ("filter server", big, "(b) shallow blob-less sparse clone"),
        ("default server", plain, "(c) shallow sparse clone"),
    ):
        console.print(f"  {title}:")
        console.print(f"    (a) clone --depth 1 + commit + push   {r['a']:7.2f} s")
        console.print(f"    {recipe:<36}  {r.get('b', r.get('c', 0.0)):7.2f} s")
        console.print(f"    promoflow cold                         {r['cold']:7.2f} s")
        console.print(f"    promoflow warm (cache kept)            {r['warm']:7.2f} s")
    b, c = big["b"], plain["c"]
    growth = big["cold"] / little["cold"]
    finish(
        "git promote",
        [
            Row("filter: (a)/cold", big["a"] / big["cold"],
                f"{big['a']:.2f} s / {big['cold']:.2f} s", ">= 10", at_least(10)),
            Row("filter: (b)/cold", b / big["cold"],
                f"{b:.2f} s / {big['cold']:.2f} s", ">= 1", at_least(1)),
            Row("filter: cold/warm", big["cold"] / big["warm"],
                f"{big['cold']:.2f} s / {big['warm']:.2f} s"),
            Row("default: (a)/cold", plain["a"] / plain["cold"],
                f"{plain['a']:.2f} s / {plain['cold']:.2f} s", ">= 5", at_least(5)),
            Row("default: (c)/cold", c / plain["cold"],
                f"{c:.2f} s / {plain['cold']:.2f} s", ">= 1", at_least(1)),
            Row("default: cold/warm", plain["cold"] / plain["warm"],
                f"{plain['cold']:.2f} s / {plain['warm']:.2f} s"),
            Row("cold 50k/5k files", growth,
                f"{big['cold']:.2f} s / {little['cold']:.2f} s", "< 1.5", below(1.5)),
        ],
        console,
    )  # fmt: skip


if __name__ == "__main__":
    main()
