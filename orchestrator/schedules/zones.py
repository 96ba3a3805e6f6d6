"""IANA time zones by name, with the closest names suggested for a typo.

The zones come from the system's zoneinfo database or, where a slim image has none, from
the ``tzdata`` package (a dependency for that reason), so a window means the same in a
step pod as on a laptop.
"""

from __future__ import annotations

import difflib
import functools
import zoneinfo
from zoneinfo import ZoneInfo

UTC_NAME = "UTC"


@functools.cache
def known() -> frozenset[str]:
    """Every zone name the database has (``Europe/Berlin``, ``UTC``, ...)."""
    return frozenset(zoneinfo.available_timezones() | {UTC_NAME})


@functools.cache
def _folded() -> dict[str, str]:
    return {name.casefold(): name for name in known()}


def closest(name: str, limit: int = 3) -> list[str]:
    """The known names nearest to ``name``: a different case first, then similar spelling
    (``Europe/Berln`` -> ``Europe/Berlin``, ``Berlin`` -> ``Europe/Berlin``)."""
    exact = _folded().get(name.casefold())
    if exact is not None:
        return [exact]
    by_city = sorted(n for n in known() if n.rsplit("/", 1)[-1].casefold() == name.casefold())
    if by_city:
        return by_city[:limit]
    return difflib.get_close_matches(name, sorted(known()), n=limit, cutoff=0.6)


class UnknownZone(ValueError):
    """A name that is no IANA zone; the message suggests the closest ones."""


def zone(name: str) -> ZoneInfo:
    """The zone called ``name``; ``UnknownZone`` with suggestions for anything else."""
    if name not in known():
        near = closest(name)
        hint = f" (did you mean {' or '.join(repr(n) for n in near)}?)" if near else ""
        raise UnknownZone(
            f"unknown time zone {name!r}{hint}; write an IANA name such as 'Europe/Berlin', "
            "'America/New_York' or 'UTC'"
        )
    return ZoneInfo(name)
