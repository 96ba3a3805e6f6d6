"""A container node's attempts: one pod each (here a process), retried as Argo retries them.

On a cluster a container node with a ``retryStrategy`` is a Retry node with one pod per
attempt; after each failed attempt ``processNodeRetries`` decides whether another starts,
after which backoff, and how the node ends otherwise (:mod:`.retry`, pure). This module
carries those decisions out: it starts each attempt with its deadline (the pod's
``activeDeadlineSeconds``, or what is left of ``maxDuration`` when that is less), waits out
the backoffs and records every attempt on the node, whose outputs are the last attempt's
(:mod:`.outputs`).
"""

from __future__ import annotations

import functools
import threading
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from orchestrator.engine.errors import EngineError
from orchestrator.engine.executor import ContainerJob, ContainerResult, Executor, container_env
from orchestrator.engine.model import Attempt, NodeRecord, Phase, now
from orchestrator.engine.outputs import declared_outputs, mapped_dirs, read_outputs, remap
from orchestrator.engine.recorder import Recorder
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


class _Clock:
    """The clock retry decisions read: real time, moved on to the end of every backoff the
    run did not (fully) sleep, so ``maxDuration`` sees the backoff Argo would have waited."""

    def __init__(self) -> None:
        self.offset = 0.0

    def now(self) -> float:
        return time.time() + self.offset

    def reach(self, moment: float) -> None:
        self.offset = max(self.offset, moment - time.time())


class Attempts:
    """Runs the container nodes of one workflow run, one attempt per pod."""

    def __init__(
        self,
        *,
        workflow: str,
        workdir: Path,
        executor: Executor,
        pods: int,
        recorder: Recorder,
        sleep: Callable[[float], None],
        backoff_scale: float,
        transient_error_pattern: str | None,
    ) -> None:
        self.workflow = workflow
        self.workdir = workdir
        self.executor = executor
        self.pods = threading.BoundedSemaphore(max(1, pods))
        self.recorder = recorder
        self.sleep = sleep
        self.backoff_scale = backoff_scale
        self.transient_error_pattern = transient_error_pattern

    def run(self, node: NodeRecord, body: Mapping[str, Any], dag_task: bool) -> NodeRecord:
        """A container step: one attempt per pod, retried as ``processNodeRetries`` decides
        (see :mod:`.retry`); the node's outputs are the last attempt's."""
        container = body["container"]
        argv = [str(a) for a in (container.get("command") or []) + (container.get("args") or [])]
        env = container_env(container.get("env") or [], self.executor.host_env, node.name)
        outputs = declared_outputs(body)
        active_deadline = self._active_deadline(body.get("activeDeadlineSeconds"), node.name)
        raw = body.get("retryStrategy")
        strategy = RetryStrategy(raw, self.transient_error_pattern) if raw is not None else None
        node.retry_node = strategy is not None
        clock = _Clock()
        history: list[AttemptOutcome] = []
        execution_deadline: float | None = None
        attempt = 0
        while True:
            attempt += 1
            workdir = self.workdir / "nodes" / node.name / str(attempt)
            mapped = mapped_dirs({path for path, _ in outputs.values()}, workdir / "outputs")
            limit, by_execution = active_deadline, False
            if execution_deadline is not None:
                remaining = max(0.0, execution_deadline - clock.now())
                if limit is None or remaining < limit:
                    limit, by_execution = remaining, True
            job = ContainerJob(
                node=node.name,
                argv=[remap(a, mapped) for a in argv],
                env={k: remap(v, mapped) for k, v in env.items()},
                workdir=workdir,
                deadline=limit,
                outputs={n: Path(remap(path, mapped)) for n, (path, _) in outputs.items()},
                on_message=functools.partial(self._running_message, node, attempt),
            )
            for directory in mapped.values():
                directory.mkdir(parents=True, exist_ok=True)
            started, started_clock = now(), clock.now()
            with self.pods:
                result = self.executor.run(job)
            finished_clock = clock.now()
            phase = _phase(result)
            message = result.message
            if result.timed_out and by_execution:
                message = EXECUTION_DEADLINE_MESSAGE
            # the wait container saves output parameters whatever the main container did
            values, missing = read_outputs(job, outputs)
            if phase is Phase.SUCCEEDED and missing:
                phase, message = Phase.ERROR, missing
            node.attempts.append(Attempt(attempt, phase, result.exit_code, message, started, now()))
            node.outputs = values
            if phase is Phase.SUCCEEDED or strategy is None:
                return self.recorder.finish(node, phase, message)
            history.append(
                AttemptOutcome(phase, message, result.exit_code, started_clock, finished_clock)
            )
            # the attempt's pod has ended with its own message; the Retry node is still
            # deciding (and its final message will be the controller's, not the step's)
            node.message = message
            self.recorder.emit(node, attempt)
            try:
                step = strategy.next_step(history, clock.now())
                while isinstance(step, Wait):
                    node.message = step.message
                    self.recorder.emit(node, attempt)
                    decided = clock.now()
                    self.sleep(step.seconds * self.backoff_scale)
                    clock.reach(decided + step.seconds)
                    step = strategy.next_step(history, clock.now())
            except RetryError as exc:
                # executeTemplate marks the Retry node Error with the error; for a DAG task
                # executeDAGTask then overwrites it with "task '<node>' errored: <error>"
                where = "" if not dag_task else f"task '{self.workflow}.{node.name}' errored: "
                return self.recorder.finish(node, Phase.ERROR, f"{where}{exc}")
            if isinstance(step, Stop):
                return self.recorder.finish(node, step.phase, step.message)
            assert isinstance(step, Again)
            execution_deadline = step.deadline
            node.message = f"attempt {attempt} {phase.lower()}: {message}; retrying"
            self.recorder.emit(node, attempt)

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
        self.recorder.emit(node, attempt)


def _phase(result: ContainerResult) -> Phase:
    if result.error:
        return Phase.ERROR
    if result.timed_out or result.exit_code != 0:
        return Phase.FAILED
    return Phase.SUCCEEDED
