"""DAG and steps templates: which child node starts when, and what each one can read.

A DAG task starts once every task its ``depends`` names is fulfilled, and the tasks that
can start run in parallel; the groups of a steps template run in order, the steps of a
group in parallel. Before a child starts, its ``when`` decides whether it runs and its
arguments are resolved against what it may see: the outputs and times of the nodes done so
far, the workflow's labels as they are now. Running the child itself is the engine's
(:mod:`.runner`), so a nested dag or steps template comes back here.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from typing import Any

from orchestrator.engine.conditions import WhenError, evaluate_when
from orchestrator.engine.depends import Decision, ancestors, dag_phase, task_rule
from orchestrator.engine.errors import EngineError
from orchestrator.engine.expressions import Scope, labels_json, rfc3339, substitute, substitute_all
from orchestrator.engine.model import NodeRecord, Phase
from orchestrator.engine.recorder import Recorder
from orchestrator.engine.templates import Template, Workflow, argument_values

OMITTED_MESSAGE = "omitted: depends condition not met"
"""The message ``executeDAGTask`` gives an Omitted node."""

Execute = Callable[[str, Template, Mapping[str, Any], Scope, bool, bool], NodeRecord]
"""Runs one child node: its name, template, arguments, scope, whether it belongs to the
exit handler, and whether it is a DAG task."""


class Scheduler:
    """Runs the children of dag and steps templates, each through ``execute``."""

    def __init__(self, workflow: Workflow, recorder: Recorder, execute: Execute) -> None:
        self.wf = workflow
        self.recorder = recorder
        self.execute = execute

    def boundary(
        self,
        tpl: Template,
        inputs: Mapping[str, str],
        scope: Scope,
        prefix: str,
        on_exit: bool,
    ) -> tuple[Phase, str]:
        """A dag or steps template run with its inputs: its phase and message once every
        child that started has ended."""
        inner = scope.child({f"inputs.parameters.{k}": v for k, v in inputs.items()})
        if tpl.kind == "dag":
            return self._dag(tpl, inner, prefix, on_exit)
        if tpl.kind == "steps":
            return self._steps(tpl, inner, prefix, on_exit)
        raise EngineError(f"template {tpl.label} is not a dag or steps template")

    def _dag(self, tpl: Template, scope: Scope, prefix: str, on_exit: bool) -> tuple[Phase, str]:
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
                            self.execute, prefix + name, task_tpl, args, values, on_exit, True
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

    def _steps(self, tpl: Template, scope: Scope, prefix: str, on_exit: bool) -> tuple[Phase, str]:
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
                        error = self.recorder.recorded(prefix + name, on_exit).message
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
                        pool.submit(
                            self.execute, prefix + name, step_tpl, args, values, on_exit, False
                        )
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

    def _live(self, scope: Scope, kind: str, prefix: str) -> Scope:
        """What changes while the run goes on, as the controller reads it on each pass:
        the labels (``workflow.labels``) and when the nodes done so far ran
        (``tasks.NAME.startedAt``/``finishedAt``/``status``, RFC 3339 in whole seconds)."""
        extra: dict[str, str] = {}
        recorder = self.recorder
        with recorder.lock:
            extra["workflow.labels"] = labels_json(recorder.labels)
            extra.update({f"workflow.labels.{k}": v for k, v in recorder.labels.items()})
            for full, node in recorder.record.nodes.items():
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

    def _when(
        self, item: Mapping[str, Any], values: Scope, name: str, tpl: Template, on_exit: bool
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
        node = self.recorder.node(name, tpl, on_exit)
        node.kind = ""
        self.recorder.finish(node, phase, message)
        return phase


def _with_outputs(scope: Scope, kind: str, outputs: Mapping[str, Mapping[str, str]]) -> Scope:
    """``tasks.NAME.outputs.parameters.P`` (or ``steps.``) of the nodes done so far."""
    return scope.child(
        {
            f"{kind}.{node}.outputs.parameters.{key}": value
            for node, params in outputs.items()
            for key, value in params.items()
        }
    )
