"""Semantic version ranges as registries' users write them: ``>=1.2 <2``, ``^1.4``,
``~1.4.2``, ``1.x``, alternatives joined by ``||``.

Versions are parsed by the ``semver`` library; it has no ranges, so the few range forms
people use (those of npm and of Go's Masterminds semver, which Kargo and Helm read) are
expanded here into comparisons. Tags may carry a ``v`` and leave out the minor or patch
number (``v1.4``). As in those tools, a pre-release (``2.0.0-rc.1``) satisfies a range only
when one of its comparisons names a pre-release of the same ``major.minor.patch``.
"""

from __future__ import annotations

import operator
import re
from collections.abc import Callable
from dataclasses import dataclass

from semver import Version

_COMPARATOR = re.compile(r"^(>=|<=|!=|==|=|>|<|\^|~>|~)?\s*v?([0-9xX*][0-9A-Za-z.+\-xX*]*)$")
_OPS: dict[str, Callable[[Version, Version], bool]] = {
    ">=": operator.ge,
    "<=": operator.le,
    ">": operator.gt,
    "<": operator.lt,
    "=": operator.eq,
    "!=": operator.ne,
}


class RangeError(ValueError):
    """A range that cannot be read; the message quotes the part that is wrong."""


@dataclass(frozen=True)
class Comparison:
    op: str
    version: Version

    def holds(self, version: Version) -> bool:
        return _OPS[self.op](version, self.version)


Range = tuple[tuple[Comparison, ...], ...]
"""Alternatives (``||``), each a conjunction of comparisons."""


def version_of(tag: str) -> Version | None:
    """The version a tag names (``v1.4`` -> 1.4.0), or None if it names none."""
    text = tag.strip().removeprefix("v").removeprefix("V")
    try:
        return Version.parse(text, optional_minor_and_patch=True)
    except (ValueError, TypeError):
        return None


def _partial(text: str) -> tuple[list[int], str]:
    """``1.4`` -> ([1, 4], ""); ``1.x`` -> ([1], ""); ``1.2.3-rc.1`` -> ([1,2,3], "rc.1")."""
    core, _, pre = text.partition("-")
    core = core.split("+", 1)[0]
    numbers: list[int] = []
    wild = False
    for part in core.split("."):
        if part in ("x", "X", "*"):
            wild = True
        elif wild or not part.isdigit():
            raise RangeError(f"{text!r} is not a version")
        else:
            numbers.append(int(part))
    if len(numbers) > 3 or (pre and len(numbers) < 3):
        raise RangeError(f"{text!r} is not a version")
    return numbers, pre


def _version(numbers: list[int], pre: str = "") -> Version:
    padded = [*numbers, 0, 0, 0][:3]
    try:
        return Version(padded[0], padded[1], padded[2], prerelease=pre or None)
    except ValueError as exc:
        raise RangeError(str(exc)) from None


def _bump(numbers: list[int], index: int) -> Version:
    kept = [*numbers[:index], numbers[index] + 1]
    return _version(kept, "")


def _expand(op: str, text: str) -> list[Comparison]:
    numbers, pre = _partial(text)
    low = _version(numbers, pre)
    if op in ("^",):
        if not numbers:
            return [Comparison(">=", low)]
        first = next((i for i, n in enumerate(numbers) if n != 0), len(numbers) - 1)
        return [Comparison(">=", low), Comparison("<", _bump(numbers, first))]
    if op in ("~", "~>"):
        if not numbers:
            return [Comparison(">=", low)]
        index = 1 if len(numbers) > 1 else 0
        return [Comparison(">=", low), Comparison("<", _bump(numbers, index))]
    if len(numbers) < 3 and op in ("", "=", "=="):  # 1.4 and 1.4.x: the whole of 1.4
        if not numbers:
            return [Comparison(">=", low)]
        return [Comparison(">=", low), Comparison("<", _bump(numbers, len(numbers) - 1))]
    if len(numbers) < 3 and op in (">", "<="):  # >1.4 means above all of 1.4
        upper = _bump(numbers, len(numbers) - 1) if numbers else low
        return [Comparison(">=" if op == ">" else "<", upper)]
    return [Comparison({"": "=", "==": "="}.get(op, op), low)]


def parse_range(text: str) -> Range:
    if not text.strip():
        raise RangeError("the range is empty")
    alternatives = []
    for alternative in text.split("||"):
        parts = re.findall(r"(?:>=|<=|!=|==|=|>|<|\^|~>|~)?\s*[^\s,]+", alternative.strip())
        if not parts:
            raise RangeError(f"{text!r}: an alternative of || is empty")
        comparisons: list[Comparison] = []
        for part in parts:
            match = _COMPARATOR.match(part.strip())
            if match is None:
                raise RangeError(f"{part.strip()!r} in {text!r} is not a comparison")
            comparisons += _expand(match.group(1) or "", match.group(2))
        alternatives.append(tuple(comparisons))
    return tuple(alternatives)


def satisfies(tag: str, text: str) -> bool:
    """Whether ``tag`` names a version within the range ``text``."""
    version = version_of(tag)
    if version is None:
        return False
    for comparisons in parse_range(text):
        if version.prerelease and not any(
            c.version.prerelease and c.version.finalize_version() == version.finalize_version()
            for c in comparisons
        ):
            continue
        if all(c.holds(version) for c in comparisons):
            return True
    return False
