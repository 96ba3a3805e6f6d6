"""Benchmark: what keeping each Application costs the reporter, trimmed or whole.

Argo CD's triggers and templates read the whole Application (annotations,
``deletionTimestamp``, ``status.conditions``, ``health.lastTransitionTime``), while the
reporter keeps a trimmed copy of each app for its transitions. This measures, for N
real-size apps (Argo CD's live example, ``tests/refdata/argo-cd/application-live-example
.yaml``, 14.5 KB of YAML, each copy with its own name, revisions and times), the resident
memory each way of keeping them costs, each in a fresh process so nothing is shared:

  trimmed      what the reporter keeps today (``essentials``), as dicts
  whole        the objects as the watch decodes them, as dicts
  whole-json   the whole objects as compact JSON bytes (decoded when a trigger reads one)
  whole-zlib   the same, compressed (zlib level 1)

and what reading one back costs (decode, decompress), since an update's triggers read the
object it carries, and only a held notification (``for:``) or a restart reads a kept one.
Prints MiB, bytes per app and the ratio to the trimmed copy, and the decode time per app.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import time
import zlib
from pathlib import Path
from typing import Any

import yaml
from rich.console import Console

from bench._report import Row, below, finish

console = Console(highlight=False)
LIVE = Path(__file__).resolve().parents[1] / "tests/refdata/argo-cd/application-live-example.yaml"
WAYS = ("trimmed", "whole", "whole-json", "whole-zlib")
PAGE = os.sysconf("SC_PAGE_SIZE")


def variants(count: int) -> list[dict[str, Any]]:
    """``count`` copies of the live Application, each with its own strings where a real
    fleet differs (name, revisions, times), so no string is shared between them."""
    base = yaml.safe_load(LIVE.read_text())
    text = json.dumps(base)
    out = []
    for i in range(count):
        app = json.loads(text)  # a fresh object tree, as each watch event decodes one
        app["metadata"]["name"] = f"app-{i:05d}"
        app["metadata"]["uid"] = f"{i:08x}-0000-0000-0000-000000000000"
        revision = f"{i:040x}"
        app["status"]["sync"]["revision"] = revision
        for entry in app["status"].get("history") or []:
            entry["revision"] = f"{entry.get('id', 0):02d}{revision[2:]}"
        app["status"]["reconciledAt"] = f"2026-11-27T{i % 24:02d}:{i % 60:02d}:00Z"
        out.append(app)
    return out


def rss() -> int:
    with open("/proc/self/statm") as fh:
        return int(fh.read().split()[1]) * PAGE


def keep(way: str, count: int) -> dict[str, float]:
    """In this process: build the apps one by one (as a watch delivers them), keep them
    the given way, and report the memory kept and the cost of reading one back."""
    from reporters.events.transitions import essentials

    made = variants(count)
    texts = [json.dumps(app, separators=(",", ":")) for app in made]
    del made
    before = rss()
    kept: list[Any] = []
    start = time.perf_counter()
    for text in texts:
        app = json.loads(text)
        if way == "trimmed":
            kept.append(essentials(app))
        elif way == "whole":
            kept.append(app)
        elif way == "whole-json":
            kept.append(text.encode())
        else:
            kept.append(zlib.compress(text.encode(), 1))
    made_s = time.perf_counter() - start
    used = rss() - before
    start = time.perf_counter()
    for item in kept[:1000]:
        if way == "whole-json":
            json.loads(item)
        elif way == "whole-zlib":
            json.loads(zlib.decompress(item))
    read_s = (time.perf_counter() - start) / min(1000, len(kept))
    return {"bytes": used, "keep_us": made_s / count * 1e6, "read_us": read_s * 1e6}


def measure(way: str, count: int) -> dict[str, float]:
    result = subprocess.run(
        [sys.executable, "-m", "bench.app_memory", "--one", way, str(count)],
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    found: dict[str, float] = json.loads(result.stdout)
    return found


def main() -> None:
    if sys.argv[1:2] == ["--one"]:
        print(json.dumps(keep(sys.argv[2], int(sys.argv[3]))))
        return
    count = int(os.environ.get("BENCH_APPS", "10000"))
    rounds = 3
    results: dict[str, list[dict[str, float]]] = {way: [] for way in WAYS}
    with console.status(f"{count:,} apps, {rounds} rounds of {len(WAYS)} processes"):
        for _ in range(rounds):
            for way in WAYS:
                results[way].append(measure(way, count))

    def median(way: str, key: str) -> float:
        return statistics.median(r[key] for r in results[way])

    size = len(LIVE.read_bytes())
    console.print(
        f"{count:,} copies of a {size / 1024:.1f} KB live Application, median of {rounds}:"
    )
    for way in WAYS:
        used = median(way, "bytes")
        console.print(
            f"  {way:<11} {used / 2**20:8.1f} MiB  {used / count / 1024:7.1f} KB/app  "
            f"keep {median(way, 'keep_us'):6.0f} us  read back {median(way, 'read_us'):6.0f} us"
        )
    trimmed = median("trimmed", "bytes")
    rows = [
        Row(
            f"{way} / trimmed",
            median(way, "bytes") / trimmed,
            f"{median(way, 'bytes') / 2**20:.1f} MiB / {trimmed / 2**20:.1f} MiB at {count:,} apps",
        )
        for way in WAYS[1:]
    ]
    whole = median("whole", "bytes")
    rows.append(
        Row(
            "kept whole, compressed / as dicts",
            median("whole-zlib", "bytes") / whole,
            f"{median('whole-zlib', 'bytes') / 2**20:.1f} MiB / {whole / 2**20:.1f} MiB",
            "< 0.2",
            below(0.2),
        )
    )
    finish("app memory", rows, console)


if __name__ == "__main__":
    main()
