"""Benchmark: what the checks that keep replays from moving a version back cost.

Two checks are timed, each against itself with the check turned off, alternated in the same
run (a busy moment of the machine slows both):

  per delivery: ``promoflow serve`` (on uvicorn, beside ``git http-backend`` and the fake
      Argo Server) answering a push's first delivery, which now asks the Git server for the
      branch's tip and reads the version there; and a push delivered again (a duplicate,
      which skips the check: it starts nothing);
  per promote step: the step's plan of a promotion into dev (the version the target holds
      read and compared, on a warm repository), and a whole promotion: fetch, plan, commit,
      push.

Rows are information (no target): the ratio is with the check over without.
"""

from __future__ import annotations

import statistics
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from unittest import mock

from rich.console import Console

from bench._report import Row, finish

ROUNDS = 5
PUSHES = 20
"""First deliveries per round."""
DUPLICATES = 200
PLANS = 200
PROMOTIONS = 10
console = Console(highlight=False)


@contextmanager
def _check(on: bool) -> Iterator[None]:
    """The checks as they are, or turned off (the baseline)."""
    if on:
        yield
        return
    from orchestrator.webhooks import freshness

    def unchecked(outcome: Any, *_: Any) -> Any:
        return outcome

    with (
        mock.patch.object(freshness, "current", unchecked),
        mock.patch("orchestrator.steps.promote._check_not_older", lambda *_: ""),
    ):
        yield


def _alternate(measure: Callable[[bool], list[float]]) -> tuple[list[float], list[float]]:
    with_check: list[float] = []
    without: list[float] = []
    for _ in range(ROUNDS):
        for on in (False, True):
            with _check(on):
                (with_check if on else without).extend(measure(on))
    return with_check, without


def _deliveries(root: Path) -> tuple[list[Row], str]:
    from tests.webhooks.harness import github_push, harness, signed, values

    rows: list[Row] = []
    with harness(root) as h:
        tag = iter(range(1, 1_000_000))

        def firsts(_: bool) -> list[float]:
            times = []
            for _ in range(PUSHES):
                path = "envs/dev/shop/values.yaml"
                before, after = h.push({path: values(f"2.{next(tag)}.0")})
                body = github_push(h.repo_url, before, after, [(after, "Release", [path])])
                started = time.perf_counter()
                reply = h.post("/webhooks/github", body, signed(body))
                times.append(time.perf_counter() - started)
                assert reply.status_code == 202, reply.text
            return times

        def duplicates(_: bool) -> list[float]:
            path = "envs/dev/shop/values.yaml"
            before, after = h.push({path: values(f"2.{next(tag)}.0")})
            body = github_push(h.repo_url, before, after, [(after, "Release", [path])])
            headers = signed(body)
            assert h.post("/webhooks/github", body, headers).status_code == 202
            times = []
            for _ in range(DUPLICATES):
                started = time.perf_counter()
                reply = h.post("/webhooks/github", body, headers)
                times.append(time.perf_counter() - started)
                assert reply.status_code == 202, reply.text
            return times

        for name, measure in (("first delivery", firsts), ("duplicate delivery", duplicates)):
            on, off = _alternate(measure)
            a, b = statistics.median(on), statistics.median(off)
            rows.append(
                Row(
                    f"{name}: with / without the check",
                    a / b,
                    f"median {a * 1000:.2f} / {b * 1000:.2f} ms over {len(on)} each",
                )
            )
        created = len(h.created())
    return rows, f"{created} Workflows created"


def _promote_step(root: Path) -> list[Row]:
    from orchestrator.adapters.git import GitRemote
    from orchestrator.simulator.git_http import GitHttpServer, init_bare_repo
    from orchestrator.steps import promote
    from orchestrator.steps.request import build_request, parse_files
    from tests.webhooks.harness import commit, values

    bare = init_bare_repo(root / "srv" / "gitops.git")
    commit(bare, {f"envs/{e}/shop/values.yaml": values("1.0.0") for e in ("dev", "staging")}, "s")
    rows = []
    with GitHttpServer(root / "srv") as git:
        version = iter(range(1, 1_000_000))

        def request(v: str) -> Any:
            return build_request(
                product="shop", environment="dev", repo=git.repo_url("gitops"), branch="main",
                target_path="envs/dev/shop", version=v, version_file="values.yaml",
                version_path="image.tag", version_field_paths="image.digest",
                version_fields='{"image.digest": "sha256:' + "c" * 64 + '"}',
                files=parse_files('[{"file": "values.yaml", "paths": ["image.tag"]}]'),
            )  # fmt: skip

        with GitRemote(git.repo_url("gitops"), None, root / "cache") as remote:
            tip = remote.fetch_branch("main")

            def plans(_: bool) -> list[float]:
                ask = request(f"3.{next(version)}.0")
                times = []
                for _ in range(PLANS):
                    started = time.perf_counter()
                    promote.plan(remote, ask, tip)
                    times.append(time.perf_counter() - started)
                return times

            def promotions(_: bool) -> list[float]:
                times = []
                for _ in range(PROMOTIONS):
                    ask = request(f"3.{next(version)}.0")
                    started = time.perf_counter()
                    assert promote.promote(remote, ask).changed
                    times.append(time.perf_counter() - started)
                return times

            for name, measure in (("step plan", plans), ("whole promote step", promotions)):
                on, off = _alternate(measure)
                a, b = statistics.median(on), statistics.median(off)
                rows.append(
                    Row(
                        f"{name}: with / without the check",
                        a / b,
                        f"median {a * 1000:.3f} / {b * 1000:.3f} ms over {len(on)} each",
                    )
                )
    return rows


def main() -> None:
    with tempfile.TemporaryDirectory(prefix="promoflow-bench-") as tmp:
        root = Path(tmp)
        (root / "hub").mkdir()
        (root / "step").mkdir()
        rows, said = _deliveries(root / "hub")
        console.print(f"deliveries: {said}")
        rows += _promote_step(root / "step")
    finish("replay checks", rows)


if __name__ == "__main__":
    main()
