"""Benchmark: ``make demo`` on a fresh clone, first run and warm, against the recipe before.

A newcomer's first command is ``make demo``. It used to install the whole development
toolchain (pytest, mypy, ruff, hypothesis, ...) and compile the test suite's bytecode
before the demo ran. Now it installs only promoflow and its dependencies; ``make test``
adds the tools. This clones the checkout twice (this commit, and BENCH_BASELINE, by
default the commit before the recipe was split), each into a directory of its own with
empty pip and uv caches (as a fresh machine: every wheel is downloaded from the registry), and
runs ``make demo`` twice in each: the first run (virtualenv, installs, the demo) and the
warm run (the demo alone). Printed: seconds of each, the virtualenv's size, and the
ratios to the baseline; targets: first run under 45 s, warm under 25 s.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

from rich.console import Console

from bench._report import Row, below, finish

ROOT = Path(__file__).resolve().parents[1]
console = Console(highlight=False)


def _git(*args: str, cwd: Path = ROOT) -> str:
    done = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, check=True)
    return done.stdout.strip()


def baseline() -> str:
    """BENCH_BASELINE, or the parent of the first commit whose Makefile has RUN_STAMP."""
    given = os.environ.get("BENCH_BASELINE")
    if given:
        return given
    split = _git("log", "--format=%H", "--reverse", "-S", "RUN_STAMP", "--", "Makefile")
    return f"{split.splitlines()[0]}^"


def _size_mib(path: Path) -> float:
    total = sum(p.stat().st_size for p in path.rglob("*") if p.is_file() and not p.is_symlink())
    return total / 2**20


def measure(ref: str, label: str, tmp: Path) -> tuple[float, float, float]:
    """(first run s, warm run s, virtualenv MiB) of ``make demo`` at ``ref``."""
    src = tmp / label
    subprocess.run(["git", "clone", "-q", str(ROOT), str(src)], check=True)
    _git("checkout", "-q", ref, cwd=src)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PROMOFLOW_", "VIRTUAL_"))}
    env["PIP_CACHE_DIR"] = str(tmp / f"{label}-pip-cache")  # empty: every wheel downloaded
    env["UV_CACHE_DIR"] = str(tmp / f"{label}-uv-cache")
    times = []
    for run in ("first run", "warm"):
        with console.status(f"{label} ({_git('rev-parse', '--short', ref, cwd=src)}): {run}"):
            started = time.perf_counter()
            done = subprocess.run(["make", "demo"], cwd=src, env=env, capture_output=True)
            times.append(time.perf_counter() - started)
        if done.returncode != 0:
            raise SystemExit(f"{label}: make demo failed:\n{done.stderr.decode()[-2000:]}")
        console.print(f"  {label} {run}: {times[-1]:.1f} s")
    return times[0], times[1], _size_mib(src / ".venv")


def main() -> None:
    ref = baseline()
    with tempfile.TemporaryDirectory(prefix="promoflow-make-demo-") as name:
        tmp = Path(name)
        before = measure(ref, "baseline", tmp)
        shutil.rmtree(tmp / "baseline")
        now = measure("HEAD", "now", tmp)
    first, warm, size = now
    finish(
        "make demo",
        [
            Row(
                "first run (fresh clone, empty pip cache)",
                first,
                f"{first:.1f} s vs {before[0]:.1f} s before ({first / before[0]:.2f}x)",
                "< 45 s",
                below(45),
            ),
            Row(
                "warm run",
                warm,
                f"{warm:.1f} s vs {before[1]:.1f} s before ({warm / before[1]:.2f}x)",
                "< 25 s",
                below(25),
            ),
            Row(
                "virtualenv size",
                size / before[2],
                f"{size:.0f} MiB vs {before[2]:.0f} MiB before",
            ),
        ],
        console,
    )


if __name__ == "__main__":
    main()
