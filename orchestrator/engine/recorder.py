"""What the threads running one workflow's nodes share: its record and its labels.

Nodes of a DAG or a step group run in parallel threads; each creates and finishes its
:class:`NodeRecord` here, under one lock, and every change is sent on as a
:class:`ProgressEvent` (the live view draws them). The workflow's labels live here too: an
answered approval changes them (the Argo Server labels the acting user) while later tasks
read them (``workflow.labels``).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping

from orchestrator.engine.model import NodeRecord, Phase, ProgressEvent, RunRecord, now
from orchestrator.engine.templates import Template


class Recorder:
    """The run's record, written from every node's thread, and the events it sends."""

    def __init__(
        self,
        record: RunRecord,
        labels: Mapping[str, str],
        on_event: Callable[[ProgressEvent], None] | None,
    ) -> None:
        self.record = record
        self.labels = dict(labels)
        self.on_event = on_event
        self.lock = threading.Lock()

    def emit(self, node: NodeRecord, attempt: int = 0) -> None:
        if self.on_event is not None:
            self.on_event(
                ProgressEvent(
                    node=node.name,
                    display_name=node.display_name,
                    phase=node.phase,
                    duration=node.duration,
                    message=node.message,
                    attempt=attempt,
                    on_exit=node.on_exit,
                )
            )

    def emit_run(self) -> None:
        if self.on_event is not None:
            r = self.record
            self.on_event(
                ProgressEvent(r.name, r.name, r.phase, r.duration, r.message, workflow=True)
            )

    def node(self, name: str, template: Template, on_exit: bool) -> NodeRecord:
        node = NodeRecord(
            name=name,
            display_name=name.rpartition(".")[2],  # Argo: a DAG task's node shows its name
            template=template.label,
            kind=template.kind,
            on_exit=on_exit,
        )
        with self.lock:
            (self.record.exit_nodes if on_exit else self.record.nodes)[name] = node
        return node

    def finish(self, node: NodeRecord, phase: Phase, message: str = "") -> NodeRecord:
        node.phase, node.message = phase, message
        if node.started_at is None:
            node.started_at = now()
        node.finished_at = now()
        self.emit(node, len(node.attempts))
        return node

    def recorded(self, name: str, on_exit: bool) -> NodeRecord:
        with self.lock:
            return (self.record.exit_nodes if on_exit else self.record.nodes)[name]
