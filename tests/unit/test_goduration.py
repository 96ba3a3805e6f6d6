"""Go's ``time.ParseDuration`` and Argo's ``ParseStringToDuration``, checked against vectors
the real Go runtime produced (tests/vectors/goduration: seeded random text and edge cases).

Every value the compiler hands to Argo, and every duration the local engine reads, goes
through these functions; a difference from Go here would be a node that runs locally and
errors on a cluster (the ``7d`` approvals did exactly that).
"""

from __future__ import annotations

import json
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from orchestrator.durations import DurationError, format_go, parse_argo, parse_go

VECTORS = Path(__file__).resolve().parents[1] / "vectors" / "goduration" / "vectors.jsonl"


def _vectors() -> list[dict[str, Any]]:
    return [json.loads(line) for line in VECTORS.read_text(encoding="utf-8").splitlines()]


ALL = _vectors()


def test_the_vectors_cover_both_outcomes() -> None:
    assert len(ALL) > 1000
    assert sum(v["go_ns"] is not None for v in ALL) > 300
    assert sum(v["go_ns"] is None for v in ALL) > 300


@pytest.mark.parametrize("vector", ALL, ids=lambda v: repr(v["in"])[:30])
def test_parse_go_agrees_with_go(vector: dict[str, Any]) -> None:
    if vector["go_ns"] is None:
        with pytest.raises(DurationError) as exc:
            parse_go(vector["in"])
        assert str(exc.value) == vector["go_error"]
    else:
        assert parse_go(vector["in"]) == vector["go_ns"]


@pytest.mark.parametrize("vector", ALL, ids=lambda v: repr(v["in"])[:30])
def test_parse_argo_agrees_with_argo(vector: dict[str, Any]) -> None:
    if vector["argo_seconds"] is None:
        with pytest.raises(DurationError) as exc:
            parse_argo(vector["in"])
        assert str(exc.value) == vector["argo_error"]
    else:
        assert parse_argo(vector["in"]) == pytest.approx(float(vector["argo_seconds"]))


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (timedelta(days=7), "168h"),
        (timedelta(days=2), "48h"),
        (timedelta(days=1, hours=12), "36h"),
        (timedelta(minutes=90), "1h30m"),
        (timedelta(seconds=90.25), "1m30s250ms"),
        (timedelta(0), "0s"),
    ],
)
def test_format_go_writes_no_days(value: timedelta, text: str) -> None:
    assert format_go(value) == text


@given(st.integers(min_value=0, max_value=366 * 86_400_000))
def test_format_go_parses_back_in_go_and_in_argo(millis: int) -> None:
    text = format_go(timedelta(milliseconds=millis))
    assert parse_go(text) == millis * 1_000_000
    assert parse_argo(text) == pytest.approx(millis / 1000)
