"""Changes as both APIs stream them, and the mailboxes that carry them to open streams.

Changes happen on any thread (scenario code, the controller, request handlers); streams
are served on the server's event loop. A :class:`Subscription` is the hand-over point.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

App = dict[str, Any]


@dataclass(frozen=True)
class Event:
    """One change, as both APIs report it: the object as it was right after the change."""

    resource_version: int
    type: str
    """ADDED | MODIFIED | DELETED"""
    app: App


@dataclass(frozen=True)
class StreamEnd:
    """Tells an open stream to close, optionally after sending ``error``."""

    error: str | None = None


class HistoryExpired(Exception):
    """A watch asked for changes older than the retained history (HTTP 410 in Kubernetes)."""

    def __init__(self, requested: int, oldest: int) -> None:
        super().__init__(f"too old resource version: {requested} ({oldest})")
        self.requested = requested
        self.oldest = oldest


class Subscription:
    """An open stream's mailbox. Changes happen on any thread, streams are served on the
    server's event loop, so items are handed over with ``call_soon_threadsafe``."""

    def __init__(
        self,
        loop: asyncio.AbstractEventLoop,
        on_close: Callable[[Subscription], None],
    ) -> None:
        self.loop = loop
        self._on_close = on_close
        self.queue: asyncio.Queue[Event | StreamEnd] = asyncio.Queue()
        self.initial: list[App] = []
        """The current objects, for a stream that starts with ADDED events."""
        self.backlog: list[Event] = []
        """Changes after the requested resourceVersion, for a resumed watch."""

    def push(self, item: Event | StreamEnd) -> None:
        with contextlib.suppress(RuntimeError):  # the loop is gone: the server stopped
            self.loop.call_soon_threadsafe(self.queue.put_nowait, item)

    async def next(self, timeout: float | None = None) -> Event | StreamEnd:
        """The next item; a :class:`StreamEnd` when ``timeout`` seconds pass first."""
        item = await self.wait(timeout)
        return StreamEnd() if item is None else item

    async def wait(self, timeout: float | None = None) -> Event | StreamEnd | None:
        """The next item, or ``None`` when ``timeout`` seconds pass first."""
        try:
            return await asyncio.wait_for(self.queue.get(), timeout)
        except TimeoutError:
            return None

    def close(self) -> None:
        """Stop receiving changes (the stream ended)."""
        self._on_close(self)
