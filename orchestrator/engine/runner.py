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
"""

from __future__ import annotations

import functools
import threading
import time
from collections.abc import Callable, Iterable, Mapping
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from orchestrator.actors import ACTOR_LABELS
from orchestrator.engine.check import check_workflow
from orchestrator.engine.conditions import WhenError, evaluate_when
from orchestrator.engine.depends import Decision, ancestors, dag_phase, task_rule
from orchestrator.engine.durations import seconds
from orchestrator.engine.errors import EngineError
from orchestrator.engine.executor import (
    ContainerJob,
    ContainerResult,
    Executor,
    SubprocessExecutor,
    container_env,
)
from orchestrator.engine.expressions import (
    labels_json,
    rfc3339,
    substitute,
    substitute_all,
    text,
    workflow_values,
)
from orchestrator.engine.model import (
    Attempt,
    NodeRecord,
    Phase,
    ProgressEvent,
    RunRecord,
    now,
)
from orchestrator.engine.retry import (
    EXECUTION_DEADLINE_MESSAGE,
    Again,
    AttemptOutcome,
    RetryError,
    RetryStrategy,
    Stop,
    Wait,
    go_atoi,
)
from orchestrator.engine.suspend import Approver, AutoApprover, Question, Supplied
from orchestrator.engine.templates import (
    Manifest,
    Template,
    Workflow,
    argument_values,
    index_templates,
    input_values,
    resolve_workflow,
)

OMITTED_MESSAGE = "omitted: depends condition not met"
"""The message ``executeDAGTask`` gives an Omitted node."""


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


class _Clock:
    """The clock retry decisions read: real time, moved on to the end of every backoff the
    run did not (fully) sleep, so ``maxDuration`` sees the backoff Argo would have waited."""

    def __init__(self) -> None:
        self.offset = 0.0

    def now(self) -> float:
        return time.time() + self.offset

    def reach(self, moment: float) -> None:
        self.offset = max(self.offset, moment - time.time())


class _Scope:
    """The values ``{{...}}`` resolves to at one place in the workflow."""

    def __init__(self, base: Mapping[str, str]) -> None:
        self.values = dict(base)

    def child(self, extra: Mapping[str, str]) -> _Scope:
        return _Scope({**self.values, **extra})


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
        self.wf: Workflow = resolve_workflow(workflow, index_templates(templates))
        check_workflow(self.wf)
        self.workdir = workdir
        self.executor = executor or SubprocessExecutor()
        self.approver = approver or AutoApprover()
        self.options = options or EngineOptions()
        self.on_event = on_event
        self.sleep = sleep
        self.record = RunRecord(name=self.wf.name, parameters=dict(self.wf.parameters))
        self.labels: dict[str, str] = {
            str(k): str(v) for k, v in (workflow.get("metadata", {}).get("labels") or {}).items()
        }
        self._lock = threading.Lock()
        # Argo's spec.parallelism counts pods only (checkParallelism: activePods), so
        # suspend nodes and nested dags/steps never take a slot
        pods = int(self.wf.spec.get("parallelism") or self.options.parallelism)
        self._pods = threading.BoundedSemaphore(max(1, pods))

    # -- the run -----------------------------------------------------------------------

    def run(self) -> RunRecord:
        record = self.record
        record.started_at = now()
        record.phase = Phase.RUNNING
        self._emit_run()
        # a workflow-level mutex is held from start to the end of the exit handler, and is
        # shared with every other run in this process, as the controller shares it
        held = self._synchronized(self.wf.spec.get("synchronization"))
        with held:
            self._run_body(record)
        self._emit_run()
        return record

    def _run_body(self, record: RunRecord) -> None:
        try:
            entry = self.wf.own(self.wf.entrypoint, "entrypoint")
            phase, message = self._boundary(entry, {}, self._globals("Running"), "", False)
            record.phase, record.message = phase, message
            if self.wf.on_exit:
                status = str(phase)
                handler = self.wf.own(self.wf.on_exit, "onExit")
                exit_phase, exit_message = self._boundary(
                    handler, {}, self._globals(status), "onExit.", True
                )
                if exit_phase.failed_or_error and not phase.failed_or_error:
                    # operate(): a Failed exit handler fails the workflow, an Errored one
                    # makes it Error
                    record.phase = exit_phase
                    record.message = f"exit handler failed: {exit_message}"
        finally:
            record.finished_at = now()

    def _globals(self, status: str) -> _Scope:
        started = self.record.started_at or now()
        return _Scope(
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

    # -- events ----------------------------------------------------------------------------

    def _emit(self, node: NodeRecord, attempt: int = 0) -> None:
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

    def _emit_run(self) -> None:
        if self.on_event is not None:
            r = self.record
            self.on_event(
                ProgressEvent(r.name, r.name, r.phase, r.duration, r.message, workflow=True)
            )

    def _node(self, name: str, template: Template, on_exit: bool) -> NodeRecord:
        node = NodeRecord(
            name=name,
            display_name=name.rpartition(".")[2],  # Argo: a DAG task's node shows its name
            template=template.label,
            kind=template.kind,
            on_exit=on_exit,
        )
        with self._lock:
            (self.record.exit_nodes if on_exit else self.record.nodes)[name] = node
        return node

    def _finish(self, node: NodeRecord, phase: Phase, message: str = "") -> NodeRecord:
        node.phase, node.message = phase, message
        if node.started_at is None:
            node.started_at = now()
        node.finished_at = now()
        self._emit(node, len(node.attempts))
        return node

    # -- boundaries: dag and steps ------------------------------------------------------------

    def _boundary(
        self,
        tpl: Template,
        inputs: Mapping[str, str],
        scope: _Scope,
        prefix: str,
        on_exit: bool,
    ) -> tuple[Phase, str]:
        inner = scope.child({f"inputs.parameters.{k}": v for k, v in inputs.items()})
        if tpl.kind == "dag":
            return self._dag(tpl, inner, prefix, on_exit)
        if tpl.kind == "steps":
            return self._steps(tpl, inner, prefix, on_exit)
        raise EngineError(f"template {tpl.label} is not a dag or steps template")

    def _dag(self, tpl: Template, scope: _Scope, prefix: str, on_exit: bool) -> tuple[Phase, str]:
        """``executeDAG``: each task is decided once every task its ``depends`` names is
        fulfilled (``evaluateDependsLogic``): Omitted if the expression is false, else its
        ``when`` is resolved and evaluated (``resolveDependencyReferences``: an error ends
        the task in Error, false in Skipped), else it runs. A failure never stops the other
        branches, whatever ``dag.failFast`` says: the controller keeps starting tasks while
        anything in the DAG runs (argoproj/argo-workflows#5223, #10312); ``failFast`` only
        changes which failed leaf gives the DAG its phase (``assessDAGPhase``)."""
        body = tpl.body["dag"]
        tasks = {str(t["name"]): t for t in body.get("tasks") or []}
        rules = {name: task_rule(task) for name, task in tasks.items()}
        named = {name: rule.tasks if rule else frozenset[str]() for name, rule in rules.items()}
        fail_fast = body.get("failFast", True) is not False
        phases: dict[str, Phase] = {}
        outputs: dict[str, dict[str, str]] = {}
        running: dict[Future[NodeRecord], str] = {}
        with ThreadPoolExecutor(max_workers=max(1, len(tasks))) as pool:
            while True:
                for name, task in tasks.items():
                    if name in phases or name in running.values():
                        continue
                    rule = rules[name]
                    decision = rule.decide(phases) if rule else Decision.RUN
                    if decision is Decision.WAIT:
                        continue
                    task_tpl = self.wf.resolve(task, f"task {name}")
                    if decision is Decision.OMIT:
                        phases[name] = self._skip(
                            prefix + name, task_tpl, on_exit, Phase.OMITTED, OMITTED_MESSAGE
                        )
                        continue
                    visible = self._ancestor_outputs(tasks, named, name, phases, outputs)
                    values = self._live(_with_outputs(scope, "tasks", visible), "tasks", prefix)
                    skipped = self._when(task, values, prefix + name, task_tpl, on_exit)
                    if skipped is not None:
                        phases[name] = skipped
                        continue
                    try:
                        args = substitute_all(argument_values(task), values.values, f"task {name}")
                    except EngineError as exc:
                        phases[name] = self._unresolved(prefix + name, task_tpl, on_exit, exc)
                        continue
                    running[
                        pool.submit(
                            self._execute, prefix + name, task_tpl, args, values, on_exit, True
                        )
                    ] = name
                if not running:
                    break
                done, _ = wait(list(running), return_when=FIRST_COMPLETED)
                for future in done:
                    name = running.pop(future)
                    node = future.result()
                    phases[name] = node.phase
                    outputs[name] = node.outputs
        phase = dag_phase(named, phases, fail_fast)
        failures = [n for n in phases if phases[n].failed_or_error]
        message = f"child '{prefix + failures[0]}' failed" if phase.failed_or_error else ""
        return phase, message

    def _ancestor_outputs(
        self,
        tasks: Mapping[str, Mapping[str, Any]],
        named: Mapping[str, frozenset[str]],
        name: str,
        phases: Mapping[str, Phase],
        outputs: Mapping[str, Mapping[str, str]],
    ) -> dict[str, dict[str, str]]:
        """``buildLocalScopeFromTask``: the outputs of the task's ancestors only; a Skipped
        or Omitted ancestor's declared output parameters read as empty strings."""
        visible: dict[str, dict[str, str]] = {}
        for above in ancestors(named, name):
            if phases.get(above) in (Phase.SKIPPED, Phase.OMITTED) and not outputs.get(above):
                declared = self.wf.resolve(tasks[above], f"task {above}").body.get("outputs")
                params = (declared or {}).get("parameters") or []
                visible[above] = {str(p.get("name")): "" for p in params}
            elif above in outputs:
                visible[above] = dict(outputs[above])
        return visible

    def _unresolved(self, name: str, tpl: Template, on_exit: bool, exc: EngineError) -> Phase:
        """A reference Argo could not resolve either: it would requeue the task for ever
        (an output the dependency never wrote); locally the task ends in Error instead."""
        message = f"{exc} (Argo would keep waiting for it)"
        return self._skip(name, tpl, on_exit, Phase.ERROR, message)

    def _steps(self, tpl: Template, scope: _Scope, prefix: str, on_exit: bool) -> tuple[Phase, str]:
        """``executeSteps``/``executeStepGroup``: groups run in order, the steps of a group
        in parallel; a failed group fails the template. A ``when`` that cannot be evaluated
        ends that step in Error and starts no further step of its group."""
        outputs: dict[str, dict[str, str]] = {}
        for group in tpl.body.get("steps") or []:
            values = self._live(_with_outputs(scope, "steps", outputs), "steps", prefix)
            futures: dict[Future[NodeRecord], str] = {}
            error = ""
            with ThreadPoolExecutor(max_workers=max(1, len(group))) as pool:
                for step in group:
                    name = str(step["name"])
                    step_tpl = self.wf.resolve(step, f"step {name}")
                    skipped = self._when(step, values, prefix + name, step_tpl, on_exit)
                    if skipped is Phase.ERROR:
                        error = self._recorded(prefix + name, on_exit).message
                        break
                    if skipped is not None:
                        continue
                    try:
                        args = substitute_all(argument_values(step), values.values, f"step {name}")
                    except EngineError as exc:
                        self._unresolved(prefix + name, step_tpl, on_exit, exc)
                        error = f"child '{prefix + name}' failed"
                        break
                    futures[
                        pool.submit(self._execute, prefix + name, step_tpl, args, values, on_exit)
                    ] = name
                wait(list(futures))
            for future, name in futures.items():
                outputs[name] = future.result().outputs
            bad = [n for f, n in futures.items() if f.result().phase.failed_or_error]
            if error:
                return Phase.FAILED, error
            if bad:
                return Phase.FAILED, f"child '{prefix + bad[0]}' failed"
        return Phase.SUCCEEDED, ""

    def _live(self, scope: _Scope, kind: str, prefix: str) -> _Scope:
        """What changes while the run goes on, as the controller reads it on each pass:
        the labels (``workflow.labels``) and when the nodes done so far ran
        (``tasks.NAME.startedAt``/``finishedAt``/``status``, RFC 3339 in whole seconds)."""
        extra: dict[str, str] = {}
        with self._lock:
            extra["workflow.labels"] = labels_json(self.labels)
            extra.update({f"workflow.labels.{k}": v for k, v in self.labels.items()})
            for full, node in self.record.nodes.items():
                if not full.startswith(prefix) or "." in full[len(prefix) :]:
                    continue
                name = full[len(prefix) :]
                for field, moment in (
                    ("startedAt", node.started_at),
                    ("finishedAt", node.finished_at),
                ):
                    if moment is not None:
                        extra[f"{kind}.{name}.{field}"] = rfc3339(moment)
                extra[f"{kind}.{name}.status"] = str(node.phase)
        return scope.child(extra)

    def _recorded(self, name: str, on_exit: bool) -> NodeRecord:
        with self._lock:
            return (self.record.exit_nodes if on_exit else self.record.nodes)[name]

    def _when(
        self, item: Mapping[str, Any], values: _Scope, name: str, tpl: Template, on_exit: bool
    ) -> Phase | None:
        """Evaluate ``when`` (``shouldExecute``): None to run; otherwise the node is
        recorded Skipped ("when '...' evaluated false") or, when govaluate cannot evaluate
        it, Error with Argo's message."""
        when = item.get("when")
        if not when:
            return None
        try:
            condition = substitute(str(when), values.values, name)
        except EngineError as exc:
            return self._unresolved(name, tpl, on_exit, exc)
        try:
            if evaluate_when(condition):
                return None
        except WhenError as exc:
            return self._skip(name, tpl, on_exit, Phase.ERROR, str(exc))
        return self._skip(name, tpl, on_exit, Phase.SKIPPED, f"when '{condition}' evaluated false")

    def _skip(
        self, name: str, tpl: Template, on_exit: bool, phase: Phase, message: str = ""
    ) -> Phase:
        node = self._node(name, tpl, on_exit)
        node.kind = ""
        self._finish(node, phase, message)
        return phase

    # -- one node --------------------------------------------------------------------------------

    def _execute(
        self,
        name: str,
        tpl: Template,
        arguments: Mapping[str, Any],
        scope: _Scope,
        on_exit: bool,
        dag_task: bool = False,
    ) -> NodeRecord:
        node = self._node(name, tpl, on_exit)
        node.started_at = now()
        node.phase = Phase.RUNNING
        try:
            inputs = input_values(tpl, {k: text(v) for k, v in arguments.items()}, name)
            node.inputs = inputs
            self._emit(node)
            if tpl.kind in ("dag", "steps"):
                phase, message = self._boundary(tpl, inputs, scope, name + ".", on_exit)
                return self._finish(node, phase, message)
            local = scope.child({f"inputs.parameters.{k}": v for k, v in inputs.items()})
            body = substitute_all(
                {k: v for k, v in tpl.body.items() if k not in ("name", "inputs")},
                local.values,
                f"template {tpl.label}",
            )
            with self._synchronized(body.get("synchronization")):
                if tpl.kind == "suspend":
                    return self._suspend(node, body, inputs)
                return self._container(node, body, dag_task)
        except EngineError as exc:
            return self._finish(node, Phase.ERROR, str(exc))

    def _synchronized(self, sync: Any) -> _Mutexes:
        names = sorted(
            {str(m.get("name", "")) for m in (sync or {}).get("mutexes") or []}
            | ({str(sync["mutex"].get("name", ""))} if sync and sync.get("mutex") else set())
        )
        with _MUTEXES_LOCK:
            locks = [_MUTEXES.setdefault(n, threading.Lock()) for n in names]
        return _Mutexes(locks)

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
        wanted = None if duration is None else seconds(duration, f"suspend duration of {node.name}")
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
            with self._lock:  # what the Argo Server does for the caller (creator.LabelActor)
                for key in ACTOR_LABELS:
                    self.labels.pop(key, None)
                self.labels.update(answer.actor_labels())
            node.outputs = dict(answer.values)
            # answered either way, as the Argo Server's set + resume leave the node: what
            # follows in the workflow judges the answer
            return self._finish(node, Phase.SUCCEEDED, answer.message)
        scaled = wanted * self.options.soak_scale
        node.message = f"waiting {duration}" + (
            f" (scaled to {scaled:.1f}s)" if self.options.soak_scale != 1 else ""
        )
        self._emit(node)
        self.sleep(scaled)
        return self._finish(node, Phase.SUCCEEDED, f"waited {duration}")

    def _container(self, node: NodeRecord, body: Mapping[str, Any], dag_task: bool) -> NodeRecord:
        """A container step: one attempt per pod, retried as ``processNodeRetries`` decides
        (see :mod:`.retry`); the node's outputs are the last attempt's."""
        container = body["container"]
        argv = [str(a) for a in (container.get("command") or []) + (container.get("args") or [])]
        env = container_env(container.get("env") or [], self.executor.host_env, node.name)
        outputs = {
            str(p["name"]): (str(p["valueFrom"]["path"]), p["valueFrom"].get("default"))
            for p in (body.get("outputs") or {}).get("parameters") or []
        }
        active_deadline = self._active_deadline(body.get("activeDeadlineSeconds"), node.name)
        raw = body.get("retryStrategy")
        strategy = (
            RetryStrategy(raw, self.options.transient_error_pattern) if raw is not None else None
        )
        node.retry_node = strategy is not None
        clock = _Clock()
        history: list[AttemptOutcome] = []
        execution_deadline: float | None = None
        attempt = 0
        while True:
            attempt += 1
            workdir = self.workdir / "nodes" / node.name / str(attempt)
            mapped = _mapped_dirs({path for path, _ in outputs.values()}, workdir / "outputs")
            limit, by_execution = active_deadline, False
            if execution_deadline is not None:
                remaining = max(0.0, execution_deadline - clock.now())
                if limit is None or remaining < limit:
                    limit, by_execution = remaining, True
            job = ContainerJob(
                node=node.name,
                argv=[_remap(a, mapped) for a in argv],
                env={k: _remap(v, mapped) for k, v in env.items()},
                workdir=workdir,
                deadline=limit,
                outputs={n: Path(_remap(path, mapped)) for n, (path, _) in outputs.items()},
                on_message=functools.partial(self._running_message, node, attempt),
            )
            for directory in mapped.values():
                directory.mkdir(parents=True, exist_ok=True)
            started, started_clock = now(), clock.now()
            with self._pods:
                result = self.executor.run(job)
            finished_clock = clock.now()
            phase = _phase(result)
            message = result.message
            if result.timed_out and by_execution:
                message = EXECUTION_DEADLINE_MESSAGE
            # the wait container saves output parameters whatever the main container did
            values, missing = _read_outputs(job, outputs)
            if phase is Phase.SUCCEEDED and missing:
                phase, message = Phase.ERROR, missing
            node.attempts.append(Attempt(attempt, phase, result.exit_code, message, started, now()))
            node.outputs = values
            if phase is Phase.SUCCEEDED or strategy is None:
                return self._finish(node, phase, message)
            history.append(
                AttemptOutcome(phase, message, result.exit_code, started_clock, finished_clock)
            )
            # the attempt's pod has ended with its own message; the Retry node is still
            # deciding (and its final message will be the controller's, not the step's)
            node.message = message
            self._emit(node, attempt)
            try:
                step = strategy.next_step(history, clock.now())
                while isinstance(step, Wait):
                    node.message = step.message
                    self._emit(node, attempt)
                    decided = clock.now()
                    self.sleep(step.seconds * self.options.backoff_scale)
                    clock.reach(decided + step.seconds)
                    step = strategy.next_step(history, clock.now())
            except RetryError as exc:
                # executeTemplate marks the Retry node Error with the error; for a DAG task
                # executeDAGTask then overwrites it with "task '<node>' errored: <error>"
                where = "" if not dag_task else f"task '{self.wf.name}.{node.name}' errored: "
                return self._finish(node, Phase.ERROR, f"{where}{exc}")
            if isinstance(step, Stop):
                return self._finish(node, step.phase, step.message)
            assert isinstance(step, Again)
            execution_deadline = step.deadline
            node.message = f"attempt {attempt} {phase.lower()}: {message}; retrying"
            self._emit(node, attempt)

    def _active_deadline(self, value: Any, where: str) -> float | None:
        """The pod's ``activeDeadlineSeconds`` (``intstr.Int64``), checked again once
        substituted."""
        if value is None:
            return None
        parsed = go_atoi(value)
        if parsed is None or parsed <= 0:
            raise EngineError(
                f"activeDeadlineSeconds of {where}: {value!r} is not a positive whole number"
            )
        return float(parsed)

    def _running_message(self, node: NodeRecord, attempt: int, text: str) -> None:
        node.message = text
        self._emit(node, attempt)


def _with_outputs(scope: _Scope, kind: str, outputs: Mapping[str, Mapping[str, str]]) -> _Scope:
    """``tasks.NAME.outputs.parameters.P`` (or ``steps.``) of the nodes done so far."""
    return scope.child(
        {
            f"{kind}.{node}.outputs.parameters.{key}": value
            for node, params in outputs.items()
            for key, value in params.items()
        }
    )


_MUTEXES: dict[str, threading.Lock] = {}
"""Named mutexes of every run in this process: Argo's are shared by the whole namespace."""
_MUTEXES_LOCK = threading.Lock()


class _Mutexes:
    """Holds a set of named mutexes (sorted, so two nodes never deadlock on them)."""

    def __init__(self, locks: list[threading.Lock]) -> None:
        self.locks = locks

    def __enter__(self) -> None:
        for lock in self.locks:
            lock.acquire()

    def __exit__(self, *_: object) -> None:
        for lock in reversed(self.locks):
            lock.release()


def _phase(result: ContainerResult) -> Phase:
    if result.error:
        return Phase.ERROR
    if result.timed_out or result.exit_code != 0:
        return Phase.FAILED
    return Phase.SUCCEEDED


def _mapped_dirs(paths: set[str], local: Path) -> dict[str, Path]:
    """Each directory holding output files -> its own local directory."""
    dirs = sorted({str(Path(p).parent) for p in paths})
    if len(dirs) == 1:
        return {dirs[0]: local}
    return {d: local / str(i) for i, d in enumerate(dirs)}


def _remap(value: str, mapped: Mapping[str, Path]) -> str:
    for directory, local in mapped.items():
        if value == directory:
            return str(local)
        if value.startswith(directory + "/"):
            return str(local) + value[len(directory) :]
    return value


def _read_outputs(
    job: ContainerJob, declared: Mapping[str, tuple[str, Any]]
) -> tuple[dict[str, str], str]:
    """The output parameters an attempt left (``SaveParameters``: a missing file takes its
    default), and the error for the first one that has neither."""
    values: dict[str, str] = {}
    missing = ""
    for name, (path, default) in declared.items():
        local = job.outputs[name]
        if local.exists():
            values[name] = local.read_text().rstrip("\n")
        elif default is not None:
            values[name] = text(default)
        elif not missing:
            missing = f"failed to read output parameter {name!r} from {path}"
    return values, missing
