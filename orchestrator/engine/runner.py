"""The local engine: runs a compiled Workflow on this machine, node by node, as Argo would.

It takes the very manifests that would be submitted to the Argo Server (the Workflow, its
WorkflowTemplate and the step templates) and walks them: DAG tasks start once every task
their ``depends`` names is fulfilled and run in parallel, ``when`` skips, failures omit
exactly the dependants that asked for success, container steps run as subprocesses with
Argo's retry and deadline rules, suspend nodes wait for a duration or an approver, and the
``onExit`` handler runs last with the workflow's status. Nothing here is specific to
promoflow's own templates.

Where the controller's behaviour is mirrored, the Go function is named
(``workflow/controller/dag.go``, ``steps.go`` and ``operator.go`` of argo-workflows v4.0.5).
What the engine cannot reproduce is refused before anything runs (:mod:`.check`).

This module runs the workflow, its exit handler and each node; :mod:`.scheduling` decides
when the children of a dag or steps template start, :mod:`.attempts` runs a container
node's attempts and :mod:`.recorder` keeps what every node did.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from orchestrator.actors import ACTOR_LABELS
from orchestrator.durations import DurationError, argo_seconds
from orchestrator.engine.attempts import Attempts
from orchestrator.engine.check import check_workflow
from orchestrator.engine.errors import EngineError
from orchestrator.engine.executor import Executor, SubprocessExecutor
from orchestrator.engine.expressions import Scope, substitute_all, text, workflow_values
from orchestrator.engine.model import NodeRecord, Phase, ProgressEvent, RunRecord, now
from orchestrator.engine.mutexes import synchronized
from orchestrator.engine.plugins import LocalPlugin, expand
from orchestrator.engine.recorder import Recorder
from orchestrator.engine.scheduling import Scheduler
from orchestrator.engine.suspend import Approver, AutoApprover, Question, Supplied
from orchestrator.engine.templates import (
    Manifest,
    Template,
    Workflow,
    index_templates,
    input_values,
    resolve_workflow,
)


@dataclass(frozen=True)
class EngineOptions:
    soak_scale: float = 1.0
    """Multiplies suspend durations (soak times): 0.001 turns 30m into 1.8s for a demo."""
    backoff_scale: float = 1.0
    """Multiplies the time actually slept for retry backoffs. Retry decisions still see
    the full backoff (maxDuration is measured on that clock), so scaling never changes how
    a node ends."""
    parallelism: int = 8
    """Pods (container attempts) running at once when the workflow sets no
    ``spec.parallelism``; it only delays pods, which never changes a phase."""
    transient_error_pattern: str | None = None
    """The controller's ``TRANSIENT_ERROR_PATTERN``, for ``retryPolicy: OnTransientError``."""
    plugins: Mapping[str, LocalPlugin] = field(default_factory=dict)
    """Executor plugins' local stand-ins, by plugin name (:mod:`.plugins`)."""


class Engine:
    """Runs one workflow; create a new Engine per run."""

    def __init__(
        self,
        workflow: Manifest,
        templates: Iterable[Manifest],
        *,
        workdir: Path,
        executor: Executor | None = None,
        approver: Approver | None = None,
        options: EngineOptions | None = None,
        on_event: Callable[[ProgressEvent], None] | None = None,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.options = options or EngineOptions()
        plugins = self.options.plugins
        self.wf: Workflow = resolve_workflow(
            expand(workflow, plugins), index_templates(expand(m, plugins) for m in templates)
        )
        check_workflow(self.wf)
        self.workdir = workdir
        self.executor = executor or SubprocessExecutor()
        self.approver = approver or AutoApprover()
        self.sleep = sleep
        self.record = RunRecord(name=self.wf.name, parameters=dict(self.wf.parameters))
        labels = workflow.get("metadata", {}).get("labels") or {}
        self.recorder = Recorder(self.record, {str(k): str(v) for k, v in labels.items()}, on_event)
        self.scheduler = Scheduler(self.wf, self.recorder, self._execute)
        self.attempts = Attempts(
            workflow=self.wf.name,
            workdir=workdir,
            executor=self.executor,
            # Argo's spec.parallelism counts pods only (checkParallelism: activePods), so
            # suspend nodes and nested dags/steps never take a slot
            pods=int(self.wf.spec.get("parallelism") or self.options.parallelism),
            recorder=self.recorder,
            sleep=sleep,
            backoff_scale=self.options.backoff_scale,
            transient_error_pattern=self.options.transient_error_pattern,
        )

    # -- the run -----------------------------------------------------------------------

    def run(self) -> RunRecord:
        record = self.record
        record.started_at = now()
        record.phase = Phase.RUNNING
        self.recorder.emit_run()
        # a workflow-level mutex is held from start to the end of the exit handler, and is
        # shared with every other run in this process, as the controller shares it
        held = synchronized(self.wf.spec.get("synchronization"))
        with held:
            self._run_body(record)
        self.recorder.emit_run()
        return record

    def _run_body(self, record: RunRecord) -> None:
        try:
            entry = self.wf.own(self.wf.entrypoint, "entrypoint")
            phase, message = self.scheduler.boundary(entry, {}, self._globals("Running"), "", False)
            record.phase, record.message = phase, message
            if self.wf.on_exit:
                status = str(phase)
                handler = self.wf.own(self.wf.on_exit, "onExit")
                exit_phase, exit_message = self.scheduler.boundary(
                    handler, {}, self._globals(status), "onExit.", True
                )
                if exit_phase.failed_or_error and not phase.failed_or_error:
                    # operate(): a Failed exit handler fails the workflow, an Errored one
                    # makes it Error
                    record.phase = exit_phase
                    record.message = f"exit handler failed: {exit_message}"
        finally:
            record.finished_at = now()

    def _globals(self, status: str) -> Scope:
        started = self.record.started_at or now()
        return Scope(
            workflow_values(
                name=self.wf.name,
                namespace=self.wf.namespace,
                uid=self.wf.uid,
                service_account=self.wf.service_account,
                created=self.wf.created,
                entrypoint=self.wf.entrypoint,
                parameters=self.wf.parameters,
                status=status,
                failures=self.record.failures() if status != "Running" else [],
                duration=(now() - started).total_seconds(),
            )
        )

    # -- one node --------------------------------------------------------------------------------

    def _execute(
        self,
        name: str,
        tpl: Template,
        arguments: Mapping[str, Any],
        scope: Scope,
        on_exit: bool,
        dag_task: bool = False,
    ) -> NodeRecord:
        node = self.recorder.node(name, tpl, on_exit)
        node.started_at = now()
        node.phase = Phase.RUNNING
        try:
            inputs = input_values(tpl, {k: text(v) for k, v in arguments.items()}, name)
            node.inputs = inputs
            self.recorder.emit(node)
            if tpl.kind in ("dag", "steps"):
                phase, message = self.scheduler.boundary(tpl, inputs, scope, name + ".", on_exit)
                return self.recorder.finish(node, phase, message)
            local = scope.child({f"inputs.parameters.{k}": v for k, v in inputs.items()})
            body = substitute_all(
                {k: v for k, v in tpl.body.items() if k not in ("name", "inputs")},
                local.values,
                f"template {tpl.label}",
            )
            with synchronized(body.get("synchronization")):
                if tpl.kind == "suspend":
                    return self._suspend(node, body, inputs)
                return self.attempts.run(node, body, dag_task)
        except EngineError as exc:
            return self.recorder.finish(node, Phase.ERROR, str(exc))

    def _suspend(
        self, node: NodeRecord, body: Mapping[str, Any], inputs: Mapping[str, str]
    ) -> NodeRecord:
        params = (body.get("outputs") or {}).get("parameters") or []
        supplied = tuple(
            Supplied(
                name=str(p.get("name")),
                description=str(p.get("description") or ""),
                enum=tuple(text(v) for v in p.get("enum") or []),
                default=text(p["valueFrom"]["default"])
                if p.get("valueFrom", {}).get("default") is not None
                else None,
            )
            for p in params
        )
        duration = (body.get("suspend") or {}).get("duration")
        # the controller parses the duration before anything else (executeSuspend): a value
        # it refuses errors the node even when a person would have answered in time
        try:
            what = f"suspend duration of {node.name}"
            wanted = None if duration is None else argo_seconds(duration, what)
        except DurationError as exc:
            raise EngineError(str(exc)) from None
        if supplied or wanted is None:
            annotations = (body.get("metadata") or {}).get("annotations") or {}
            question = Question(
                node.name,
                node.display_name,
                dict(inputs),
                supplied,
                {str(k): str(v) for k, v in annotations.items()},
            )
            answer = self.approver.answer(question)
            recorder = self.recorder
            with recorder.lock:  # what the Argo Server does for the caller (creator.LabelActor)
                for key in ACTOR_LABELS:
                    recorder.labels.pop(key, None)
                recorder.labels.update(answer.actor_labels())
            node.outputs = dict(answer.values)
            # answered either way, as the Argo Server's set + resume leave the node: what
            # follows in the workflow judges the answer
            return self.recorder.finish(node, Phase.SUCCEEDED, answer.message)
        scaled = wanted * self.options.soak_scale
        node.message = f"waiting {duration}" + (
            f" (scaled to {scaled:.1f}s)" if self.options.soak_scale != 1 else ""
        )
        self.recorder.emit(node)
        self.sleep(scaled)
        return self.recorder.finish(node, Phase.SUCCEEDED, f"waited {duration}")
