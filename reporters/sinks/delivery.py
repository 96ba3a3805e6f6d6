"""Delivering one sink's events from the outbox: in order, at least once, never lost.

Each sink has a worker of its own, so a slow or broken sink delays only itself. A failed
send is retried with exponential backoff (capped), honouring the receiver's
``Retry-After``; a token bucket keeps to the sink's rate; after the last attempt the event
stays in the store as a dead letter, with the reason. Events are taken oldest first and a
failure retries the oldest again, so a receiver sees one app's events in order.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from orchestrator.urls import scrub
from reporters.state.store import Store


class SinkError(Exception):
    """A send failed. ``retry_after``: what the receiver asked for; ``permanent``: trying
    again cannot help (a 4xx other than 408/429), so the event goes to the dead letters."""

    def __init__(self, reason: str, *, retry_after: float | None = None, permanent: bool = False):
        super().__init__(reason)
        self.retry_after = retry_after
        self.permanent = permanent


class Sink(Protocol):
    name: str

    def send(self, event: dict[str, Any]) -> None:
        """Deliver one CloudEvent (structured JSON); :class:`SinkError` when it fails."""
        ...


@dataclass
class TokenBucket:
    """``rate`` sends a second on average, ``burst`` at once."""

    rate: float
    burst: float
    clock: Callable[[], float] = time.monotonic
    _tokens: float = field(init=False)
    _at: float = field(init=False)

    def __post_init__(self) -> None:
        self._tokens, self._at = self.burst, self.clock()

    def wait(self) -> float:
        """Seconds to wait before the next send (0: send now, and the token is taken)."""
        now = self.clock()
        self._tokens = min(self.burst, self._tokens + (now - self._at) * self.rate)
        self._at = now
        if self._tokens >= 1:
            self._tokens -= 1
            return 0.0
        return (1 - self._tokens) / self.rate


@dataclass
class Policy:
    attempts: int = 12
    """With ``base`` and ``cap``: 5 minutes of waits before a dead letter, so a receiver
    down for five minutes loses nothing (Argo CD's controller tries a webhook 4 times,
    waiting 1, 2 and 4 s, and drops it)."""
    base: float = 0.5
    cap: float = 60.0
    rate: float = 50.0
    burst: float = 100.0

    def backoff(self, attempt: int, retry_after: float | None) -> float:
        wait = float(min(self.cap, self.base * 2 ** max(attempt - 1, 0)))
        return max(wait, min(retry_after, self.cap)) if retry_after is not None else wait


class Delivery:
    """The worker of one sink."""

    def __init__(
        self, store: Store, sink: Sink, policy: Policy | None = None, secrets: tuple[str, ...] = ()
    ) -> None:
        self.store = store
        self.secrets = secrets
        """Masked in the reasons kept in the store (a sink's exception may quote them)."""
        self.sink = sink
        self.policy = policy or Policy()
        self.bucket = TokenBucket(self.policy.rate, self.policy.burst)
        self.delivered = 0
        self.failed = 0
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._retired: list[Sink] = []
        """Sinks replaced, closed by the worker once no send of theirs can be running."""
        self._close = False
        self._thread = threading.Thread(target=self._run, name=f"sink {sink.name}", daemon=True)

    def start(self) -> Delivery:
        self._thread.start()
        return self

    def wake(self) -> None:
        self._wake.set()

    def replace(self, sink: Sink) -> None:
        """Deliver through ``sink`` (of the same name: the outbox is keyed by it) from the
        next event on: one being sent finishes with the sink it began with, and is marked
        delivered once, so nothing is lost or sent twice by the change."""
        self._retired.append(self.sink)
        self.sink = sink
        policy = getattr(sink, "policy", None) or Policy()
        if policy != self.policy:
            self.policy, self.bucket = policy, TokenBucket(policy.rate, policy.burst)
        self._wake.set()

    def stop(self, timeout: float = 10, *, close: bool = False) -> None:
        """``close``: the sink too, once its last send is done (a service removed)."""
        self._close = self._close or close
        self._stop.set()
        self._wake.set()
        self._thread.join(timeout)

    def drain_once(self) -> int:
        """One pass of the worker's loop, callable on its own to deliver synchronously:
        send what is pending until a failure; the number delivered."""
        sent = 0
        for row in self.store.pending(self.sink.name):
            sink = self.sink  # one sink for the whole of a send, even if replaced meanwhile
            wait = self.bucket.wait()
            while wait > 0:
                if self._stop.wait(wait):
                    return sent
                wait = self.bucket.wait()
            try:
                try:
                    sink.send(row.event)
                except SinkError:
                    raise
                except Exception as exc:  # a sink meeting data it cannot use: no retry helps
                    raise SinkError(f"{type(exc).__name__}: {exc}"[:300], permanent=True) from exc
            except SinkError as exc:
                attempt = row.attempts + 1
                dead = exc.permanent or attempt >= self.policy.attempts
                reason = scrub(str(exc), self.secrets)
                self.store.failed(sink.name, row.id, reason, dead=dead)
                self.failed += 1
                if not dead:
                    self._stop.wait(self.policy.backoff(attempt, exc.retry_after))
                return sent
            self.store.delivered(sink.name, row.id)
            self.delivered += 1
            sent += 1
        return sent

    def _run(self) -> None:
        while not self._stop.is_set():
            self._closed(self._retired)
            self._wake.clear()
            if not self.store.pending(self.sink.name, limit=1):
                self._wake.wait(1.0)
                continue
            self.drain_once()
        self._closed([*self._retired, *([self.sink] if self._close else [])])

    @staticmethod
    def _closed(sinks: list[Sink]) -> None:
        while sinks:
            close = getattr(sinks.pop(), "close", None)
            if close is not None:
                close()
