"""Benchmark: ``promoflow history`` against the best plain-git recipe for the same answer.

The repository of :mod:`bench.history_repo` (20,000 commits, 200 products x 5
environments, gate notes in ``refs/notes/promoflow``; generated once and kept in a cache
keyed by its parameters and the generator's source) is served by ``git http-backend`` with
partial clones allowed, as GitHub and GitLab serve them. One product's history is asked
for, each round, by

  recipe cold: ``git clone --bare --filter=blob:none``, the notes tip, then one ``git log``
  recipe warm: the same ``git log`` on that clone after a fetch that brings nothing
  promoflow cold: ``promoflow history -p PRODUCT -o json`` with an empty cache directory
  promoflow warm: the same again, its cache kept

(every round runs the recipe pair and the promoflow pair, in a shuffled order; each
figure is the median of the rounds). Both answers must name the same commits: every commit
that touches ``envs/*/{product}/``, the hand commits among them; a mismatch fails the run,
and so does a recipe whose count differs from what the generator wrote.

Targets: promoflow cold at most 1.5x the recipe's cold time; promoflow warm under 0.5 s.

Options (environment): BENCH_COMMITS (20000), BENCH_PRODUCTS (200), BENCH_PRODUCT (shop),
BENCH_ROUNDS (3), BENCH_HISTORY_CACHE (where the generated repository is kept).
"""

from __future__ import annotations

import hashlib
import json
import os
import random
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from rich.console import Console

from bench import _history_config, _history_sim, history_repo
from bench._report import Row, below, finish
from bench.history_repo import NOTES_REF, Summary
from orchestrator.simulator.git_http import GitHttpServer

console = Console(highlight=False)
ROOT = Path(__file__).resolve().parents[1]
COMMITS = int(os.environ.get("BENCH_COMMITS", "20000"))
PRODUCTS = int(os.environ.get("BENCH_PRODUCTS", "200"))
PRODUCT = os.environ.get("BENCH_PRODUCT", "shop")
ROUNDS = int(os.environ.get("BENCH_ROUNDS", "3"))
SEED = 20261120
CACHE = Path(
    os.environ.get("BENCH_HISTORY_CACHE")
    or Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "promoflow-bench-history"
)
ENV = {**os.environ, "GIT_TERMINAL_PROMPT": "0"}
OURS = re.compile(r"\.?[0-9a-f]{16}(-[0-9]+)?")
"""The names of generated repositories' folders in CACHE (a dot while being written)."""


# --- the command under test: its options are not final; change this one function ---------
def history_command(repo_url: str, product: str, cache_dir: Path, config_dir: Path) -> list[str]:
    """``promoflow history`` for ``product``, run as the console script runs it but from this
    checkout's code; ``config_dir`` names ``repo_url`` as the product's repository."""
    del repo_url  # read from the configuration today; pass it here if the command takes it
    return [
        sys.executable, "-m", "orchestrator.entry", "history", "-p", product, "-o", "json",
        "--config", str(config_dir), "--cache", str(cache_dir),
    ]  # fmt: skip


# -------------------------------------------------------------------------------------------


def history_available() -> str | None:
    """None when ``promoflow history`` exists here, else why not (its own words)."""
    result = subprocess.run(
        [sys.executable, "-m", "orchestrator.entry", "history", "--help"],
        cwd=ROOT, capture_output=True, text=True, check=False,
    )  # fmt: skip
    if result.returncode == 0:
        return None
    said = (result.stderr or result.stdout).strip().splitlines()
    return said[-1] if said else f"exit code {result.returncode}"


def repository() -> tuple[Path, Summary]:
    """The served root holding ``gitops.git``: generated once per parameters and generator
    source (a change to the generator regenerates it), older copies removed."""
    sources = b"".join(
        Path(m.__file__ or "").read_bytes() for m in (history_repo, _history_sim, _history_config)
    )
    params = f"{COMMITS}/{PRODUCTS}/{SEED}".encode()
    key = hashlib.sha256(params + sources).hexdigest()[:16]
    root = CACHE / key
    marker = root / "summary.json"
    if marker.exists():
        return root, Summary.from_json(marker.read_text())
    CACHE.mkdir(parents=True, exist_ok=True)
    for old in CACHE.iterdir():  # earlier generations only: the folder may be shared
        if OURS.fullmatch(old.name) and (old / "gitops.git").is_dir():
            shutil.rmtree(old, ignore_errors=True)
    building = CACHE / f".{key}-{os.getpid()}"
    with console.status(f"generating {COMMITS:,} commits, {PRODUCTS} products"):
        summary = history_repo.generate(building / "gitops.git", COMMITS, PRODUCTS, seed=SEED)
        allow_partial_clones(building / "gitops.git")
    building.rename(root)
    summary.path = root / "gitops.git"
    marker.write_text(summary.to_json())
    console.print(f"generated in {summary.seconds:.1f} s, kept in {root}")
    return root, summary


def allow_partial_clones(bare: Path) -> None:
    """As GitHub and GitLab serve repositories (git's defaults refuse filters)."""
    for key in ("uploadpack.allowFilter", "uploadpack.allowAnySHA1InWant"):
        _git("--git-dir", str(bare), "config", key, "true")


def _git(*args: str) -> bytes:
    return subprocess.run(["git", *args], check=True, env=ENV, capture_output=True).stdout


# The recipe. A blob-less clone has every commit and tree (what path-limited `git log`
# walks) and no file contents. The notes are fetched apart, from the URL rather than from
# `origin`: `origin` is the clone's promisor remote, whose filter would leave the notes'
# blobs out, and `git log` would then fetch them one request at a time. Only the notes
# tip is needed (a note is looked up in the tip's tree), and `--depth=1` fetches it
# without the notes' own history, one commit per note: 0.5 s instead of ~2 s at 18,000
# notes. One `git log` with a literal pathspec per environment answers the rest: the
# trailers (`%(trailers:only,unfold)`) and the note (`%N`, only for the commits shown)
# come with each commit. A literal path per environment of the configuration walks as fast
# as `:(glob)envs/*/{product}/**` here. A commit-graph with changed-path Bloom filters is
# left out: writing one (1.7 s) costs more than it saves a walk (0.3 s), and git ignores
# it in a repository made shallow by the notes fetch.
FORMAT = "%H%x00%an <%ae>%x00%aI%x00%cn <%ce>%x00%cI%x00%(trailers:only,unfold)%x00%N%x1e"


def recipe_log(clone: Path, product: str, environments: tuple[str, ...]) -> list[dict[str, Any]]:
    paths = [f"envs/{env}/{product}" for env in environments]
    out = _git("--git-dir", str(clone), "log", f"--notes={NOTES_REF}", f"--format={FORMAT}",
               "main", "--", *paths)  # fmt: skip
    entries = []
    for record in out.decode().split("\x1e"):
        if not record.strip():
            continue
        commit, author, authored, committer, committed, trailers, note = record.strip("\n").split(
            "\x00"
        )
        entries.append(
            {"commit": commit, "author": author, "authored": authored,
             "committer": committer, "committed": committed,
             "trailers": _pairs(trailers), "note": _pairs(note)}
        )  # fmt: skip
    return entries


def _pairs(text: str) -> list[tuple[str, str]]:
    return [
        (key.strip(), value.strip())
        for key, sep, value in (line.partition(":") for line in text.splitlines())
        if sep
    ]


def fetch_notes(clone: Path, url: str) -> None:
    _git("--git-dir", str(clone), "fetch", "--quiet", "--depth=1", url,
         f"+{NOTES_REF}:{NOTES_REF}")  # fmt: skip


LAPS: dict[str, list[float]] = defaultdict(list)
"""Seconds of each part of the recipe, by part, for the table's detail."""


@contextmanager
def lap(name: str) -> Iterator[None]:
    start = time.perf_counter()
    yield
    LAPS[name].append(time.perf_counter() - start)


def recipe_cold(url: str, clone: Path, product: str, envs: tuple[str, ...]) -> list[Any]:
    with lap("clone"):
        _git("clone", "--quiet", "--bare", "--filter=blob:none", url, str(clone))
    with lap("notes"):
        fetch_notes(clone, url)
    with lap("log"):
        return recipe_log(clone, product, envs)


def recipe_warm(url: str, clone: Path, product: str, envs: tuple[str, ...]) -> list[Any]:
    with lap("fetch"):
        _git("--git-dir", str(clone), "fetch", "--quiet", "origin",
             "+refs/heads/main:refs/heads/main")  # fmt: skip
        fetch_notes(clone, url)
    with lap("warm log"):
        return recipe_log(clone, product, envs)


def run_promoflow(argv: list[str]) -> Any:
    result = subprocess.run(argv, cwd=ROOT, env=ENV, capture_output=True, text=True, check=False)
    if result.returncode != 0:
        console.print(f"[bold red]promoflow history failed[/] (exit {result.returncode}):")
        console.print(result.stderr or result.stdout, markup=False)
        sys.exit(1)
    return json.loads(result.stdout)


def commits_in(document: Any) -> set[str]:
    """Every ``commit`` field, wherever the JSON keeps it (per environment or flat)."""
    if isinstance(document, dict):
        found = {document["commit"]} if isinstance(document.get("commit"), str) else set()
        return found.union(*(commits_in(value) for value in document.values()))
    if isinstance(document, list):
        return set().union(*(commits_in(item) for item in document))
    return set()


def compare(recipe: list[dict[str, Any]], command: set[str]) -> tuple[float, str]:
    """Share of commits both name (1.0: the same set), abbreviated hashes matched by prefix;
    the detail says how many of those only git log names are hand commits (no trailers)."""
    width = min((len(c) for c in command), default=40)
    command = {c[:width] for c in command}
    ours = {entry["commit"][:width]: entry for entry in recipe}
    both = ours.keys() & command
    only_ours = [ours[c] for c in ours.keys() - command]
    hand = sum(1 for entry in only_ours if not entry["trailers"])
    union = ours.keys() | command
    share = len(both) / len(union) if union else 1.0
    detail = f"{len(both)} in both, {len(only_ours)} only in git log ({hand} by hand)"
    detail += f", {len(command - ours.keys())} only in promoflow"
    return share, detail


def timed(run: Callable[..., Any], *args: Any) -> tuple[float, Any]:
    start = time.perf_counter()
    answer = run(*args)
    return time.perf_counter() - start, answer


Times = dict[str, list[float]]
"""Seconds by contender, one a round: ``cold``, ``warm`` (the recipe), ``pf-cold``,
``pf-warm``."""


def rounds(
    url: str, summary: Summary, config: Path, scratch: Path, with_command: bool
) -> tuple[Times, dict[str, Any]]:
    """Each round: the recipe cold then warm, promoflow cold then warm, pairs shuffled."""
    times: Times = {"cold": [], "warm": [], "pf-cold": [], "pf-warm": []}
    answers: dict[str, Any] = {"pf-cold": [], "pf-warm": []}
    """The recipe's last answers (checked alike), and every answer of the command."""
    envs, order = summary.environments, random.Random(5)
    for n in range(ROUNDS):
        pairs = ["recipe", "promoflow"] if with_command else ["recipe"]
        for pair in order.sample(pairs, len(pairs)):
            console.print(f"round {n + 1}/{ROUNDS}: {pair}")
            if pair == "recipe":
                clone = scratch / f"clone-{n}"
                seconds, answers["cold"] = timed(recipe_cold, url, clone, PRODUCT, envs)
                times["cold"].append(seconds)
                seconds, answers["warm"] = timed(recipe_warm, url, clone, PRODUCT, envs)
                times["warm"].append(seconds)
                shutil.rmtree(clone)
            else:
                cache = scratch / f"cache-{n}"
                cache.mkdir()
                argv = history_command(url, PRODUCT, cache, config)
                for label in ("pf-cold", "pf-warm"):
                    seconds, answer = timed(run_promoflow, argv)
                    times[label].append(seconds)
                    answers[label].append(answer)
    return times, answers


def checked_recipe(summary: Summary, answers: dict[str, Any]) -> None:
    """The recipe is the reference: its answer must be what the generator wrote."""
    entries = answers["cold"]
    noted = sum(1 for entry in entries if entry["note"])
    expected = (summary.touching[PRODUCT], summary.noted[PRODUCT])
    if (len(entries), noted) != expected or answers["warm"] != entries:
        sys.exit(
            f"the git recipe is wrong: {len(entries)} commits, {noted} notes; the generator "
            f"wrote {expected[0]} and {expected[1]} (warm and cold alike: "
            f"{answers['warm'] == entries})"
        )


def command_rows(times: Times, answers: dict[str, Any]) -> list[Row]:
    """The targets, and the check that every answer of the command names the recipe's
    commits (the worst of its rounds shown)."""
    ratios = [c / r for c, r in zip(times["pf-cold"], times["cold"], strict=True)]
    pf_cold, cold = statistics.median(times["pf-cold"]), statistics.median(times["cold"])
    pf_warm, warm = statistics.median(times["pf-warm"]), statistics.median(times["warm"])
    rows = [
        Row("promoflow cold / recipe cold", statistics.median(ratios),
            f"{pf_cold:.2f} s / {cold:.2f} s, rounds {min(ratios):.2f}-{max(ratios):.2f}",
            "<= 1.5", lambda r: r <= 1.5),
        Row("promoflow warm (s)", pf_warm, f"{pf_warm:.2f} s (recipe {warm:.2f} s)",
            "< 0.5", below(0.5)),
    ]  # fmt: skip
    for label in ("pf-cold", "pf-warm"):
        checks = [compare(answers["cold"], commits_in(answer)) for answer in answers[label]]
        share, detail = min(checks)
        rows.append(Row(f"same commits ({label[3:]})", share, detail, "= 1",
                        lambda s: s == 1.0))  # fmt: skip
    return rows


def part(name: str) -> str:
    return f"{statistics.median(LAPS[name]):.2f} s"


def main() -> None:
    missing = history_available()
    if missing is not None:
        console.print(f"[bold red]promoflow history is not available here[/] ({missing}): "
                      "measuring the git recipe only; the run fails")  # fmt: skip
    root, summary = repository()
    if PRODUCT not in summary.products:
        sys.exit(f"BENCH_PRODUCT={PRODUCT}: no such product (try {summary.products[0]})")
    with tempfile.TemporaryDirectory(prefix="promoflow-bench-") as tmp, GitHttpServer(root) as srv:
        scratch, url = Path(tmp), srv.repo_url("gitops")
        config = scratch / "promoflow"
        files = _history_config.config_files(summary.products, summary.environments, url)
        for name, text in files.items():
            (config / name).parent.mkdir(parents=True, exist_ok=True)
            (config / name).write_text(text)
        before = srv.stats.requests
        times, answers = rounds(url, summary, config, scratch, missing is None)
        requests = (srv.stats.requests - before) / ROUNDS
    checked_recipe(summary, answers)
    cold, warm = statistics.median(times["cold"]), statistics.median(times["warm"])
    console.print(
        f"{summary.commits:,} commits, {summary.notes:,} notes, {len(summary.products)} products;"
        f" {PRODUCT}: {len(answers['cold'])} commits; {ROUNDS} rounds, "
        f"{requests:.0f} HTTP requests to the server a round"
    )
    rows = [
        Row(
            "git recipe cold (s)",
            cold,
            f"clone {part('clone')} + notes tip {part('notes')} + git log {part('log')}",
        ),
        Row(
            "git recipe warm (s)",
            warm,
            f"fetch (nothing new) {part('fetch')} + git log {part('warm log')}",
        ),
    ]
    if missing is None:
        rows += command_rows(times, answers)
    finish("promoflow history", rows, console)
    if missing is not None:
        console.print("[bold red]promoflow history is not available: no figures for it[/]")
        sys.exit(1)


if __name__ == "__main__":
    main()
