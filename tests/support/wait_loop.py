"""The deploy gate's wait loop run against a scripted source and a fake clock: every poll's
answer chosen by the test, no time passing but the loop's own."""

from __future__ import annotations

import copy
from collections.abc import Iterator
from typing import Any

from orchestrator.gates.appsource import SourceError
from orchestrator.gates.wait import Waiter, WaitOptions
from tests.support.gate_apps import SHA

App = dict[str, Any]


class Clock:
    def __init__(self) -> None:
        self.now = 0.0
        self.sleeps: list[float] = []

    def __call__(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.now += seconds


class ScriptedSource:
    """``streams`` is a list of stream sessions: each a list of app states or an exception."""

    def __init__(self, current: App | None, streams: list[Any], automated: bool = True) -> None:
        self.automated = automated
        self.current = self._policy(current)
        self.streams = list(streams)
        self.calls: list[str] = []
        self.synced: list[tuple[str, str]] = []
        self.synced_sources: list[list[str] | None] = []
        self.polls: list[App | None] = []

    def _policy(self, state: App | None) -> App | None:
        if state is not None and self.automated:
            state["spec"]["syncPolicy"] = {"automated": {"prune": True}}
        return state

    def get(self, name: str, *, refresh: bool = False) -> App | None:
        self.calls.append("refresh" if refresh else "get")
        if self.polls:
            self.current = self._policy(self.polls.pop(0))
        return copy.deepcopy(self.current)

    def sync(self, name: str, revision: str, revisions: list[str] | None = None) -> None:
        self.synced.append((name, revision))
        self.synced_sources.append(revisions)

    has_resource_tree = False

    def health_details(self, name: str, status: str) -> str:
        return ""

    def changes(self, names: list[str], timeout: float) -> Iterator[App]:
        self.calls.append("stream")
        if not self.streams:
            raise SourceError("no more streams", transient=True)
        session = self.streams.pop(0)
        if isinstance(session, Exception):
            raise session
        for state in session:
            self.current = state
            yield copy.deepcopy(state)


def wait(source: ScriptedSource, **options: Any) -> tuple[Any, Clock]:
    clock = Clock()
    seen: list[list[str]] = []
    waiter = Waiter(
        source,
        ["shop-dev"],
        SHA,
        WaitOptions(**{"poll_interval": 5.0, **options}),
        progress=lambda verdicts: seen.append([v.reason for v in verdicts]),
        clock=clock,
        sleep=clock.sleep,
    )
    result = waiter.run()
    result.progress = seen  # type: ignore[attr-defined]
    return result, clock
