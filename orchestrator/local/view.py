"""What a person watching a local run sees: a live tree of the DAG, then a summary.

The tree groups nodes by environment, in flow order, each with its state (waiting,
running, done, failed, skipped) and duration, as the Argo Workflows UI would show the same
run. When the output is not a terminal (CI logs, pipes), each change is one plain line.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterable
from dataclasses import dataclass

from rich.console import Console, Group, RenderableType
from rich.live import Live
from rich.table import Table
from rich.text import Text
from rich.tree import Tree

from orchestrator.engine.model import NodeRecord, Phase, ProgressEvent, RunRecord
from orchestrator.runs import split_task

ICONS = {
    Phase.PENDING: ("○", "dim"),
    Phase.RUNNING: ("◐", "yellow"),
    Phase.SUCCEEDED: ("✔", "green"),
    Phase.FAILED: ("✘", "red"),
    Phase.ERROR: ("✘", "red"),
    Phase.SKIPPED: ("↷", "dim"),
    Phase.OMITTED: ("-", "dim"),
}


@dataclass
class _Row:
    name: str
    label: str
    phase: Phase = Phase.PENDING
    message: str = ""
    duration: float | None = None
    started: float | None = None


class RunView:
    """Collects progress events (from any thread) and shows them."""

    def __init__(
        self, console: Console, title: str, tasks: Iterable[str], environments: list[str]
    ) -> None:
        self.console = console
        self.title = title
        self.environments = environments
        self.rows: dict[str, _Row] = {t: _Row(t, t) for t in tasks}
        self.phase = Phase.PENDING
        self.started = time.monotonic()
        self._lock = threading.Lock()
        self._live: Live | None = None
        self.interactive = console.is_terminal

    # -- lifecycle -------------------------------------------------------------------------

    def __enter__(self) -> RunView:
        if self.interactive:
            self._live = Live(
                get_renderable=self.render, console=self.console, refresh_per_second=8
            )
            self._live.start()
        return self

    def __exit__(self, *_: object) -> None:
        if self._live is not None:
            self._live.stop()
            self._live = None

    def pause(self) -> None:
        """Stop redrawing while a question is asked on the terminal."""
        if self._live is not None:
            self._live.stop()

    def resume(self) -> None:
        if self._live is not None:
            self._live.start()

    # -- events --------------------------------------------------------------------------

    def handle(self, event: ProgressEvent) -> None:
        with self._lock:
            if event.workflow:
                self.phase = event.phase
                return
            row = self.rows.setdefault(event.node, _Row(event.node, event.display_name))
            if row.started is None and event.phase is Phase.RUNNING:
                row.started = time.monotonic()
            row.phase, row.message, row.duration = event.phase, event.message, event.duration
            row.label = event.display_name
        if not self.interactive:
            marker = "exit handler: " if event.on_exit else ""
            self.console.print(f"{marker}{event.describe()}", markup=False, highlight=False)

    # -- rendering -----------------------------------------------------------------------

    def _line(self, row: _Row) -> Text:
        icon, style = ICONS[row.phase]
        line = Text(f"{icon} ", style=style)
        line.append(row.label, style="bold" if row.phase is Phase.RUNNING else "")
        seconds = row.duration
        if seconds is None and row.started is not None and row.phase is Phase.RUNNING:
            seconds = time.monotonic() - row.started
        if seconds is not None:
            line.append(f"  {seconds:.1f}s", style="cyan")
        if row.message:
            line.append(f"  {row.message}", style="red" if row.phase.failed_or_error else "dim")
        return line

    def render(self) -> RenderableType:
        with self._lock:
            rows = list(self.rows.values())
            phase = self.phase
        elapsed = time.monotonic() - self.started
        tree = Tree(Text(f"{self.title}  {phase}  {elapsed:.1f}s", style="bold"))
        branches: dict[str, Tree] = {}
        for env in self.environments:
            branches[env] = tree.add(Text(env, style="bold blue"))
        other = None
        for row in rows:
            parsed = split_task(row.name.rpartition(".")[2], self.environments)
            if parsed and parsed[1] in branches:
                branches[parsed[1]].add(self._line(row))
            else:
                if other is None:
                    other = tree.add(Text("report", style="bold blue"))
                other.add(self._line(row))
        return tree


def summary(record: RunRecord, environments: list[str]) -> RenderableType:
    """Per environment: commit, gates passed and the outcome; then the run's result."""
    table = Table(title=f"promotion {record.name}", title_justify="left")
    for column in ("environment", "commit", "gates passed", "result"):
        table.add_column(column)
    by_env: dict[str, dict[str, NodeRecord]] = {env: {} for env in environments}
    for node in record.nodes.values():
        parsed = split_task(node.name, environments)
        if parsed and parsed[1] in by_env:
            by_env[parsed[1]][parsed[0]] = node
    for env, nodes in by_env.items():
        commit = nodes.get("merge") or nodes.get("deploy")
        sha = (commit.outputs.get("commit", "") if commit else "")[:12]
        gates = [
            kind
            for kind in ("approve", "approver", "pre", "sync", "soak", "check", "post")
            if kind in nodes and nodes[kind].phase is Phase.SUCCEEDED
        ]
        failed = [n for n in nodes.values() if n.phase.failed_or_error]
        if failed:
            result = Text(f"failed at {failed[0].display_name}: {_reason(failed[0])}", "red")
        elif nodes and all(n.phase is Phase.SUCCEEDED for n in nodes.values()):
            result = Text("promoted", "green")
        else:
            result = Text("not promoted", "yellow")
        table.add_row(env, sha or "-", ", ".join(gates) or "-", result)
    seconds = record.duration or 0.0
    style = "green" if record.phase is Phase.SUCCEEDED else "red"
    footer = Text(f"{record.phase} in {seconds:.1f}s", style=f"bold {style}")
    if record.message:
        footer.append(f"  {record.message}", style=style)
    return Group(table, footer)


def _reason(node: NodeRecord) -> str:
    """Why a node failed: a retried step's own message rather than the Retry node's
    "No more retries left" or "retryStrategy.expression evaluated to false" (both Argo's)."""
    if node.attempts and node.attempts[-1].message:
        return node.attempts[-1].message
    return node.message
