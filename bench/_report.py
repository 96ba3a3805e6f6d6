"""One way every benchmark states its result: figure, baseline, ratio, target, met or missed.

Each benchmark collects :class:`Row` values and ends with :func:`finish`, which prints them
as a table and exits non-zero when a target is missed, so ``make bench`` cannot hide a miss
behind an exit code of 0. Rows without a target are information (printed, never judged).
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable
from dataclasses import dataclass

from rich.console import Console
from rich.table import Table


@dataclass(frozen=True)
class Row:
    figure: str
    value: float
    """The measured ratio (or share), as the target states it."""
    detail: str
    """What was measured against what, in seconds or counts."""
    target: str = ""
    met: Callable[[float], bool] | None = None

    @property
    def verdict(self) -> str:
        if self.met is None:
            return "-"
        return "met" if self.met(self.value) else "MISSED"


def at_least(limit: float) -> Callable[[float], bool]:
    return lambda value: value >= limit


def below(limit: float) -> Callable[[float], bool]:
    return lambda value: value < limit


SUMMARY_ENV = "PROMOFLOW_BENCH_SUMMARY"
"""A JSON-lines file each benchmark appends its rows to (set by ``python -m bench``)."""


def finish(title: str, rows: list[Row], console: Console | None = None) -> None:
    """Print the table; record the rows for the summary; exit 1 if a target was missed."""
    console = console or Console(highlight=False)
    summary = os.environ.get(SUMMARY_ENV)
    if summary:
        with open(summary, "a", encoding="utf-8") as fh:
            for row in rows:
                record = {
                    "bench": title,
                    "figure": row.figure,
                    "measured": row.detail,
                    "ratio": row.value,
                    "target": row.target,
                    "verdict": row.verdict,
                }
                fh.write(json.dumps(record) + "\n")
    table = Table(title=title, title_justify="left")
    for column in ("figure", "measured", "ratio", "target", ""):
        table.add_column(column, justify="right" if column == "ratio" else "left")
    for row in rows:
        verdict = {"met": "[green]met[/]", "MISSED": "[bold red]MISSED[/]"}.get(row.verdict, "")
        table.add_row(row.figure, row.detail, f"{row.value:.2f}", row.target, verdict)
    console.print(table)
    missed = [row.figure for row in rows if row.verdict == "MISSED"]
    if missed:
        console.print(f"[bold red]missed:[/] {', '.join(missed)}")
        sys.exit(1)
