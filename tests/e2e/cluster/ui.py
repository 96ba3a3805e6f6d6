"""One progress line per component (building / starting / ready) with elapsed time.

A terminal gets rich's live spinner lines; a log file (builds run under nohup) gets one
plain line per state change, so the same output is readable in both.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager

from rich.console import Console
from rich.progress import Progress, SpinnerColumn, TaskID, TextColumn, TimeElapsedColumn

console = Console(highlight=False)
if not console.is_terminal:  # a log file: no 80-column wrapping
    console = Console(highlight=False, width=200)


def fmt_seconds(seconds: float) -> str:
    minutes, secs = divmod(round(seconds), 60)
    return f"{minutes}m{secs:02d}s" if minutes else f"{seconds:.1f}s"


class Step:
    """Handle for one component's line: ``say`` changes its text, ``done`` finishes it."""

    def __init__(self, board: Board, name: str, task: TaskID | None) -> None:
        self._board = board
        self.name = name
        self._task = task
        self.started = time.monotonic()
        self.result = ""

    @property
    def elapsed(self) -> float:
        return time.monotonic() - self.started

    def say(self, text: str) -> None:
        self._board.update(self, text)

    def done(self, text: str) -> None:
        self.result = text


class Board:
    """The set of progress lines for one command."""

    def __init__(self) -> None:
        self._live = console.is_terminal
        self._progress = Progress(
            SpinnerColumn(finished_text=" "),
            TextColumn("{task.fields[name]:<30}"),
            TextColumn("{task.description}"),
            TimeElapsedColumn(),
            console=console,
        )

    def __enter__(self) -> Board:
        if self._live:
            self._progress.start()
        return self

    def __exit__(self, *exc: object) -> None:
        if self._live:
            self._progress.stop()

    def update(self, step: Step, text: str) -> None:
        if step._task is not None:
            self._progress.update(step._task, description=text)
        else:
            console.print(f"  {step.name:<30} {text}  [dim]({fmt_seconds(step.elapsed)})[/]")

    @contextmanager
    def step(self, name: str, text: str) -> Iterator[Step]:
        task = self._progress.add_task(text, name=name) if self._live else None
        st = Step(self, name, task)
        if task is None:
            console.print(f"  {name:<30} {text}")
        try:
            yield st
        except BaseException as e:
            self._finish(st, f"[red]✗ failed: {e}[/]")
            raise
        self._finish(st, f"[green]✓[/] {st.result or 'ready'}")

    def _finish(self, step: Step, text: str) -> None:
        if step._task is not None:
            self._progress.update(step._task, description=text)
            self._progress.stop_task(step._task)
        else:
            console.print(f"  {step.name:<30} {text}  [dim]({fmt_seconds(step.elapsed)})[/]")
