"""What a person watching a local run sees: a live tree of the DAG, then a summary.

The tree groups nodes by environment, in flow order, each with its state (waiting,
running, done, failed, skipped) and duration, as the Argo Workflows UI would show the same
run. When the output is not a terminal (CI logs, pipes), each change is one plain line.

A local run stands in for a cluster, and everything it shows says where: the header lists
what replaces what (the Argo CD simulator, container steps started as processes on this
machine instead of in their images, stand-in templates), and each result that comes from a
stand-in is marked in the tree, the plain lines and the summary ("simulated", "on this
host"), so a "Synced ... and Healthy" from the simulator is never read as a real Argo CD's.
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


SIMULATED = "simulated"
NOT_GATES = frozenset({"plan", "deploy", "merge"})
"""Task kinds that change the environment rather than check it: every other kind that
passed is a gate of the summary, whichever module added it."""
ON_HOST = "on this host"
STAND_IN = "stand-in"


def label(task: str) -> str:
    """``deploy-prod-eu`` -> ``deploy prod-eu``: how the tree names a node. Run records keep
    the task name as Argo's ``displayName`` does; only what a person reads is spelled out."""
    parsed = split_task(task)
    return " ".join(parsed) if parsed else task.replace("-", " ")


@dataclass(frozen=True)
class HostStep:
    """A container template this run starts as a process here, not in a pod of its image."""

    template: str
    """``smoke-tests/main``: WorkflowTemplate and template."""
    image: str
    """The image a cluster would run it in (not pulled, not used here)."""
    command: str
    """What runs here instead (the container's command and args, unsubstituted)."""
    tasks: tuple[str, ...] = ()
    """The run's nodes that reach it (``pre-prod-eu``)."""
    promoflow: bool = False
    """One of promoflow's own steps: this installation's ``promoflow`` runs it."""


@dataclass(frozen=True)
class LocalSetup:
    """What a local run puts in place of the cluster, to be said wherever a result shows."""

    argocd: str = ""
    """Where the Argo CD simulator listens; empty when the steps talk to a real Argo CD."""
    real_argocd: str = ""
    """The real Argo CD's address (``ARGOCD_SERVER``), when there is one."""
    argocd_tasks: frozenset[str] = frozenset()
    """Nodes whose result is Argo CD's (the ``sync-ENV`` waits)."""
    host_steps: tuple[HostStep, ...] = ()
    stand_ins: tuple[str, ...] = ()
    """WorkflowTemplates replaced by a stand-in (a call to the local status page)."""
    stand_in_tasks: frozenset[str] = frozenset()
    """Nodes that run a stand-in instead of the team's template."""

    @property
    def simulated(self) -> bool:
        return bool(self.argocd)

    def mark(self, task: str) -> str:
        """How a node's result is marked: ``simulated`` (the Argo CD simulator answered),
        ``stand-in`` (not the team's template), ``on this host, not in image python`` (the
        team's container run here), or nothing."""
        if self.simulated and task in self.argocd_tasks:
            return f"{SIMULATED} Argo CD"
        if task in self.stand_in_tasks:
            return STAND_IN
        for step in self.host_steps:
            if task in step.tasks and not step.promoflow:
                return f"{ON_HOST}, not in image {step.image}"
        return ""

    def header(self) -> list[str]:
        """One line per thing stood in for, for the top of the run."""
        lines = []
        if self.simulated:
            lines.append(
                f"Argo CD: {SIMULATED}: the Argo CD simulator (not a real Argo CD) at "
                f"{self.argocd} follows the repository; sync and health results marked "
                f'"{SIMULATED}" are its own'
            )
        elif self.real_argocd:
            lines.append(f"Argo CD: {self.real_argocd} (ARGOCD_SERVER)")
        own = [s for s in self.host_steps if s.promoflow]
        theirs = [s for s in self.host_steps if not s.promoflow]
        if self.host_steps:
            lines.append("container steps run as processes on this host, not in pods:")
        for image in sorted({s.image for s in own}):
            names = sorted({s.template.rpartition("/")[2] for s in own if s.image == image})
            lines.append(
                f"  promoflow step {', '.join(names)}: this installation's promoflow "
                f"(image {image} on a cluster)"
            )
        for step in theirs:
            where = f" ({', '.join(step.tasks)})" if step.tasks else ""
            command = step.command if len(step.command) <= 80 else step.command[:79] + "…"
            lines.append(
                f"  {step.template}{where}: runs `{command}` on this host, ignoring "
                f"its image {step.image}"
            )
        if self.stand_ins:
            lines.append(
                f"stand-ins for {', '.join(self.stand_ins)}: a call to the local status page, "
                "not your WorkflowTemplates"
            )
        return lines

    def footnotes(self) -> list[str]:
        """What the summary's marks mean, one line each."""
        notes = []
        if self.simulated:
            notes.append(
                f"{SIMULATED}: Argo CD results came from the Argo CD simulator, not a real Argo CD"
            )
        theirs = [s for s in self.host_steps if not s.promoflow]
        if theirs:
            images = ", ".join(f"{s.template} in {s.image}" for s in theirs)
            notes.append(f"{ON_HOST}: ran as a process here; on a cluster: {images}")
        if self.stand_in_tasks:
            notes.append(
                f"{STAND_IN}: a call to the local status page in place of "
                f"{', '.join(self.stand_ins)}"
            )
        return notes


def show_header(console: Console, title: str, setup: LocalSetup) -> None:
    """The run's name and what it stands in for, before anything runs."""
    console.print(f"{title}: a local run, no cluster", markup=False, highlight=False)
    for line in setup.header():
        bullet = "    " if line.startswith("  ") else "  · "
        console.print(f"{bullet}{line.strip()}", markup=False, highlight=False)


def _reports(phase: Phase, message: str) -> bool:
    """Whether a node's line reports a result worth marking: its outcome, or what it says
    while it runs (not "Pending", not the "Omitted" of a node that never ran)."""
    return phase in (Phase.SUCCEEDED, Phase.FAILED, Phase.ERROR) or (
        phase is Phase.RUNNING and bool(message)
    )


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
        self,
        console: Console,
        title: str,
        tasks: Iterable[str],
        environments: list[str],
        setup: LocalSetup | None = None,
    ) -> None:
        self.console = console
        self.title = title
        self.environments = environments
        self.setup = setup or LocalSetup()
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
            row = self.rows.setdefault(event.node, _Row(event.node, label(event.display_name)))
            if row.started is None and event.phase is Phase.RUNNING:
                row.started = time.monotonic()
            row.phase, row.message, row.duration = event.phase, event.message, event.duration
            row.label = label(event.display_name)
        if not self.interactive:
            marker = "exit handler: " if event.on_exit else ""
            mark = self.setup.mark(event.node) if _reports(event.phase, event.message) else ""
            suffix = f" ({mark})" if mark else ""
            self.console.print(
                f"{marker}{event.describe(label(event.display_name))}{suffix}",
                markup=False,
                highlight=False,
            )

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
        mark = self.setup.mark(row.name) if _reports(row.phase, row.message) else ""
        if mark:
            line.append(f"  ({mark})", style="magenta")
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


def summary(
    record: RunRecord, environments: list[str], setup: LocalSetup | None = None
) -> RenderableType:
    """Per environment: commit, gates passed and the outcome; then the run's result, and
    what the marks on gates mean (``sync (simulated)``: the Argo CD simulator said so)."""
    setup = setup or LocalSetup()
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
        gates = [  # in the order they ran: the chain runs an environment's tasks in turn
            _gate(kind, node.name, setup)
            for kind, node in nodes.items()
            if kind not in NOT_GATES and node.phase is Phase.SUCCEEDED
        ]
        failed = [n for n in nodes.values() if n.phase.failed_or_error]
        unchanged = _unchanged(nodes)
        ran = [
            n
            for kind, n in nodes.items()
            # an unchanged environment asks no approval: those two are skipped on purpose
            if not (
                unchanged
                and kind in ("approve", "approver")
                and n.phase in (Phase.SKIPPED, Phase.OMITTED)
            )
        ]
        if failed:
            mark = setup.mark(failed[0].name)
            why = f"{_reason(failed[0])}" + (f" ({mark})" if mark else "")
            result = Text(f"failed at {label(failed[0].display_name)}: {why}", "red")
        elif ran and all(n.phase is Phase.SUCCEEDED for n in ran):
            result = Text("unchanged", "cyan") if unchanged else Text("promoted", "green")
        else:
            result = Text("not promoted", "yellow")
        table.add_row(env, sha or "-", ", ".join(gates) or "-", result)
    seconds = record.duration or 0.0
    style = "green" if record.phase is Phase.SUCCEEDED else "red"
    footer = Text(f"{record.phase} in {seconds:.1f}s", style=f"bold {style}")
    if record.message:
        footer.append(f"  {record.message}", style=style)
    notes = [Text(note, style="magenta") for note in setup.footnotes()]
    return Group(table, footer, *notes)


def _unchanged(nodes: dict[str, NodeRecord]) -> bool:
    """The environment already held the promoted values: its deploy committed nothing
    (its ``changed`` output is ``false``, and with pull requests its merge passed the
    commit through)."""
    deploy = nodes.get("deploy")
    return (
        deploy is not None
        and deploy.phase is Phase.SUCCEEDED
        and deploy.outputs.get("changed") == "false"
    )


def _gate(kind: str, task: str, setup: LocalSetup) -> str:
    """``sync (simulated)``, ``pre (stand-in)``, ``pre (on this host)`` or just the kind."""
    mark = setup.mark(task)
    short = next((m for m in (SIMULATED, STAND_IN, ON_HOST) if mark.startswith(m)), "")
    return f"{kind} ({short})" if short else kind


def _reason(node: NodeRecord) -> str:
    """Why a node failed: a retried step's own message rather than the Retry node's
    "No more retries left" or "retryStrategy.expression evaluated to false" (both Argo's)."""
    if node.attempts and node.attempts[-1].message:
        return node.attempts[-1].message
    return node.message
