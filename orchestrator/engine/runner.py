"""The local engine: runs a compiled Workflow on this machine, node by node, as Argo would.

It takes the very manifests that would be submitted to the Argo Server (the Workflow, its
WorkflowTemplate and the step templates) and walks them: DAG tasks start when their
``depends`` hold and run in parallel, ``when`` skips, failures stop exactly the dependants,
container steps run as subprocesses with Argo's retry and deadline rules, suspend nodes
wait for a duration or an approver, and the ``onExit`` handler runs last with the
workflow's status. Nothing here is specific to promoflow's own templates.
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

from orchestrator.engine.check import check_workflow
from orchestrator.engine.conditions import Value, evaluate_when, parse_expression
from orchestrator.engine.depends import Decision, dag_phase, task_rule
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
    display_name,
    now,
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

RETRY_VARIABLES = frozenset(
    {"lastRetry.exitCode", "lastRetry.status", "lastRetry.duration", "lastRetry.message"}
)


@dataclass(frozen=True)
class EngineOptions:
    soak_scale: float = 1.0
    """Multiplies suspend durations (soak times): 0.001 turns 30m into 1.8s for a demo."""
    backoff_scale: float = 1.0
    """Multiplies retry backoff delays."""
    parallelism: int = 8


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
        self._lock = threading.Lock()
        self._mutexes: dict[str, threading.Lock] = {}
        self._parallelism = max(1, int(self.wf.spec.get("parallelism") or self.options.parallelism))

    # -- the run -----------------------------------------------------------------------

    def run(self) -> RunRecord:
        record = self.record
        record.started_at = now()
        record.phase = Phase.RUNNING
        self._emit_run()
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
                    record.phase = Phase.FAILED
                    record.message = f"exit handler failed: {exit_message}"
        finally:
            record.finished_at = now()
        self._emit_run()
        return record

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
            display_name=display_name(name.rpartition(".")[2]),
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
        body = tpl.body["dag"]
        tasks = {str(t["name"]): t for t in body.get("tasks") or []}
        rules = {name: task_rule(task) for name, task in tasks.items()}
        fail_fast = body.get("failFast", True) is not False
        phases: dict[str, Phase] = {}
        outputs: dict[str, dict[str, str]] = {}
        running: dict[Future[NodeRecord], str] = {}
        failed = False
        with ThreadPoolExecutor(max_workers=self._parallelism) as pool:
            while True:
                for name, task in tasks.items():
                    if name in phases or name in running.values():
                        continue
                    rule = rules[name]
                    decision = rule.decide(phases) if rule else Decision.RUN
                    if decision is Decision.RUN and failed and fail_fast:
                        decision = Decision.OMIT
                    if decision is Decision.WAIT:
                        continue
                    task_tpl = self.wf.resolve(task, f"task {name}")
                    if decision is Decision.OMIT:
                        phases[name] = self._skip(prefix + name, task_tpl, on_exit, Phase.OMITTED)
                        continue
                    values = _with_outputs(scope, "tasks", outputs)
                    skipped = self._skipped_by_when(task, values, prefix + name, task_tpl, on_exit)
                    if skipped:
                        phases[name] = Phase.SKIPPED
                        continue
                    args = substitute_all(argument_values(task), values.values, f"task {name}")
                    running[
                        pool.submit(self._execute, prefix + name, task_tpl, args, values, on_exit)
                    ] = name
                if not running:
                    break
                done, _ = wait(list(running), return_when=FIRST_COMPLETED)
                for future in done:
                    name = running.pop(future)
                    node = future.result()
                    phases[name] = node.phase
                    outputs[name] = node.outputs
                    failed = failed or node.phase.failed_or_error
        named = {name: rule.tasks if rule else frozenset[str]() for name, rule in rules.items()}
        phase = dag_phase(named, phases)
        failures = [n for n in phases if phases[n].failed_or_error]
        message = f"child '{prefix + failures[0]}' failed" if phase.failed_or_error else ""
        return phase, message

    def _steps(self, tpl: Template, scope: _Scope, prefix: str, on_exit: bool) -> tuple[Phase, str]:
        outputs: dict[str, dict[str, str]] = {}
        with ThreadPoolExecutor(max_workers=self._parallelism) as pool:
            for group in tpl.body.get("steps") or []:
                values = _with_outputs(scope, "steps", outputs)
                futures: dict[Future[NodeRecord], str] = {}
                for step in group:
                    name = str(step["name"])
                    step_tpl = self.wf.resolve(step, f"step {name}")
                    if self._skipped_by_when(step, values, prefix + name, step_tpl, on_exit):
                        continue
                    args = substitute_all(argument_values(step), values.values, f"step {name}")
                    futures[
                        pool.submit(self._execute, prefix + name, step_tpl, args, values, on_exit)
                    ] = name
                wait(list(futures))
                for future, name in futures.items():
                    outputs[name] = future.result().outputs
                bad = [n for f, n in futures.items() if f.result().phase.failed_or_error]
                if bad:
                    return Phase.FAILED, f"child '{prefix + bad[0]}' failed"
        return Phase.SUCCEEDED, ""

    def _skipped_by_when(
        self, item: Mapping[str, Any], values: _Scope, name: str, tpl: Template, on_exit: bool
    ) -> bool:
        """Evaluate ``when``; a false one records the node Skipped, as Argo shows it."""
        when = item.get("when")
        if not when:
            return False
        condition = substitute(str(when), values.values, name)
        if evaluate_when(condition):
            return False
        self._skip(name, tpl, on_exit, Phase.SKIPPED, f"when '{condition}' evaluated false")
        return True

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
                return self._container(node, body)
        except EngineError as exc:
            return self._finish(node, Phase.ERROR, str(exc))

    def _synchronized(self, sync: Any) -> _Mutexes:
        names = sorted(
            {str(m.get("name", "")) for m in (sync or {}).get("mutexes") or []}
            | ({str(sync["mutex"].get("name", ""))} if sync and sync.get("mutex") else set())
        )
        with self._lock:
            locks = [self._mutexes.setdefault(n, threading.Lock()) for n in names]
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
            question = Question(node.name, node.display_name, dict(inputs), supplied)
            answer = self.approver.answer(question)
            node.outputs = dict(answer.values)
            phase = Phase.SUCCEEDED if answer.approved else Phase.FAILED
            return self._finish(node, phase, answer.message)
        scaled = wanted * self.options.soak_scale
        node.message = f"waiting {duration}" + (
            f" (scaled to {scaled:.1f}s)" if self.options.soak_scale != 1 else ""
        )
        self._emit(node)
        self.sleep(scaled)
        return self._finish(node, Phase.SUCCEEDED, f"waited {duration}")

    def _container(self, node: NodeRecord, body: Mapping[str, Any]) -> NodeRecord:
        container = body["container"]
        argv = [str(a) for a in (container.get("command") or []) + (container.get("args") or [])]
        env = container_env(container.get("env") or [], self.executor.host_env, node.name)
        outputs = {
            str(p["name"]): (str(p["valueFrom"]["path"]), p["valueFrom"].get("default"))
            for p in (body.get("outputs") or {}).get("parameters") or []
        }
        deadline = body.get("activeDeadlineSeconds")
        limit_seconds = (
            seconds(deadline, f"activeDeadlineSeconds of {node.name}") if deadline else None
        )
        strategy = body.get("retryStrategy")
        first = time.monotonic()
        attempt = 0
        while True:
            attempt += 1
            workdir = self.workdir / "nodes" / node.name / str(attempt)
            mapped = _mapped_dirs({path for path, _ in outputs.values()}, workdir / "outputs")
            job = ContainerJob(
                node=node.name,
                argv=[_remap(a, mapped) for a in argv],
                env={k: _remap(v, mapped) for k, v in env.items()},
                workdir=workdir,
                deadline=limit_seconds,
                outputs={n: Path(_remap(path, mapped)) for n, (path, _) in outputs.items()},
                on_message=functools.partial(self._running_message, node, attempt),
            )
            for directory in mapped.values():
                directory.mkdir(parents=True, exist_ok=True)
            started = now()
            result = self.executor.run(job)
            phase = _phase(result)
            message = result.message
            values: dict[str, str] = {}
            if phase is Phase.SUCCEEDED:
                try:
                    values = _read_outputs(job, outputs)
                except EngineError as exc:
                    phase, message = Phase.ERROR, str(exc)
            node.attempts.append(Attempt(attempt, phase, result.exit_code, message, started, now()))
            if phase is Phase.SUCCEEDED:
                node.outputs = values
                return self._finish(node, phase, message)
            delay = self._retry_delay(strategy, attempt, result, phase, started, first, node.name)
            if delay is None:
                return self._finish(node, phase, message)
            node.message = f"attempt {attempt} {phase.lower()}: {message}; retrying"
            self._emit(node, attempt)
            self.sleep(delay)

    def _running_message(self, node: NodeRecord, attempt: int, text: str) -> None:
        node.message = text
        self._emit(node, attempt)

    def _retry_delay(
        self,
        strategy: Any,
        attempt: int,
        result: ContainerResult,
        phase: Phase,
        started: Any,
        first: float,
        where: str,
    ) -> float | None:
        """Seconds to wait before the next attempt, or None when Argo would not retry."""
        if not strategy:
            return None
        limit = int(text(strategy.get("limit")))
        if attempt > limit:
            return None
        expression = strategy.get("expression")
        policy = strategy.get("retryPolicy") or ("Always" if expression else "OnFailure")
        allowed = {
            "Always": True,
            "OnFailure": phase is Phase.FAILED,
            "OnError": phase is Phase.ERROR,
            "OnTransientError": phase is Phase.ERROR,
        }[str(policy)]
        if not allowed:
            return None
        if expression:
            scope: dict[str, Value] = {
                "lastRetry.exitCode": str(-1 if result.exit_code is None else result.exit_code),
                "lastRetry.status": str(phase),
                "lastRetry.duration": f"{(now() - started).total_seconds():.0f}",
                "lastRetry.message": result.message,
            }
            rule = parse_expression(str(expression), RETRY_VARIABLES)
            if not rule.evaluate(scope):
                return None
        backoff = strategy.get("backoff") or {}
        delay = 0.0
        if backoff.get("duration") is not None:
            base = seconds(backoff["duration"], f"backoff duration of {where}")
            factor = float(text(backoff.get("factor") or 1))
            delay = base * factor ** (attempt - 1)
        if backoff.get("maxDuration") is not None:
            cap = seconds(backoff["maxDuration"], f"backoff maxDuration of {where}")
            if time.monotonic() - first + delay > cap:
                return None
        return delay * self.options.backoff_scale


def _with_outputs(scope: _Scope, kind: str, outputs: Mapping[str, Mapping[str, str]]) -> _Scope:
    """``tasks.NAME.outputs.parameters.P`` (or ``steps.``) of the nodes done so far."""
    return scope.child(
        {
            f"{kind}.{node}.outputs.parameters.{key}": value
            for node, params in outputs.items()
            for key, value in params.items()
        }
    )


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


def _read_outputs(job: ContainerJob, declared: Mapping[str, tuple[str, Any]]) -> dict[str, str]:
    values: dict[str, str] = {}
    for name, (path, default) in declared.items():
        local = job.outputs[name]
        if local.exists():
            values[name] = local.read_text().rstrip("\n")
        elif default is not None:
            values[name] = text(default)
        else:
            raise EngineError(f"failed to read output parameter {name!r} from {path}")
    return values
