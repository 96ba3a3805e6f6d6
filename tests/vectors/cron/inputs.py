"""The inputs of the cron vectors: schedules, zones and start instants for robfig/cron v3.

``python inputs.py | GOFLAGS=-mod=mod nice go run . > vectors.jsonl``, run in this directory,
regenerates the committed vectors with the real library (Go's own zone data, embedded). The
schedules cover what a window's ``schedule`` may say (ranges, steps, lists, month and day
names, day-of-month with day-of-week, descriptors), what it must refuse, and starts right
before the daylight-saving transitions of zones that shift by an hour (Europe/Berlin,
America/New_York) and by half an hour (Australia/Lord_Howe).
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterator

GRAMMAR = [
    # ranges and steps
    "0 9-17 * * *", "*/15 * * * *", "5/20 * * * *", "0 */3 * * *", "0 1-23/4 * * *",
    "10-50/20 8 * * *", "0 0 1-31/10 * *", "*/1 */1 * * *", "0 0 */100 * *",
    # lists
    "0 8,12,18 * * *", "15,45 6 * * 1,3,5", "0 0 1,15,28-31 * *", "0 6 * 1,4-6,12 *",
    # names, any case
    "0 9 * JAN,JUL MON", "0 9 * * MON-FRI", "30 6 * jan-mar/2 sun", "0 0 * * Sat,sun",
    "0 12 * AUG-DEC/2 *", "0 0 * * SUN-SAT", "0 0 * * tue/2",
    # day of month with day of week: robfig ORs them when neither is a star
    "0 0 13 * FRI", "0 12 1,15 * MON", "0 0 */2 * MON", "0 0 1 * */2", "0 0 1-7 * 1",
    "0 0 ? * MON", "0 0 1 * ?", "0 0 * * 0", "0 0 */1 * MON", "0 0 1 * */1",
    # descriptors
    "@daily", "@midnight", "@weekly", "@hourly", "@monthly", "@yearly", "@annually",
    # rare days: leap days, months without a 31st, a day that never comes
    "0 0 29 2 *", "0 0 31 * *", "0 0 30 2 *", "0 0 31 4,6,9,11 *", "0 0 29 2 MON",
    # the same as stars
    "? ? ? ? ?", "* * * * *",
]  # fmt: skip
REFUSED = [
    "", "* * * *", "* * * * * *", "0 0 L * *", "0 0 * * MON#2", "0 0 * * 5L", "60 * * * *",
    "0 24 * * *", "0 0 0 * *", "0 0 32 * *", "0 0 * 0 *", "0 0 * 13 *", "0 0 * * 7",
    "5-1 * * * *", "*/0 * * * *", "1-2-3 * * * *", "1/2/3 * * * *", "-1 * * * *",
    "x * * * *", "0 0 * * MONDAY", "0 0 * FOO *", "@every 1h", "@reboot", "@weekly 1",
    "0 0 * * mon-", "0 0 1W * *", "0 0 LW * *", "*/x * * * *", "0 0 * jan-1 *",
]  # fmt: skip
LOOSE = ["*-5 * * * *", "1,,2 * * * *", "+5 * * * *", "0 0 * * MON,", "0 0 ,1 * *"]
"""Text robfig accepts by accident (a star with a range, empty list items, a plus sign):
promoflow refuses them, see the differences in orchestrator/schedules/cron.py."""

ZONES = ["UTC", "Europe/Berlin", "America/New_York", "Australia/Lord_Howe"]
DST_SPECS = [
    "30 2 * * *", "0 2 * * *", "59 1 * * *", "0 3 * * *", "*/30 * * * *", "0 * * * *",
    "15 1 * * *", "45 1 * * *", "0 0 * * *", "30 1,2,3 * * SUN", "*/20 0-4 * * *",
    "0 16 * * 5", "0 8 * * 1-5", "45 2 * * *",
]  # fmt: skip
TRANSITIONS = {
    # a day before each change, in UTC: spring forward, then fall back
    "Europe/Berlin": ["2026-03-28T00:00:00Z", "2026-10-24T00:00:00Z"],
    "America/New_York": ["2026-03-07T05:00:00Z", "2026-10-31T04:00:00Z"],
    "Australia/Lord_Howe": ["2026-10-02T14:00:00Z", "2026-04-03T13:00:00Z"],
}


def _random_start(rng: random.Random) -> str:
    day = rng.randrange(0, 3 * 365)
    seconds = rng.randrange(0, 86400)
    year, rest = 2025 + day // 365, day % 365
    month, mday = 1 + rest // 31 % 12, 1 + rest % 28
    hh, mm, ss = seconds // 3600, seconds // 60 % 60, seconds % 60
    return f"{year}-{month:02}-{mday:02}T{hh:02}:{mm:02}:{ss:02}Z"


def inputs() -> Iterator[dict[str, object]]:
    rng = random.Random(20261127)
    for spec in GRAMMAR:
        for zone in ("UTC", "Europe/Berlin"):
            for start in ("2026-01-01T00:00:00Z", _random_start(rng)):
                yield {"spec": spec, "zone": zone, "start": start, "n": 12}
    for spec in REFUSED + LOOSE:
        yield {"spec": spec, "zone": "UTC", "start": "2026-01-01T00:00:00Z", "n": 3}
    for zone, starts in TRANSITIONS.items():
        for spec in DST_SPECS:
            for start in starts:
                yield {"spec": spec, "zone": zone, "start": start, "n": 12}
    for spec in ("30 2 * * *", "*/30 1-3 * * *", "0 0 1 * *"):
        for zone in ZONES:
            yield {"spec": spec, "zone": zone, "start": _random_start(rng), "n": 40}


if __name__ == "__main__":
    for item in inputs():
        print(json.dumps(item))
