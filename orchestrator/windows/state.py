"""The window state of one (product, environment) at one instant.

Rules, each a sentence in the docs: a PromotionWindow applies where its selector selects
the pair (the policies' selector). Within one window, ``deny`` periods close and, when it
has ``allow`` entries, everything outside all of them is closed too; deny beats allow.
Across windows every one must agree to open: a window can only close, never open what
another closed (so a team's extra window is always safe to add). Overlapping periods
union. A manual freeze that selects the pair closes it until it is lifted. A promotion at
a closed window waits, unless one of the windows closing it says ``whenClosed: fail``.

The next change is searched for at most :data:`HORIZON` ahead; beyond it "not within N
days" is the answer, never an endless search.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Literal

from orchestrator.model.environment import Environment
from orchestrator.model.window import PromotionWindow, WhenClosed
from orchestrator.schedules.zones import UTC_NAME
from orchestrator.windows.freeze import Freeze
from orchestrator.windows.timeline import Timeline

HORIZON = timedelta(days=400)
"""How far ahead the next opening or closing is looked for: more than a year, so a
yearly freeze is always seen."""

Cause = Literal["deny", "allow", "freeze"]


@dataclass(frozen=True)
class Closure:
    """One reason the pair is closed at an instant."""

    cause: Cause
    """``deny``: inside a deny period; ``allow``: outside every allow period of a window
    that has some; ``freeze``: a manual freeze."""
    window: str
    """The PromotionWindow's name (empty for a freeze)."""
    label: str
    """What messages call it: the entry's name, else the window's; a freeze's reason."""
    zone: str
    """The zone of the entry, in which its times are shown (UTC for a freeze)."""
    until: datetime | None
    """When this reason alone stops holding (``None``: a freeze, or beyond the horizon)."""
    when_closed: WhenClosed = "wait"
    freeze: Freeze | None = None
    since: datetime | None = None
    """When this reason began (a deny period's start, a freeze's), where known."""


@dataclass(frozen=True)
class WindowState:
    """Open or closed at ``now``, why, and until when."""

    now: datetime
    open: bool
    closed_by: tuple[Closure, ...] = ()
    """Every reason it is closed at ``now`` (empty when open)."""
    opens_at: datetime | None = None
    """Closed: when it opens (``None`` while frozen by hand, or not within the horizon)."""
    closes_at: datetime | None = None
    """Open: when it next closes (``None`` when not within the horizon)."""
    decided_by: Closure | None = None
    """The reason whose end opens it (closed), or that closes it next (open)."""
    horizon: timedelta = HORIZON
    windows: tuple[str, ...] = field(default=())
    """The names of the windows that apply (matched the pair)."""

    @property
    def frozen(self) -> bool:
        """Closed by a manual freeze (it opens only when lifted)."""
        return any(c.cause == "freeze" for c in self.closed_by)

    @property
    def when_closed(self) -> WhenClosed:
        """``fail`` when any window closing it says so, else ``wait``."""
        fails = any(c.when_closed == "fail" for c in self.closed_by)
        return "fail" if fails else "wait"

    def message(self) -> str:
        from orchestrator.windows.message import describe

        return describe(self)


def matching(
    windows: Iterable[PromotionWindow], product: str, environment: Environment
) -> list[PromotionWindow]:
    """The windows that apply to ``product`` promoted into ``environment``."""
    return [w for w in windows if w.spec.selector.selects(product, environment)]


def window_state(
    windows: Iterable[PromotionWindow],
    product: str,
    environment: Environment,
    now: datetime,
    freezes: Iterable[Freeze] = (),
    horizon: timedelta = HORIZON,
) -> WindowState:
    """The state of (``product``, ``environment``) at ``now`` (an aware datetime)."""
    applying = matching(windows, product, environment)
    frozen = [f for f in freezes if f.selector.selects(product, environment)]
    return evaluate(applying, frozen, now, horizon)


@dataclass
class _Lane:
    """One window's timelines."""

    window: PromotionWindow
    deny: list[Timeline]
    allow: list[Timeline]

    def closures(self, at: datetime) -> list[Closure]:
        spec, name = self.window.spec, self.window.name
        found = []
        for line in self.deny:
            span = line.covers(at)
            if span is not None:
                entry = line.entry
                found.append(Closure("deny", name, entry.name or name, entry.time_zone,
                                     span.end, spec.when_closed, since=span.start))  # fmt: skip
        if self.allow and not any(line.covers(at) for line in self.allow):
            starts = [(b, line) for line in self.allow if (b := line.boundary(at)) is not None]
            first = min(starts, key=lambda pair: pair[0], default=None)
            entry = (first[1] if first else self.allow[0]).entry
            labels = sorted({line.entry.name or name for line in self.allow})
            found.append(Closure("allow", name, "outside " + ", ".join(labels),
                                 entry.time_zone, first[0] if first else None,
                                 spec.when_closed))  # fmt: skip
        return found

    def lines(self) -> list[Timeline]:
        return [*self.deny, *self.allow]


def evaluate(
    windows: Sequence[PromotionWindow],
    freezes: Sequence[Freeze],
    now: datetime,
    horizon: timedelta = HORIZON,
) -> WindowState:
    """The state at ``now`` under these windows and freezes (all already matched)."""
    if now.tzinfo is None:
        raise ValueError("now must be an aware datetime (the logic never guesses a zone)")
    now = now.astimezone(UTC)
    until = now + horizon
    lanes = [
        _Lane(
            w,
            [Timeline(e, now, until) for e in w.spec.deny],
            [Timeline(e, now, until) for e in w.spec.allow],
        )
        for w in windows
    ]
    names = tuple(w.name for w in windows)
    held = [Closure("freeze", "", f.reason, UTC_NAME, None, "wait", f, f.since) for f in freezes]
    closed_by = [*held, *(c for lane in lanes for c in lane.closures(now))]
    if held:
        return WindowState(now, False, tuple(closed_by), decided_by=held[0], horizon=horizon,
                           windows=names)  # fmt: skip
    change, deciding = _next_change(lanes, now, until, closed_by)
    if closed_by:
        return WindowState(now, False, tuple(closed_by), opens_at=change, decided_by=deciding,
                           horizon=horizon, windows=names)  # fmt: skip
    return WindowState(now, True, closes_at=change, decided_by=deciding, horizon=horizon,
                       windows=names)  # fmt: skip


def _next_change(
    lanes: list[_Lane], now: datetime, until: datetime, closed_by: list[Closure]
) -> tuple[datetime | None, Closure | None]:
    """The first instant after ``now`` at which open turns closed or closed turns open, and
    the reason that decides it (the last one to end, or the first one to begin)."""
    lines = [line for lane in lanes for line in lane.lines()]
    at, previous = now, closed_by
    while True:
        boundaries = [b for line in lines if (b := line.boundary(at)) is not None]
        if not boundaries or min(boundaries) > until:
            return None, _latest(previous) if closed_by else None
        at = min(boundaries)
        current = [c for lane in lanes for c in lane.closures(at)]
        if bool(current) != bool(closed_by):
            return at, (_ending(previous, at, closed_by) if closed_by else current[0])
        previous = current


def _ending(reasons: list[Closure], at: datetime, first: list[Closure]) -> Closure:
    """Of the reasons that held until ``at``, the one ending there; of several, one that
    already held at the start, and of those the longest-standing (a holiday freeze, not
    the weekend inside it, is what kept it shut)."""
    ending = [c for c in reasons if c.until == at] or [_latest(reasons)]
    held = {(c.cause, c.window, c.label) for c in first}
    far = datetime.max.replace(tzinfo=UTC)
    return min(
        ending,
        key=lambda c: ((c.cause, c.window, c.label) not in held, c.since or far),
    )


def _latest(reasons: list[Closure]) -> Closure:
    far = datetime.max.replace(tzinfo=UTC)
    return max(reasons, key=lambda c: c.until or far)
