"""``python -m bench``: every benchmark, then one table of every figure against its target.

Each benchmark runs in its own process (so one's imports and caches do not flatter the
next) and appends its rows to a summary file; the run exits non-zero when any target was
missed, so ``make bench`` cannot report a miss as a success.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from rich.console import Console
from rich.table import Table

from bench._report import SUMMARY_ENV

HERE = Path(__file__).parent


def main() -> int:
    console = Console(highlight=False)
    names = sorted(p.stem for p in HERE.glob("[!_]*.py"))
    failed: list[str] = []
    with tempfile.TemporaryDirectory(prefix="promoflow-bench-") as tmp:
        summary = Path(tmp) / "rows.jsonl"
        summary.touch()
        for name in names:
            console.rule(f"bench/{name}.py")
            env = {**os.environ, SUMMARY_ENV: str(summary)}
            code = subprocess.run([sys.executable, "-m", f"bench.{name}"], env=env).returncode
            if code != 0:
                failed.append(name)
        rows = [json.loads(line) for line in summary.read_text().splitlines() if line]
    table = Table(title="make bench: every figure", title_justify="left")
    for column in ("bench", "figure", "measured", "ratio", "target", ""):
        table.add_column(column, justify="right" if column == "ratio" else "left")
    for row in rows:
        verdict = {"met": "[green]met[/]", "MISSED": "[bold red]MISSED[/]"}.get(row["verdict"], "")
        table.add_row(
            row["bench"],
            row["figure"],
            row["measured"],
            f"{row['ratio']:.2f}",
            row["target"],
            verdict,
        )
    console.print(table)
    if failed:
        console.print(f"[bold red]missed or failed:[/] {', '.join(failed)}")
        return 1
    console.print("[green]every target met[/]")
    return 0


if __name__ == "__main__":
    sys.exit(main())
