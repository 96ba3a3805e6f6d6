"""A GitOps repository with years' worth of promotions, for ``promoflow history``.

``generate`` writes a bare repository: ``main`` starts with an import (the configuration in
``promoflow/``, a README, a CI file and every product's ``envs/{env}/{product}/values.yaml``)
and goes on with promotion commits as promoflow writes them (one version file each, the
trailers of ``orchestrator.steps.message`` plus ``Promotion-Product/-Environment/-Version``),
interleaved across products: a version enters the first environment, then the second, then
the others one by one; some stop early, a few fail their gates and are rolled back. About
2% are hand commits by people (no trailers) and some touch unrelated files. The outcome of
each promotion's gates is a note in ``refs/notes/promoflow``, added when the gates finished
(most promotions; runs that never finished have none).

The whole history is one ``git fast-import`` stream, so 20,000 commits take seconds. A
``Promoted-From: ENV@COMMIT`` trailer names the commit that promoted the version into the
source environment; fast-import reports it (``get-mark``) on its ``--cat-blob-fd``, so the
stream never waits for anything but that one line.

``python -m bench.history_repo DIR [--commits N ...]`` writes one; without DIR it times the
generation of 20,000 commits, as a benchmark row (information, no target).
"""

from __future__ import annotations

import argparse
import heapq
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from random import Random
from typing import IO

from bench._history_config import FOLDER, config_files
from bench._history_sim import Simulation, Step, values_text

ENVIRONMENTS = ("dev", "staging", "prod-us", "prod-eu", "prod-ap")
NOTES_REF = "refs/notes/promoflow"
BOT = b"promoflow <promoflow@example.com>"
_GIT_ENV = {
    **os.environ,
    # fast-import deflates every object with a fresh zlib stream; glibc serves those buffers
    # with mmap and returns them at once, and the page faults took half of its time.
    "GLIBC_TUNABLES": "glibc.malloc.mmap_threshold=8388608:glibc.malloc.trim_threshold=67108864",
}


@dataclass
class Summary:
    """What was written, to check a reader's answer against."""

    path: Path
    commits: int = 0
    """On ``main``, the import included."""
    promotions: int = 0
    hand_commits: int = 0
    other_commits: int = 0
    """README and CI changes (and the import)."""
    rollbacks: int = 0
    notes: int = 0
    failed_notes: int = 0
    products: tuple[str, ...] = ()
    environments: tuple[str, ...] = ()
    touching: dict[str, int] = field(default_factory=dict)
    """Product -> commits on ``main`` that touch ``envs/*/{product}/`` (the import too)."""
    noted: dict[str, int] = field(default_factory=dict)
    """Product -> those of its commits that have a note."""
    seconds: float = 0.0

    def to_json(self) -> str:
        return json.dumps({**asdict(self), "path": str(self.path)}, indent=1)

    @classmethod
    def from_json(cls, text: str) -> Summary:
        data = json.loads(text)
        data["path"] = Path(data["path"])
        data["products"], data["environments"] = (
            tuple(data["products"]),
            tuple(data["environments"]),
        )
        return cls(**data)


class _FastImport:
    """One ``git fast-import`` process fed as the history is simulated."""

    def __init__(self, git_dir: Path) -> None:
        read, write = os.pipe()
        self._proc = subprocess.Popen(
            ["git", "--git-dir", str(git_dir), "fast-import", "--quiet", "--done",
             f"--cat-blob-fd={write}"],
            stdin=subprocess.PIPE, pass_fds=(write,), env=_GIT_ENV,
        )  # fmt: skip
        os.close(write)
        assert self._proc.stdin is not None
        self._out: IO[bytes] = self._proc.stdin
        self._answers = os.fdopen(read, "rb")

    def write(self, *chunks: bytes) -> None:
        for chunk in chunks:
            self._out.write(chunk)

    def sha(self, mark: int) -> str:
        self._out.write(b"get-mark :%d\n" % mark)
        self._out.flush()
        answer = self._answers.readline().decode().strip()
        if not answer:
            raise RuntimeError(f"git fast-import stopped before naming mark :{mark}")
        return answer

    def close(self) -> None:
        self._out.write(b"done\n")
        self._out.close()
        self._answers.close()
        if self._proc.wait() != 0:
            raise RuntimeError(f"git fast-import failed with exit code {self._proc.returncode}")


def _data(text: str) -> bytes:
    raw = text.encode()
    return b"data %d\n" % len(raw) + raw + b"\n"


def _stamp(seconds: int) -> bytes:
    return b"%d +0000" % seconds


def _iso(seconds: int) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(seconds))


def promotion_message(step: Step, sources: dict[int, str]) -> str:
    """The commit message of one promotion, trailers in promoflow's order."""
    path = f"envs/{step.environment}/{step.product}/values.yaml"
    lines = [
        f"Promote {step.product} {step.version} to {step.environment}",
        "",
        f"Set image.tag in {path} to {step.version}.",
        "",
    ]
    if step.source_mark is not None:
        lines.append(f"Promoted-From: {step.source_env}@{sources[step.source_mark][:12]}")
    if step.built_from:
        lines.append(f"Built-From: {step.built_from}")
    if step.rollback_from:
        lines.append(f"Rollback: {step.rollback_from} -> {step.version}")
    lines.append(f"Promotion-Run: {step.run}")
    lines.append(f"Requested-By: {step.requested_by}")
    if step.approved_by:
        lines.append(f"Approved-By: {step.approved_by}")
    if step.jira:
        lines.append(f"Jira-Issues: {', '.join(step.jira)}")
    lines += [
        f"Promotion-Product: {step.product}",
        f"Promotion-Environment: {step.environment}",
        f"Promotion-Version: {step.version}",
    ]
    lines += [f"Promotion-Field: {name}={value}" for name, value in step.fields]
    return "\n".join(lines) + "\n"


def note_text(step: Step) -> str:
    """The gates' outcome, as promoflow notes it once they finished."""
    lines = [f"Promotion-Outcome: {'failed' if step.failure else 'verified'}"]
    for gate in step.gates:
        if gate == step.failure_gate:
            lines.append(f"Promotion-Gate: {gate}: failed ({step.failure})")
            break
        lines.append(f"Promotion-Gate: {gate}: passed" + (" (10m)" if gate == "soak" else ""))
    lines.append(f"Recorded-At: {_iso(step.verified_at)}")
    lines.append(f"Promotion-Run: {step.run}")
    return "\n".join(lines) + "\n"


def _import_commit(
    sink: _FastImport, products: Sequence[str], environments: Sequence[str], when: int
) -> None:
    sink.write(
        b"commit refs/heads/main\nmark :1\n",
        b"author Dana Ops <dana@example.com> " + _stamp(when) + b"\n",
        b"committer Dana Ops <dana@example.com> " + _stamp(when) + b"\n",
        _data("Import the GitOps repository\n"),
    )
    files = {
        f"{FOLDER}/{name}": text for name, text in config_files(products, environments).items()
    }
    files["README.md"] = "# gitops\n\nOne folder per environment under envs/.\n"
    files[".gitlab-ci.yml"] = "lint:\n  script: [yamllint envs]\n"
    for env in environments:
        for product in products:
            files[f"envs/{env}/{product}/values.yaml"] = values_text(product, "1.0.0")
    for path, text in files.items():
        sink.write(f"M 100644 inline {path}\n".encode(), _data(text))
    sink.write(b"\n")


def generate(
    path: Path,
    commits: int = 20000,
    products: int = 200,
    environments: Sequence[str] = ENVIRONMENTS,
    seed: int = 20261120,
) -> Summary:
    """Write the bare repository at ``path`` (created; must not exist or be empty)."""
    start = time.perf_counter()
    path = Path(path)
    if commits < 1 or products < 1 or len(environments) < 1:
        raise ValueError(f"{commits} commits, {products} products, {len(environments)} "
                         "environments: at least one of each")  # fmt: skip
    if path.exists() and any(path.iterdir()):
        raise ValueError(f"{path}: not empty; name a new folder for the repository")
    subprocess.run(
        ["git", "init", "--quiet", "--bare", "--initial-branch=main", str(path)], check=True
    )
    sim = Simulation(Random(seed), products, tuple(environments))
    summary = Summary(path, products=sim.products, environments=sim.environments)
    summary.touching = dict.fromkeys(sim.products, 1)
    summary.noted = dict.fromkeys(sim.products, 0)
    sink = _FastImport(path)
    clock = sim.start
    _import_commit(sink, sim.products, sim.environments, clock)
    shas: dict[int, str] = {}
    pending: list[tuple[int, int, Step]] = []  # (verified at, mark, step): notes to add
    for mark in range(2, commits + 1):
        clock = sim.tick(clock)
        while pending and pending[0][0] <= clock:
            _, noted, step = heapq.heappop(pending)
            _add_note(sink, noted, step, summary)
        step = sim.next_step(clock)
        if step.source_mark is not None and step.source_mark not in shas:
            shas[step.source_mark] = sink.sha(step.source_mark)
        if step.kind == "promotion":
            author = BOT
            message = promotion_message(step, shas)
            summary.promotions += 1
            summary.rollbacks += bool(step.rollback_from)
            if step.verified_at:
                heapq.heappush(pending, (step.verified_at, mark, step))
        else:
            author = step.author.encode()
            message = step.message
            if step.kind == "hand":
                summary.hand_commits += 1
            else:
                summary.other_commits += 1
        if step.product:
            summary.touching[step.product] += 1
        sink.write(
            b"commit refs/heads/main\nmark :%d\n" % mark,
            b"author " + author + b" " + _stamp(clock) + b"\n",
            b"committer " + author + b" " + _stamp(clock) + b"\n",
            _data(message),
            f"M 100644 inline {step.path}\n".encode(),
            _data(step.content),
            b"\n",
        )
        sim.committed(step, mark)
    for _, noted, step in sorted(pending):
        _add_note(sink, noted, step, summary)
    sink.close()
    summary.commits = commits
    summary.other_commits += 1  # the import
    subprocess.run(["git", "--git-dir", str(path), "repack", "-adq"], check=True, env=_GIT_ENV)
    summary.seconds = time.perf_counter() - start
    return summary


def _add_note(sink: _FastImport, mark: int, step: Step, summary: Summary) -> None:
    sink.write(
        f"commit {NOTES_REF}\n".encode(),
        b"committer " + BOT + b" " + _stamp(step.verified_at) + b"\n",
        _data("Notes added by 'git notes add'\n"),
        b"N inline :%d\n" % mark,
        _data(note_text(step)),
        b"\n",
    )
    summary.notes += 1
    summary.noted[step.product] += 1
    summary.failed_notes += bool(step.failure)


def _arguments(argv: Sequence[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m bench.history_repo", description=__doc__)
    parser.add_argument("path", nargs="?", type=Path, help="the bare repository to write")
    parser.add_argument("--commits", type=int, default=20000)
    parser.add_argument("--products", type=int, default=200)
    parser.add_argument("--seed", type=int, default=20261120)
    parser.add_argument(
        "--environments", default=",".join(ENVIRONMENTS), help="comma-separated, in flow order"
    )
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> None:
    args = _arguments(sys.argv[1:] if argv is None else argv)
    envs = tuple(args.environments.split(","))
    if args.path is not None:
        try:
            summary = generate(args.path, args.commits, args.products, envs, args.seed)
        except ValueError as exc:
            sys.exit(f"error: {exc}")
        print(
            f"{summary.path}: {summary.commits} commits ({summary.promotions} promotions, "
            f"{summary.rollbacks} rollbacks, {summary.hand_commits} by hand, "
            f"{summary.other_commits} other), {summary.notes} notes "
            f"({summary.failed_notes} failed) in {summary.seconds:.2f} s"
        )
        return
    from bench._report import Row, finish

    with tempfile.TemporaryDirectory(prefix="promoflow-bench-") as tmp:
        summary = generate(Path(tmp) / "gitops.git", args.commits, args.products, envs, args.seed)
    detail = f"{summary.commits:,} commits, {summary.notes:,} notes, {len(envs)} x {args.products}"
    # Information only: the figure follows the machine's load more than anything written here.
    finish("history repository", [Row("generate (s)", summary.seconds, detail)])


if __name__ == "__main__":
    main()
