"""Which step runs for which node, and what the agent is told about it.

The agent calls once per node and again after each requeue this asks for, and it calls
again after a restart of its own. So a node's step is started by its first call only, and
found by every later one (:class:`Jobs`, keyed by the Workflow's UID and the node's name).

A call is answered as soon as the step ends, or after ``poll`` seconds with ``Running``,
the step's message and progress, and a requeue of 1 ms: the agent asks again at once,
so a step's end reaches the agent when it happens, not at a polling interval, and the
node shows the step's latest message meanwhile. The first answer for a node comes after
``first_poll`` seconds at most (a step that takes longer shows ``Running`` soon) and a
later one also ends early when the step's message changes.

A finished step's result is kept ``keep`` seconds, so a call that comes again (the agent
lost the answer) gets the result, never a second run.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Protocol

from orchestrator.plugin.protocol import ERROR, FAILED, RUNNING, SUCCEEDED, NodeResult, StepCall

REQUEUE = 0.001
"""Seconds before the agent asks again after a ``Running`` answer: at once."""


class Running(Protocol):
    """A started step (:class:`orchestrator.plugin.child.Child`)."""

    def message(self) -> str: ...
    def progress(self) -> str: ...
    def kill(self, reason: str = "") -> None: ...
    async def finished(self) -> Finished: ...
    def cleanup(self) -> None: ...


class Finished(Protocol):
    exit_code: int | None
    message: str
    outputs: dict[str, str]
    timed_out: bool


Launch = Callable[[StepCall], Running]


def result_of(call: StepCall, end: Finished) -> NodeResult:
    """The node's result from how its step ended, as the pod's would read: every declared
    output is present (``""`` where the step wrote none, the templates' ``default``), the
    exit code is in ``outputs.exitCode`` (the retry expression reads it), and a step that
    was killed is ``Failed`` (a pod past its deadline is)."""
    outputs = {name: end.outputs.get(name, "") for name in call.outputs}
    if end.exit_code == 0:
        return NodeResult(SUCCEEDED, end.message, outputs, 0)
    if end.exit_code is None:
        return NodeResult(FAILED, end.message, outputs, None)
    message = end.message or f"Error (exit code {end.exit_code})"
    return NodeResult(FAILED, message, outputs, end.exit_code)


@dataclass
class Job:
    call: StepCall
    running: Running
    task: asyncio.Task[NodeResult]
    reported: str = ""
    ended_at: float | None = None
    waiters: int = field(default=0)


class Jobs:
    """The steps of every node this server was asked about."""

    def __init__(
        self,
        launch: Launch,
        *,
        poll: float = 20.0,
        first_poll: float = 2.0,
        keep: float = 600.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.launch = launch
        self.poll = poll
        self.first_poll = first_poll
        self.keep = keep
        self.clock = clock
        self.jobs: dict[tuple[str, str], Job] = {}

    def __len__(self) -> int:
        return len(self.jobs)

    async def execute(self, call: StepCall) -> tuple[NodeResult, float | None]:
        """The node's result, or ``Running`` and the requeue to ask for."""
        self._forget_old()
        job = self.jobs.get(call.key)
        first = job is None
        if job is None:
            try:
                running = self.launch(call)
            except OSError as exc:  # fork or the scratch directory failed: Argo's "Error"
                return NodeResult(ERROR, f"could not start the step: {exc.strerror}"), None
            job = Job(call, running, asyncio.ensure_future(self._finish(call, running)))
            self.jobs[call.key] = job
        budget = self.first_poll if first else self.poll
        deadline = self.clock() + budget
        job.waiters += 1
        try:
            while not job.task.done():
                left = deadline - self.clock()
                if left <= 0:
                    break
                done, _ = await asyncio.wait({job.task}, timeout=min(left, 0.25))
                if not done and not first and job.running.message() != job.reported:
                    break  # a new message: show it now
        finally:
            job.waiters -= 1
        if job.task.done():
            return job.task.result(), None
        job.reported = job.running.message()
        progress = job.running.progress()
        return NodeResult(RUNNING, job.reported, progress=progress), REQUEUE

    async def _finish(self, call: StepCall, running: Running) -> NodeResult:
        try:
            end = await running.finished()
            result = result_of(call, end)
        except OSError as exc:  # its outputs could not be read: Argo's "Error", not a 500
            result = NodeResult(ERROR, f"could not read the step's result: {exc.strerror}")
        finally:
            running.cleanup()
        job = self.jobs.get(call.key)
        if job is not None:
            job.ended_at = self.clock()
        return result

    def _forget_old(self) -> None:
        now = self.clock()
        old = [
            key
            for key, job in self.jobs.items()
            if job.ended_at is not None and now - job.ended_at > self.keep and not job.waiters
        ]
        for key in old:
            del self.jobs[key]

    def stop_all(self, reason: str) -> None:
        """Kill every step still running (the server is going away)."""
        for job in self.jobs.values():
            if not job.task.done():
                job.running.kill(reason)
