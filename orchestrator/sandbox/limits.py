"""What one render may use, and the budget that counts and times it as it runs.

A single C-level call cannot be interrupted, so sizes are checked before each operator,
method or filter runs (:class:`Limits`); a render made of many small steps is stopped by
counting them and reading the clock at each (:func:`budget`, :func:`step`). Both are kept
apart from Jinja so that any template engine promoflow accepts can share them: it calls
:func:`step` at each unit of its work inside a :func:`budget`.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any, NoReturn

from jinja2.exceptions import SecurityError


@dataclass(frozen=True)
class Limits:
    """What one render may use. The defaults leave room for any message a chat, an issue
    tracker or a webhook receiver accepts (Slack: 40,000 characters) and for loops over
    every resource of a large app, while a runaway render is stopped within a second."""

    max_length: int = 262_144
    """Characters of the output, and characters or items of any value made on the way."""
    max_int_bits: int = 4_096
    """Bits of any integer computed (a 1,233-digit number)."""
    max_steps: int = 200_000
    """Steps of one render: loop iterations, calls, filters and operators."""
    max_seconds: float = 1.0
    """Wall time of one render."""

    def check_length(self, size: int, what: str) -> None:
        """Refuse to make ``what`` if it would be ``size`` characters or items long."""
        if size >= UNBOUNDED:
            raise LimitError(f"{what} would be longer than the limit of {self.max_length:,}")
        if size > self.max_length:
            raise LimitError(
                f"{what} would be {size:,} long, over the limit of {self.max_length:,}"
            )

    def check_bits(self, bits: int, what: str) -> None:
        if bits > self.max_int_bits:
            raise LimitError(f"{what} makes a number over {self.max_int_bits:,} bits")

    def check_value(self, value: Any, what: str) -> Any:
        """``value``, made by ``what``, if it is within the limits."""
        if isinstance(value, int):
            self.check_bits(value.bit_length(), what)
        else:
            self.check_length(size_of(value), what)
        return value


LIMITS = Limits()


UNBOUNDED = sys.maxsize
"""What a size estimate says of a result it cannot bound."""


class LimitError(SecurityError):
    """A render refused or stopped: it would have gone past one of its :class:`Limits`."""


def size_of(value: Any) -> int:
    """Characters or items of ``value`` (0 for what has neither)."""
    return len(value) if isinstance(value, str | bytes | list | tuple | dict | set) else 0


class _Budget:
    """The steps and time left to one render."""

    def __init__(self, limits: Limits) -> None:
        self.steps = 0
        self.max_steps = limits.max_steps
        self.seconds = limits.max_seconds
        self.deadline = time.monotonic() + limits.max_seconds

    def stop(self) -> NoReturn:
        if self.steps > self.max_steps:
            raise LimitError(f"stopped after {self.max_steps:,} steps")
        raise LimitError(f"stopped after {self.seconds:g} s")


_BUDGET: ContextVar[_Budget | None] = ContextVar("template_budget", default=None)
"""The budget of the render running in this context, if any (compiling a template
folds constants through the same filters, outside any render)."""


@contextmanager
def budget(limits: Limits = LIMITS) -> Iterator[None]:
    """Count and time the steps run in this context (this thread) until the block ends:
    any template engine calls :func:`step` at each unit of its work inside."""
    token = _BUDGET.set(_Budget(limits))
    try:
        yield
    finally:
        _BUDGET.reset(token)


def step() -> None:
    """One unit of a render's work: a loop's iteration, a call (of a macro too), a filter,
    an operator. Each is bounded in size, so counting them and reading the clock at each
    bounds the whole render (a filter's own loop over a bounded list, looking up an
    attribute of each item, is one step)."""
    current = _BUDGET.get()
    if current is not None:
        current.steps += 1
        if current.steps > current.max_steps or time.monotonic() > current.deadline:
            current.stop()
