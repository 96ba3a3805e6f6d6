"""``time.Duration`` as templates see it: :mod:`orchestrator.golang.durations` with the
methods a template may call (``.Hours``, ``.Round``...) and ``ParseDuration``'s failures as
the errors a template function returns.
"""

from __future__ import annotations

from orchestrator.golang import durations as go
from orchestrator.golang.durations import HOUR, MINUTE, SECOND, duration_string
from orchestrator.golang.durations import MICRO as US
from orchestrator.golang.durations import MILLI as MS
from orchestrator.golang.durations import NANO as NS
from reporters.gotemplate.values import GoError, GoFunc

__all__ = ["HOUR", "MINUTE", "MS", "NS", "SECOND", "US", "Duration", "parse_duration"]
_D = "time.Duration"


class Duration(go.Duration):
    """A Go ``time.Duration`` (nanoseconds) with its methods."""

    def go_methods(self) -> dict[str, GoFunc]:
        d = int(self)
        return {
            "String": GoFunc(lambda: duration_string(d), (), returns="string"),
            "Hours": GoFunc(lambda: go.in_units(d, HOUR), (), returns="float64"),
            "Minutes": GoFunc(lambda: go.in_units(d, MINUTE), (), returns="float64"),
            "Seconds": GoFunc(lambda: go.in_units(d, SECOND), (), returns="float64"),
            "Milliseconds": GoFunc(lambda: go.truncate_duration(d, MS) // MS, (), returns="int64"),
            "Microseconds": GoFunc(lambda: go.truncate_duration(d, US) // US, (), returns="int64"),
            "Nanoseconds": GoFunc(lambda: d, (), returns="int64"),
            "Abs": GoFunc(lambda: Duration(go.abs_duration(d)), (), returns=_D),
            "Round": GoFunc(lambda m: Duration(go.round_duration(d, m)), (_D,), returns=_D),
            "Truncate": GoFunc(lambda m: Duration(go.truncate_duration(d, m)), (_D,), returns=_D),
        }


def parse_duration(s: str) -> Duration:
    """``time.ParseDuration``; Go's error text as the function's error."""
    try:
        return Duration(go.parse_duration(s))
    except go.DurationError as exc:
        raise GoError(str(exc)) from None
