"""What the ``window`` step does: hold a promotion at its environment's promotion windows
until they open (or fail it at once where a window says ``whenClosed: fail``).

The windows come compiled into the step's arguments (only those that apply to the
product and environment); the state is worked out again at every look with the clock of
that moment, so a window that opens, or a run that reaches a freeze later, is seen as it
happens. Pure but for the clock and the sleep, which are given.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from orchestrator.errors import PromoflowError
from orchestrator.model.window import PromotionWindow
from orchestrator.windows.message import describe
from orchestrator.windows.state import WindowState, evaluate


class WindowClosed(PromoflowError):
    """The window is closed and the promotion may not wait (or cannot: it never opens)."""


def parse_windows(text: str) -> list[PromotionWindow]:
    """``--windows``: the JSON list of the PromotionWindows the compiler matched."""
    data: Any = json.loads(text) if text.strip() else []
    if not isinstance(data, list):
        raise ValueError("--windows must be a JSON list of PromotionWindow documents")
    return [PromotionWindow.model_validate(item) for item in data]


def hold(
    windows: list[PromotionWindow],
    *,
    poll: float,
    now: Callable[[], datetime] = lambda: datetime.now(UTC),
    sleep: Callable[[float], None],
    say: Callable[[str], None],
) -> tuple[WindowState, float]:
    """Wait until the windows are open; the state then and the seconds waited."""
    started = now()
    told = ""
    while True:
        moment = now()
        state = evaluate(windows, [], moment)
        if state.open:
            return state, (moment - started).total_seconds()
        text = describe(state)
        if state.when_closed == "fail":
            raise WindowClosed(f"{text}: this window fails a promotion it closes")
        if state.opens_at is None:
            raise WindowClosed(f"{text}: nothing to wait for")
        if text != told:
            say(text)
            told = text
        sleep(max(0.0, min(poll, (state.opens_at - moment).total_seconds())))
