"""A doctor's finding: one line, ok / warn / fail, with the fix when it is not ok.

A ``fail`` is what stops promotions (exit 1); a ``warn`` what the doctor cannot tell or
what works but surprises (exit 0). No line holds a credential: lines are built from names
and from what servers said, scrubbed.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import asdict, dataclass
from typing import Any, Literal

Status = Literal["ok", "warn", "fail"]
STATUSES: tuple[Status, ...] = ("ok", "warn", "fail")


@dataclass(frozen=True)
class Line:
    family: str
    """What is checked, as the table groups it: ``Argo Server``, ``Git``."""
    check: str
    """Of what, in a few words: ``version``, ``shop-dev``."""
    status: Status
    detail: str
    fix: str = ""


def ok(family: str, check: str, detail: str) -> Line:
    return Line(family, check, "ok", detail)


def warn(family: str, check: str, detail: str, fix: str = "") -> Line:
    return Line(family, check, "warn", detail, fix)


def fail(family: str, check: str, detail: str, fix: str) -> Line:
    return Line(family, check, "fail", detail, fix)


def failed(lines: Iterable[Line]) -> bool:
    return any(line.status == "fail" for line in lines)


def exit_code(lines: Iterable[Line]) -> int:
    """0 when nothing fails (warnings pass), 1 otherwise."""
    return 1 if failed(lines) else 0


def as_json(lines: list[Line]) -> dict[str, Any]:
    counts = {status: sum(line.status == status for line in lines) for status in STATUSES}
    return {"ok": not failed(lines), "counts": counts, "checks": [asdict(line) for line in lines]}
