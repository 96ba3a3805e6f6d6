"""What a local run leaves behind: node and run records, and the progress events on the way.

The records use Argo's own vocabulary (phases, ``workflow.failures`` entries, pod-style
names) so a run read from the local engine and one read from the Argo Server can be shown
and compared the same way, and ``to_dict`` gives JSON that can be stored next to the run.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import UTC, datetime
from enum import StrEnum
from typing import Any


class Phase(StrEnum):
    """Argo node phases (``Errored`` in ``depends`` is ``Error`` here, as in Argo)."""

    PENDING = "Pending"
    RUNNING = "Running"
    SUCCEEDED = "Succeeded"
    FAILED = "Failed"
    ERROR = "Error"
    SKIPPED = "Skipped"
    OMITTED = "Omitted"

    @property
    def failed_or_error(self) -> bool:
        return self in (Phase.FAILED, Phase.ERROR)

    @property
    def completed(self) -> bool:
        """Ran to an end (Argo: Skipped and Omitted nodes did not complete, they were passed)."""
        return self is Phase.SUCCEEDED or self.failed_or_error

    @property
    def fulfilled(self) -> bool:
        """Nothing more will happen to the node."""
        return self.completed or self in (Phase.SKIPPED, Phase.OMITTED)


def now() -> datetime:
    return datetime.now(UTC)


def timestamp(value: datetime | None) -> str:
    """Argo's ``startedAt``/``finishedAt`` form: ``2024-05-01T12:00:00Z``."""
    return value.strftime("%Y-%m-%dT%H:%M:%SZ") if value else ""


def pod_name(run: str, node: str, template: str) -> str:
    """Argo's v2 pod name: workflow, template and the FNV-1a hash of the node name."""
    return f"{run}-{template}-{node_hash(f'{run}.{node}')}"


def node_hash(name: str) -> int:
    """FNV-1a (32 bits) of a node's full name (``RUN.TASK``): the end of its pod's name."""
    digest = 0x811C9DC5
    for byte in name.encode():
        digest = ((digest ^ byte) * 0x01000193) & 0xFFFFFFFF
    return digest


@dataclass
class Attempt:
    """One execution of a container step; retried steps have several."""

    number: int
    phase: Phase
    exit_code: int | None
    message: str
    started_at: datetime
    finished_at: datetime

    def to_dict(self) -> dict[str, Any]:
        return {
            "number": self.number,
            "phase": str(self.phase),
            "exitCode": self.exit_code,
            "message": self.message,
            "startedAt": timestamp(self.started_at),
            "finishedAt": timestamp(self.finished_at),
        }


@dataclass
class NodeRecord:
    """One DAG task or step: what ran, how it ended and what it produced."""

    name: str
    display_name: str
    template: str
    kind: str = ""
    """``container`` or ``suspend``; empty for nodes that never ran (Skipped, Omitted)."""
    phase: Phase = Phase.PENDING
    message: str = ""
    started_at: datetime | None = None
    finished_at: datetime | None = None
    inputs: dict[str, str] = field(default_factory=dict)
    outputs: dict[str, str] = field(default_factory=dict)
    attempts: list[Attempt] = field(default_factory=list)
    on_exit: bool = False
    retry_node: bool = False
    """The template has a ``retryStrategy``: Argo shows a Retry node (this record: its phase
    and message) with one pod per attempt, named ``name(0)``, ``name(1)``..."""

    @property
    def duration(self) -> float | None:
        if self.started_at is None or self.finished_at is None:
            return None
        return (self.finished_at - self.started_at).total_seconds()

    @property
    def template_name(self) -> str:
        """The template itself, without the WorkflowTemplate it lives in."""
        return self.template.rpartition("/")[2]

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "displayName": self.display_name,
            "template": self.template,
            "kind": self.kind,
            "phase": str(self.phase),
            "message": self.message,
            "startedAt": timestamp(self.started_at),
            "finishedAt": timestamp(self.finished_at),
            "duration": self.duration,
            "inputs": dict(self.inputs),
            "outputs": dict(self.outputs),
            "attempts": [a.to_dict() for a in self.attempts],
            "onExit": self.on_exit,
            "retryNode": self.retry_node,
        }


@dataclass
class RunRecord:
    """A whole local run: the entry template's nodes, then the exit handler's."""

    name: str
    phase: Phase = Phase.PENDING
    message: str = ""
    started_at: datetime | None = None
    finished_at: datetime | None = None
    parameters: dict[str, str] = field(default_factory=dict)
    nodes: dict[str, NodeRecord] = field(default_factory=dict)
    exit_nodes: dict[str, NodeRecord] = field(default_factory=dict)

    @property
    def duration(self) -> float | None:
        if self.started_at is None or self.finished_at is None:
            return None
        return (self.finished_at - self.started_at).total_seconds()

    def failures(self) -> list[dict[str, str]]:
        """``{{workflow.failures}}`` entries: every Failed or Errored node, as ``operate``
        lists them; a retried step is its Retry node and each failed attempt's pod."""
        entries: list[dict[str, str]] = []

        def add(name: str, message: str, phase: Phase, template: str, at: datetime | None) -> None:
            entries.append(
                {
                    "displayName": name,
                    "message": message,
                    "templateName": template,
                    "phase": str(phase),
                    "podName": pod_name(self.name, name, template),
                    "finishedAt": timestamp(at),
                }
            )

        for node in self.nodes.values():
            template = node.template_name
            if node.phase.failed_or_error:
                add(node.name, node.message, node.phase, template, node.finished_at)
            if node.retry_node:
                for index, attempt in enumerate(node.attempts):
                    if attempt.phase.failed_or_error:
                        name = f"{node.name}({index})"
                        add(name, attempt.message, attempt.phase, template, attempt.finished_at)
        return entries

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "phase": str(self.phase),
            "message": self.message,
            "startedAt": timestamp(self.started_at),
            "finishedAt": timestamp(self.finished_at),
            "duration": self.duration,
            "parameters": dict(self.parameters),
            "nodes": [n.to_dict() for n in self.nodes.values()],
            "exitNodes": [n.to_dict() for n in self.exit_nodes.values()],
        }

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), indent=2, ensure_ascii=False)


@dataclass(frozen=True)
class ProgressEvent:
    """A change worth showing: a node (or, with ``workflow``, the run) entered ``phase``."""

    node: str
    display_name: str
    phase: Phase
    duration: float | None = None
    message: str = ""
    attempt: int = 0
    on_exit: bool = False
    workflow: bool = False

    def describe(self, name: str = "") -> str:
        """One line for a terminal: ``deploy-staging: Succeeded (2.1s)`` (``name``: how the
        caller spells the node instead of its display name)."""
        text = f"{name or self.display_name}: {self.phase}"
        if self.attempt > 1:
            text += f" (attempt {self.attempt})"
        if self.duration is not None and self.phase.fulfilled:
            text += f" ({self.duration:.1f}s)"
        return f"{text}: {self.message}" if self.message else text
