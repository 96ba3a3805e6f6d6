"""Which of two versions of a product is the newer: what keeps replays from moving back.

A product's versions are ordered one way (``spec.triggers.order``), the same for every
check: the webhook service refusing a replayed push or registry event that would bring an
older version, and the promote step refusing to write a version older than the one the
target environment holds. ``semver`` (the default) reads versions as image tags are
written (``v1.4`` is 1.4.0, through :func:`orchestrator.semverrange.version_of`);
``numeric`` compares the numbers within the text in turn (``build-9`` before ``build-10``);
``lexical`` compares the text (dates such as ``2024-05-01.3``); ``none`` orders nothing, so
every version may replace every other (and a replay may then move an environment back).

Two versions the order cannot compare (``latest`` under ``semver``) are not guessed at:
:func:`compare` answers None and each caller says what it does about it.
"""

from __future__ import annotations

import re
from typing import Literal, get_args

from orchestrator.semverrange import version_of

Order = Literal["semver", "numeric", "lexical", "none"]
ORDERS: tuple[str, ...] = get_args(Order)
DEFAULT: Order = "semver"

_NUMBERS = re.compile(r"[0-9]+")


def check_order(text: str) -> Order:
    """``text`` as an order, or ValueError naming the ones there are."""
    if text not in ORDERS:
        raise ValueError(f"{text!r} is not a version order (one of {', '.join(ORDERS)})")
    return text  # type: ignore[return-value]


def _numbers(text: str) -> tuple[int, ...] | None:
    found = tuple(int(n) for n in _NUMBERS.findall(text))
    return found or None


def compare(older: str, newer: str, order: Order = DEFAULT) -> int | None:
    """Negative when ``older`` comes before ``newer``, 0 when they are the same version,
    positive when after; None when ``order`` cannot compare them. Equal texts are the same
    version under every order, ``none`` included."""
    if older == newer:
        return 0
    if order == "semver":
        a, b = version_of(older), version_of(newer)
        if a is None or b is None:
            return None
        return a.compare(b)
    if order == "numeric":
        x, y = _numbers(older), _numbers(newer)
        if x is None or y is None:
            return None
        return (x > y) - (x < y)
    if order == "lexical":
        return (older > newer) - (older < newer)
    return None


def is_older(version: str, than: str, order: Order = DEFAULT) -> bool | None:
    """Whether ``version`` comes before ``than`` (None: the order cannot say)."""
    found = compare(version, than, order)
    return None if found is None else found < 0
