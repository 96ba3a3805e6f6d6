"""Wait until Argo CD runs a commit: the loop around :func:`deployed.assess`.

The loop is the same whichever way Argo CD is reached (its API server or the Kubernetes API);
an :class:`AppSource` hides the difference. It reacts to change events when the source can
stream them, so a promotion moves on the moment the app is Healthy, and falls back to polling
with backoff when the stream is unavailable or drops; after every reconnect it re-reads the
state, so a dropped stream loses nothing.

Two deadlines, as the policy states them: ``sync_timeout`` for the apps to be Synced at the
commit, then ``health_timeout`` from that moment for them to turn Healthy. Where the
promoted image is known, a deployed app must then run it (:mod:`orchestrator.gates.running`);
an app that keeps showing another image for ``image_settle`` seconds fails the gate. Argo CD being
unreachable (a transient :class:`SourceError`) is retried until the deadline in force, one
log line per retry (:mod:`orchestrator.gates.retrying`), and then reported as what it was;
a permanent error (a host name that does not resolve, a refused token) ends the wait at once.
"""

from __future__ import annotations

import functools
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from typing import Any

from orchestrator.argocd_shapes import is_automated
from orchestrator.gates import retrying
from orchestrator.gates.appsource import App, AppSource, SourceError
from orchestrator.gates.deployed import (
    NO_MESSAGE,
    State,
    Verdict,
    assess,
    overall,
    sync_revisions,
    synced_revisions,
)
from orchestrator.gates.running import Expected, Workloads, judge, shown_running, summary_images

IMAGE_SETTLE = 5.0
"""Seconds a deployed app may show another image than the promoted one before the gate
fails: the status of one reconcile may still list the pods of the previous one."""


@dataclass(frozen=True)
class WaitOptions:
    sync_timeout: float = 900.0
    health_timeout: float = 900.0
    health: bool = True
    repo: str | None = None
    poll_interval: float = 5.0
    """Polling fallback interval (the stream is used whenever the source offers it)."""
    max_poll_interval: float = 30.0
    stream: bool = True
    sync_if_manual: bool = True
    image: Expected | None = None
    """The promoted image every deployed app must run (``None``: not checked)."""
    image_settle: float = IMAGE_SETTLE


@dataclass
class WaitResult:
    state: str
    """deployed | failed | timeout"""
    verdicts: list[Verdict]
    seconds: float
    reconnects: int = 0
    synced_apps: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.state == "deployed"

    @property
    def reason(self) -> str:
        if self.state == "deployed":
            return "; ".join(str(v) for v in self.verdicts)
        bad = [v for v in self.verdicts if v.state != "deployed"] or self.verdicts
        prefix = "timed out: " if self.state == "timeout" else ""
        return prefix + "; ".join(str(v) for v in bad)


Progress = Callable[[list[Verdict]], None]
Equivalence = Callable[[App, str, str], bool]
"""``(app, sha, rev)``: does commit ``rev`` hold the same content as ``sha`` for ``app``?"""


def _synced(verdict: Verdict) -> bool:
    """Past the sync phase: only health (or nothing) is left to wait for."""
    return verdict.state == "deployed" or verdict.health_only


class Waiter:
    """One wait: ``Waiter(source, apps, sha, options).run()``."""

    def __init__(
        self,
        source: AppSource,
        apps: list[str],
        sha: str,
        options: WaitOptions,
        *,
        progress: Progress | None = None,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], None] = time.sleep,
        equivalence: Equivalence | None = None,
        log: Callable[[str], None] | None = None,
    ) -> None:
        if not apps:
            raise ValueError("no applications to wait for")
        self.source, self.apps, self.sha, self.options = source, apps, sha, options
        self.progress = progress or (lambda _v: None)
        self.clock, self.sleep = clock, sleep
        self.state: dict[str, App | None] = {}
        self.reconnects = 0
        self._last: list[Verdict] = []
        self._reported: list[tuple[str, str]] = []
        """What progress said last (state and reason per app)."""
        self._raw: list[Verdict] = []
        """The last verdicts as :func:`assess` gave them, before any explanation."""
        self._events: Iterator[App] | None = None
        self._opened = 0.0
        self._stream_deadline = 0.0
        self._seen = 0
        self.equivalence = equivalence
        self._same: dict[tuple[str, str], bool] = {}
        self._explanations: dict[str, tuple[Verdict, Verdict]] = {}
        """Per app: the last verdict explained from its resources, and its explanation."""
        self.log = log or _step_log
        self._other_image_since: float | None = None
        """When every app was first deployed but one showed another image than promoted."""

    def _same_as_sha(self, name: str) -> Callable[[str], bool] | None:
        """The app's answer to "does this later commit deploy what SHA holds?" (cached)."""
        check, app = self.equivalence, self.state.get(name)
        if check is None or app is None:
            return None

        def same(rev: str) -> bool:
            key = (name, rev)
            if key not in self._same:
                self._same[key] = check(app, self.sha, rev)
            return self._same[key]

        return same

    def _assess(self) -> list[Verdict]:
        verdicts = [
            assess(
                self.state.get(name),
                name,
                self.sha,
                repo=self.options.repo,
                health=self.options.health,
                same=self._same_as_sha(name),
            )
            for name in self.apps
        ]
        self._raw = verdicts
        verdicts = [self._explained(v) for v in verdicts]
        # deployed, with an image to check: reported once checked (by ``_images``)
        checking = self.options.image is not None and overall(verdicts) == "deployed"
        if not checking:
            self._report(verdicts)
        self._last = verdicts
        return verdicts

    def _report(self, verdicts: list[Verdict]) -> None:
        """Progress, when it says something new."""
        said: list[tuple[str, str]] = [(v.state, v.reason) for v in verdicts]
        if said != self._reported:
            self.progress(verdicts)
        self._reported = said

    def _explained(self, verdict: Verdict, *, final: bool = False) -> Verdict:
        """A verdict whose health carried no message gets its resources' reasons (Argo CD 3
        keeps them in the resource tree only): asked once per change of the app's state,
        and afresh for the final report. A source without the tree says where to look in
        the final report only."""
        if not verdict.unexplained:
            return verdict
        if not (final or verdict.state == "failed" or self.source.has_resource_tree):
            return verdict
        last = self._explanations.get(verdict.app)
        if last is not None and last[0] == verdict and not final:
            return last[1]
        details = self.source.health_details(verdict.app, verdict.unexplained)
        explained = verdict
        if details and verdict.reason.endswith(NO_MESSAGE):
            explained = replace(verdict, reason=verdict.reason[: -len(NO_MESSAGE)] + details)
        elif details:
            explained = replace(verdict, reason=f"{verdict.reason}: {details}")
        self._explanations[verdict.app] = (verdict, explained)
        return explained

    def _read_all(self, refresh: bool = False) -> None:
        for name in self.apps:
            self.state[name] = self.source.get(name, refresh=refresh)

    def _start(self) -> list[str]:
        """Hard-refresh every app; sync the ones without automated sync that are behind."""
        self._read_all(refresh=True)
        synced: list[str] = []
        if not self.options.sync_if_manual:
            return synced
        for name in self.apps:
            app = self.state[name]
            if app is None or is_automated(app):
                continue
            # A hard refresh compares with the new commit first, so ``sync.revision`` may
            # already be SHA while nothing is applied: OutOfSync there is still behind.
            status = ((app.get("status") or {}).get("sync") or {}).get("status")
            at_sha = all(rev == self.sha for rev in synced_revisions(app, self.options.repo))
            behind = status != "Synced" or not at_sha
            if behind and not app.get("operation"):
                self.source.sync(name, self.sha, sync_revisions(app, self.options.repo, self.sha))
                synced.append(name)
                self.state[name] = self.source.get(name)
        return synced

    def _images(
        self, verdicts: list[Verdict], expected: Expected, now: float, deadline: float
    ) -> tuple[list[Verdict], State]:
        """Every app deployed: does each run the promoted image? ``deployed`` when they
        all do; ``failed`` when one has shown another for ``image_settle`` seconds;
        ``waiting`` (for the app to change) until then."""
        checked = []
        for verdict in verdicts:
            app = self.state.get(verdict.app) or {}
            summary = summary_images(app)
            workloads: Workloads | None = None
            if not shown_running(expected, summary):  # no pod listed runs it: ask the workloads
                read = functools.partial(self.source.workloads, verdict.app, app)
                workloads = self._call(read, deadline)
            checked.append(judge(verdict, expected, summary, workloads))
        self._report(checked)
        if all(v.state == "deployed" for v in checked):
            self._other_image_since = None
            return checked, "deployed"
        if self._other_image_since is None:
            self._other_image_since = now
        if now - self._other_image_since >= self.options.image_settle:
            return checked, "failed"
        return checked, "waiting"

    def run(self) -> WaitResult:
        try:
            return self._run()
        finally:
            self._close()

    def _run(self) -> WaitResult:
        started = self.clock()
        sync_deadline = started + self.options.sync_timeout
        synced = self._call(self._start, sync_deadline)
        health_deadline: float | None = None
        interval = self.options.poll_interval
        use_stream = self.options.stream
        while True:
            verdicts = self._assess()
            state = overall(verdicts)
            now = self.clock()
            if health_deadline is None and all(_synced(v) for v in verdicts):
                health_deadline = now + self.options.health_timeout
            deadline = health_deadline if health_deadline is not None else sync_deadline
            settled = deadline
            if state == "deployed" and self.options.image is not None:
                verdicts, state = self._images(verdicts, self.options.image, now, deadline)
                if state == "waiting" and self._other_image_since is not None:
                    settled = min(deadline, self._other_image_since + self.options.image_settle)
            if state != "waiting":
                return WaitResult(state, verdicts, now - started, self.reconnects, synced)
            if now >= deadline:
                verdicts = [self._explained(v, final=True) for v in self._raw]
                return WaitResult("timeout", verdicts, now - started, self.reconnects, synced)
            # ``settled``: when to look again (an image settling ends before the deadline);
            # Argo CD being unreachable is still retried until the wait's own deadline, so
            # a settling image ends in a verdict, not in "gave up"
            if use_stream:
                try:
                    outcome = self._follow(settled)
                except SourceError as exc:
                    if not exc.transient:
                        use_stream = False  # e.g. no stream endpoint: poll from now on
                    outcome = "failed"
                if outcome == "changed":
                    interval = self.options.poll_interval
                    continue
                self.reconnects += 1
                if outcome == "dropped":
                    # re-read what may have changed while disconnected, then reconnect
                    self._call(self._read_all, deadline)
                    continue
            # no stream, or it keeps failing: poll, backing off while nothing changes
            self.sleep(min(interval, max(settled - self.clock(), 0.0)))
            interval = min(interval * 1.5, self.options.max_poll_interval)
            self._call(self._read_all, deadline)

    def _follow(self, deadline: float) -> str:
        """Apply stream events until an app of ours changes state.

        The stream stays open across changes (no event is lost between two calls). Returns
        ``changed``, ``dropped`` (it ended after delivering events, or after a while: re-read
        and reconnect) or ``failed`` (it ended at once: poll instead, so a server that
        closes every stream cannot make this spin).
        """
        if self._events is not None and deadline < self._stream_deadline:
            self._close()  # open for longer than this wait may take (an image settling)
        if self._events is None:
            self._opened, self._seen = self.clock(), 0
            self._stream_deadline = deadline
            remaining = max(deadline - self._opened, 0.0)
            self._events = iter(self.source.changes(self.apps, timeout=remaining))
        try:
            for app in self._events:
                self._seen += 1
                name = (app.get("metadata") or {}).get("name")
                if name in self.apps:
                    self.state[name] = None if app.get("_deleted") else app
                    before = [(v.state, v.reason) for v in self._last]
                    if [(v.state, v.reason) for v in self._assess()] != before:
                        return "changed"
                    if self._other_image_since is not None:
                        return "changed"  # its pods may show the promoted image now
                if self.clock() >= deadline:
                    return "changed"  # back to the loop, which reports the timeout
        except BaseException:
            self._close()
            raise
        self._close()
        if self._seen or self.clock() - self._opened >= 1.0:
            return "dropped"
        return "failed"

    def _close(self) -> None:
        events, self._events = self._events, None
        close = getattr(events, "close", None)
        if close is not None:
            close()

    def _call(self, fn: Callable[[], Any], deadline: float) -> Any:
        """Retry transient failures with backoff until ``deadline``; then raise the last
        one, saying that the step gave up and when."""
        try:
            return retrying.until(
                fn,
                deadline=deadline,
                log=self.log,
                first_wait=min(self.options.poll_interval / 5 or 0.2, 1.0),
                max_wait=self.options.max_poll_interval,
                clock=self.clock,
                sleep=self.sleep,
            )
        except SourceError as exc:
            if not exc.transient:
                raise
            when = retrying.wall_time(deadline, self.clock)
            raise SourceError(
                f"{exc}; gave up at {when} (the wait's deadline)", transient=True
            ) from None


def _step_log(message: str) -> None:
    from orchestrator import progress

    progress.log(message)


def wait_deployed(
    source: AppSource,
    apps: list[str],
    sha: str,
    options: WaitOptions,
    progress: Progress | None = None,
) -> WaitResult:
    """Block until every app runs ``sha`` and is healthy, fails, or the deadline passes."""
    return Waiter(source, apps, sha, options, progress=progress).run()
