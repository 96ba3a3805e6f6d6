"""Which step runs for which node, and what the agent is told: with steps whose end the
test decides."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field

import pytest

from orchestrator.plugin.jobs import REQUEUE, Jobs, result_of
from orchestrator.plugin.protocol import StepCall


@dataclass
class End:
    exit_code: int | None
    message: str = ""
    outputs: dict[str, str] = field(default_factory=dict)
    timed_out: bool = False


class Step:
    """A started step: ends when the test says so."""

    def __init__(self) -> None:
        self.done: asyncio.Future[End] = asyncio.get_running_loop().create_future()
        self.text = ""
        self.killed = ""
        self.cleaned = False

    def message(self) -> str:
        return self.text

    def progress(self) -> str:
        return "1/2"

    def kill(self, reason: str = "") -> None:
        self.killed = reason or "killed"
        if not self.done.done():
            self.done.set_result(End(None, "stopped"))

    async def finished(self) -> End:
        return await asyncio.shield(self.done)

    def cleanup(self) -> None:
        self.cleaned = True


def call(node: str = "wf.deploy-dev(0)", outputs: tuple[str, ...] = ("commit",)) -> StepCall:
    return StepCall("wf", "argo", "uid-1", node, ("step", "promote"), outputs)


class Launcher:
    def __init__(self) -> None:
        self.started: list[StepCall] = []
        self.steps: list[Step] = []

    def __call__(self, step_call: StepCall) -> Step:
        self.started.append(step_call)
        step = Step()
        self.steps.append(step)
        return step


def run(coro: object) -> object:
    return asyncio.run(coro)  # type: ignore[arg-type]


def test_a_step_that_ends_within_the_call_is_answered_by_it() -> None:
    async def go() -> None:
        launch = Launcher()
        jobs = Jobs(launch, first_poll=5)
        asked = asyncio.ensure_future(jobs.execute(call()))
        await asyncio.sleep(0.05)
        launch.steps[0].done.set_result(End(0, "committed abc", {"commit": "abc"}))
        result, requeue = await asked
        assert (result.phase, result.message, result.outputs, requeue) == (
            "Succeeded",
            "committed abc",
            {"commit": "abc"},
            None,
        )
        assert launch.steps[0].cleaned

    run(go())


def test_a_longer_step_is_running_then_found_again_not_started_twice() -> None:
    async def go() -> None:
        launch = Launcher()
        jobs = Jobs(launch, first_poll=0.05, poll=5)
        launch_call = call()
        first, requeue = await jobs.execute(launch_call)
        assert (first.phase, first.progress, requeue) == ("Running", "1/2", REQUEUE)
        again = asyncio.ensure_future(jobs.execute(launch_call))
        await asyncio.sleep(0.05)
        launch.steps[0].done.set_result(End(75, "the push was refused"))
        result, requeue = await again
        assert (result.phase, result.exit_code, requeue) == ("Failed", 75, None)
        # asked again (the agent lost the answer): the same result, no second run
        kept, _ = await jobs.execute(launch_call)
        assert kept == result
        assert len(launch.started) == 1

    run(go())


def test_a_new_message_ends_a_poll_early() -> None:
    async def go() -> None:
        launch = Launcher()
        jobs = Jobs(launch, first_poll=0.01, poll=30)
        await jobs.execute(call())
        launch.steps[0].text = "waiting for shop-dev: Progressing"
        result, _ = await asyncio.wait_for(jobs.execute(call()), timeout=5)
        assert (result.phase, result.message) == ("Running", "waiting for shop-dev: Progressing")
        launch.steps[0].kill()

    run(go())


def test_each_retry_is_a_node_of_its_own() -> None:
    async def go() -> None:
        launch = Launcher()
        jobs = Jobs(launch, first_poll=0.01)
        await jobs.execute(call("wf.deploy-dev(0)"))
        await jobs.execute(call("wf.deploy-dev(1)"))
        assert [c.node for c in launch.started] == ["wf.deploy-dev(0)", "wf.deploy-dev(1)"]
        jobs.stop_all("going away")
        assert [s.killed for s in launch.steps] == ["going away", "going away"]

    run(go())


def test_finished_steps_are_forgotten_after_keep() -> None:
    now = [0.0]

    async def go() -> None:
        launch = Launcher()
        jobs = Jobs(launch, first_poll=0.01, keep=60, clock=lambda: now[0])
        asked = asyncio.ensure_future(jobs.execute(call()))
        await asyncio.sleep(0)
        launch.steps[0].done.set_result(End(0))
        await asked
        now[0] += 61
        other = asyncio.ensure_future(jobs.execute(call("wf.other(0)")))
        await asyncio.sleep(0)
        launch.steps[1].done.set_result(End(0))
        await other
        assert ("uid-1", "wf.deploy-dev(0)") not in jobs.jobs
        assert ("uid-1", "wf.other(0)") in jobs.jobs

    run(go())


@pytest.mark.parametrize(
    ("end", "phase", "message", "code"),
    [
        (End(0, "done", {"commit": "abc"}), "Succeeded", "done", 0),
        (End(75, "the server is down"), "Failed", "the server is down", 75),
        (End(1, ""), "Failed", "Error (exit code 1)", 1),
        (End(None, "Step exceeded its deadline of 5s", timed_out=True), "Failed",
         "Step exceeded its deadline of 5s", None),
    ],
)  # fmt: skip
def test_how_a_step_ended_is_the_node_s_result(
    end: End, phase: str, message: str, code: int | None
) -> None:
    result = result_of(call(outputs=("commit", "changed")), end)
    assert (result.phase, result.message, result.exit_code) == (phase, message, code)
    # every declared output is there, "" where the step wrote none (the template's default)
    assert set(result.outputs) == {"commit", "changed"}
    assert result.outputs["changed"] == ""


def test_a_result_that_cannot_be_read_is_an_error_node_not_a_crash() -> None:
    class Unreadable(Step):
        async def finished(self) -> End:
            raise FileNotFoundError(2, "No such file or directory")

    async def go() -> None:
        jobs = Jobs(lambda c: Unreadable(), first_poll=5)
        result, requeue = await jobs.execute(call())
        assert (result.phase, requeue) == ("Error", None)
        assert result.message == "could not read the step's result: No such file or directory"

    run(go())
