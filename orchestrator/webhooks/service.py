"""What a verified delivery becomes: parsed, mapped to promotions, checked against the
branch and submitted exactly once. Everything here is decided without HTTP, so the app
(:mod:`orchestrator.webhooks.app`) only moves bytes in and out of it.

A service remembers what repeats: the parse of a body it has seen (the deliveries of one
push carry the same bytes), what a push starts, the starts refused by the branch check,
and the checks under way, so redeliveries, more hooks and sender retries are answered from
memory and only a push's first delivery asks the Git server and the Argo Server.
"""

from __future__ import annotations

import asyncio
import dataclasses
import hashlib
import json
import time
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from starlette.concurrency import run_in_threadpool

from orchestrator.adapters.giterrors import GitError
from orchestrator.adapters.gitreads import NotRemembered
from orchestrator.loading import Config
from orchestrator.problems import suggest
from orchestrator.webhooks import freshness, registry
from orchestrator.webhooks.events import (
    Event,
    GitPush,
    Ignored,
    ImagePush,
    Incoming,
    Ping,
    PromotionAsked,
    Refused,
)
from orchestrator.webhooks.freshness import BranchReader
from orchestrator.webhooks.logfields import MAX_FIELD, MAX_MESSAGE, printable
from orchestrator.webhooks.metrics import Metrics
from orchestrator.webhooks.payloads import body_hash
from orchestrator.webhooks.secrets import Secrets, variable
from orchestrator.webhooks.submit import Run, Submissions, Unavailable
from orchestrator.webhooks.triggers import (
    Outcome,
    Plans,
    Skip,
    for_image,
    for_push,
    for_request,
)

if TYPE_CHECKING:
    from orchestrator.webhooks.configfollow import Follower

DEFAULT_MAX_BODY = 1 << 20
READY_TTL = 2.0
BODY_TIMEOUT = 10.0
"""Seconds a sender has to send its whole body once its headers arrived (slower: 408 and
the connection closed), so slow senders cannot hold connections open."""
MAX_RUNS = 300
"""Characters of the runs a log line names (a few run names; more are cut short)."""


@dataclass
class Reply:
    status: int
    message: str
    outcome: str
    runs: list[Run] = field(default_factory=list)
    skipped: tuple[Skip, ...] = ()
    headers: dict[str, str] = field(default_factory=dict)
    delivery: str = ""
    """The sender's id of the delivery, once it is authenticated (else it names nothing)."""
    _encoded: bytes | None = field(default=None, repr=False, compare=False)

    def encoded(self) -> bytes:
        """:meth:`body` as JSON bytes (as Starlette's JSONResponse writes them), made once
        per reply: a remembered duplicate's answer is not encoded again."""
        if self._encoded is None:
            self._encoded = json.dumps(
                self.body(), ensure_ascii=False, allow_nan=False, indent=None, separators=(",", ":")
            ).encode()
        return self._encoded

    def body(self) -> dict[str, Any]:
        """The JSON answer; texts that can repeat the sender's words (a ref, a product) are
        escaped and bounded as in the log."""
        data: dict[str, Any] = {"message": printable(self.message, MAX_MESSAGE)}
        if self.status < 300:
            data["promotions"] = [run.as_dict() for run in self.runs]
        if self.skipped:
            data["skipped"] = [
                {
                    "product": printable(s.product, MAX_MESSAGE),
                    "reason": printable(s.reason, MAX_MESSAGE),
                }
                for s in self.skipped
            ]
        return data

    def log_line(self, label: str, elapsed: float) -> str:
        """The delivery's one line: every field escaped and bounded, so the line is too."""
        runs = printable(",".join(r.name for r in self.runs), MAX_RUNS)
        return (
            f"{label} {self.status} {self.outcome} "
            f"delivery={printable(self.delivery, MAX_FIELD) or '-'} runs={runs or '-'} "
            f"{elapsed * 1000:.1f}ms: {printable(self.message, MAX_MESSAGE)}"
        )


@dataclass
class Service:
    """Everything a delivery needs; the app only moves bytes in and out of it."""

    config: Config
    submissions: Submissions
    secrets: Secrets
    reader: BranchReader
    max_body: int = DEFAULT_MAX_BODY
    body_timeout: float = BODY_TIMEOUT
    metrics: Metrics = field(default_factory=Metrics)
    _ready: tuple[float, str | None] = (0.0, "not checked yet")
    _events: OrderedDict[tuple[str, bytes, tuple[str, ...]], Event] = field(
        default_factory=OrderedDict
    )
    _outcomes: OrderedDict[GitPush | ImagePush, Outcome] = field(default_factory=OrderedDict)
    _refusals: OrderedDict[tuple[GitPush | ImagePush, int], Skip] = field(
        default_factory=OrderedDict
    )
    """A push's starts refused by the check against the branch, by (event, start)."""
    _checks: dict[
        tuple[GitPush | ImagePush, tuple[int, ...]], asyncio.Future[dict[int, Skip | None]]
    ] = field(default_factory=dict)
    """Checks under way, shared by the deliveries of one event that arrive meanwhile."""
    _answers: OrderedDict[GitPush | ImagePush, Reply] = field(default_factory=OrderedDict)
    """The answer to a push every run of which this process found submitted already: the
    same for every later delivery of it (a run submitted stays submitted)."""
    follower: Follower | None = None
    """Set when the configuration is followed in Git: it swaps :attr:`config`."""
    _generation: int = 0
    """Configurations swapped in so far: what a delivery computed under an earlier one is
    not remembered for later deliveries."""

    def swap(self, config: Config) -> None:
        """Serve ``config`` from now on. Called on the event loop, so it happens between two
        deliveries' steps: the configuration and the plans change together, and what was
        remembered of earlier pushes (their outcomes under the old configuration) goes."""
        submissions = Submissions(config, self.submissions.settings, self.submissions.backend)
        self.config, self.submissions = config, submissions
        self._generation += 1
        self._outcomes.clear()
        self._refusals.clear()
        self._answers.clear()

    def admit(self, name: str, incoming: Incoming) -> tuple[registry.Provider, str]:
        """The provider and its secret, if the headers and the path prove what they can
        (the provider's ``authorize``); :class:`Refused` otherwise. Reads no body: a
        request without a credential costs O(headers)."""
        provider = registry.get(name)
        if provider is None:
            known = registry.providers()
            raise Refused(
                404,
                f"unknown provider '{printable(name, 40)}'{suggest(name[:40], known)}; "
                f"one of: {', '.join(known)}",
            )
        if incoming.path_token and not provider.url_token:
            raise Refused(404, f"{provider.title} deliveries go to /webhooks/{name}")
        secret = self.secrets.get(name)
        if secret is None:
            raise Refused(
                403,
                f"deliveries from {provider.title} are not accepted here: no secret is "
                f"configured ({variable(name)} or {variable(name)}_FILE)",
            )
        provider.authorize(incoming, secret)
        return provider, secret

    async def handle(self, provider: registry.Provider, incoming: Incoming) -> Reply:
        """A delivery whose body the provider verified: parsed, mapped, submitted."""
        name = provider.name
        event = self._meaning(provider, incoming)
        # what this delivery submits with, whatever configuration is swapped in meanwhile
        submissions, generation = self.submissions, self._generation
        follower = self.follower
        if follower is not None:
            if isinstance(event, GitPush) and follower.wants(event):
                follower.nudge()
            if (why := follower.not_ready()) is not None and not isinstance(event, Ping):
                raise Unavailable(why, transient=True)
        if isinstance(event, Ping):
            return Reply(200, event.reason, "ping")
        if isinstance(event, Ignored):
            return Reply(200, f"nothing to promote: {event.reason}", "ignored")
        if not isinstance(event, PromotionAsked) and (known := self._answers.get(event)):
            for run in known.runs:
                self.metrics.duplicates.labels(run.product).inc()
            return dataclasses.replace(known, headers={})
        outcome = await self._outcome(event, submissions.plans)
        delivery = f"{name}:{provider.delivery_id(incoming) or body_hash(incoming)}"
        if outcome.starts and not isinstance(event, PromotionAsked):
            outcome = await self._current(event, outcome, delivery, submissions)
        refusals = [s for s in outcome.skips if s.refused]
        if not outcome.starts and refusals:
            status = min(s.status for s in refusals)  # a stale push (409) says the most
            raise Refused(status, "; ".join(f"{s.product}: {s.reason}" for s in refusals))
        skipped = outcome.skips
        if not outcome.starts:
            return Reply(200, f"nothing to promote: {outcome.reason}", "no_promotion", [], skipped)
        runs = [
            await submissions.submit(start, start.identity or delivery) for start in outcome.starts
        ]
        for run in runs:
            counter = self.metrics.submissions if run.created else self.metrics.duplicates
            counter.labels(run.product).inc()
        created = [r for r in runs if r.created]
        words = ", ".join(
            f"{r.name} ({'submitted' if r.created else 'already submitted'})" for r in runs
        )
        reply = Reply(
            202, f"promoting: {words}", "submitted" if created else "duplicate", runs, skipped
        )
        if (
            not created
            and not isinstance(event, PromotionAsked)
            and generation == self._generation
            and self._lasting(event, runs)
        ):
            _bounded_put(self._answers, event, reply)
        return reply

    def _lasting(self, event: GitPush | ImagePush, runs: list[Run]) -> bool:
        """Whether a duplicate's answer holds for every later delivery of ``event``: each
        start names its run by the event (the commit, the digest), not by the delivery,
        and none was refused by the branch check this time."""
        outcome = self._outcomes.get(event)
        if outcome is None or len(runs) != len(outcome.starts):
            return False
        return all(start.identity for start in outcome.starts)

    def _meaning(self, provider: registry.Provider, incoming: Incoming) -> Event:
        """The provider's parse, remembered: the deliveries of one push (hooks,
        redeliveries, retries) carry the same body and event type."""
        headers = tuple(incoming.header(h) for h in (*provider.parse_headers, "content-type"))
        key = (provider.name, hashlib.sha256(incoming.body).digest(), headers)
        found = self._events.get(key)
        if found is None:
            found = provider.parse(incoming)
            _bounded_put(self._events, key, found)
        return found

    async def _outcome(self, event: GitPush | ImagePush | PromotionAsked, plans: Plans) -> Outcome:
        """What the event starts, remembered for pushes (a commit and the configuration
        never change under a running service)."""
        if isinstance(event, PromotionAsked):
            return for_request(event, plans)
        found = self._outcomes.get(event)
        if found is None:
            generation = self._generation
            found = await self._decide(event, plans)
            if generation == self._generation:
                _bounded_put(self._outcomes, event, found)
        return found

    async def _decide(self, event: GitPush | ImagePush, plans: Plans) -> Outcome:
        if isinstance(event, ImagePush):
            return for_image(event, plans)
        remembered = getattr(self.reader, "remembered", None)
        if remembered is not None:
            try:  # on the event loop when nothing has to be fetched
                return for_push(event, plans, remembered())
            except NotRemembered:
                pass
        try:
            return await run_in_threadpool(for_push, event, plans, self.reader)
        except GitError as exc:
            raise Unavailable(f"cannot read the pushed commits: {exc}", transient=True) from None

    async def _current(
        self,
        event: GitPush | ImagePush,
        outcome: Outcome,
        delivery: str,
        submissions: Submissions,
    ) -> Outcome:
        """``outcome`` without what would move a version backwards, checked against the
        branch as it is now (:mod:`orchestrator.webhooks.freshness`). Only a push's first
        delivery here asks the Git server for the tip:

        - starts this process submitted recently are duplicates that start nothing;
        - a push refused once stays refused: its commit was not the tip and was older, or
          not on the branch, and the branch only comes back to it by another push, which
          is an event of its own (a registry event is checked each time: what the
          environment holds can go back, by a rollback);
        - deliveries of one event that arrive while its check is under way share it (they
          name the same runs, so one answer holds for all)."""
        found: dict[int, Skip | None] = {}
        todo: list[int] = []
        for i, start in enumerate(outcome.starts):
            if submissions.seen(start, start.identity or delivery):
                found[i] = None
            elif (refusal := self._refusals.get((event, i))) is not None:
                found[i] = refusal
            else:
                todo.append(i)
        if todo:
            found.update(await self._check(event, outcome, tuple(todo), submissions.plans))
        return freshness.combine(outcome, found)

    async def _check(
        self,
        event: GitPush | ImagePush,
        outcome: Outcome,
        todo: tuple[int, ...],
        plans: Plans,
    ) -> dict[int, Skip | None]:
        key = (event, todo)
        pending = self._checks.get(key)
        if pending is None:
            push = isinstance(event, GitPush)
            pending = asyncio.ensure_future(self._timed(outcome, push, todo, plans))
            self._checks[key] = pending
            generation = self._generation
            pending.add_done_callback(lambda done: self._checked(key, done, push, generation))
        try:
            return await asyncio.shield(pending)
        except GitError as exc:
            raise Unavailable(f"cannot read the branch's tip: {exc}", transient=True) from None

    async def _timed(
        self, outcome: Outcome, push: bool, todo: tuple[int, ...], plans: Plans
    ) -> dict[int, Skip | None]:
        with self.metrics.branch_checks.time():
            return await run_in_threadpool(
                freshness.verdicts, outcome, push, plans, self.reader, todo
            )

    def _checked(
        self,
        key: tuple[GitPush | ImagePush, tuple[int, ...]],
        done: asyncio.Future[dict[int, Skip | None]],
        push: bool,
        generation: int,
    ) -> None:
        self._checks.pop(key, None)
        if not push or done.cancelled() or done.exception() is not None:
            return
        if generation != self._generation:  # checked against another configuration's plans
            return
        event = key[0]
        for i, refusal in done.result().items():
            if refusal is not None:
                _bounded_put(self._refusals, (event, i), refusal)

    async def aclose(self) -> None:
        """Close the backend's connections (at shutdown)."""
        close = getattr(self.submissions.backend, "aclose", None)
        if close is not None:
            await close()

    async def readiness(self) -> str | None:
        """None when ready, else why not; the Argo Server is asked at most every 2 s."""
        if self.follower is not None and (why := self.follower.not_ready()) is not None:
            return why
        checked, reason = self._ready
        now = time.monotonic()
        if now - checked < READY_TTL:
            return reason
        try:
            await self.submissions.backend.ready()
            reason = None
        except Unavailable as exc:
            reason = str(exc)
        self._ready = (now, reason)
        return reason


REMEMBERED = 1024
"""Parsed events and their outcomes kept per service (the recent pushes)."""


def _bounded_put(memory: OrderedDict[Any, Any], key: Any, value: Any) -> None:
    memory[key] = value
    if len(memory) > REMEMBERED:
        memory.popitem(last=False)
