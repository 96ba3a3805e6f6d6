"""Durations: ``15m``, ``1h30m``, ``500ms``, plain seconds; the short form round-trips."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from orchestrator.durations import format_duration, parse_duration


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("15m", timedelta(minutes=15)),
        ("1h30m", timedelta(hours=1, minutes=30)),
        ("500ms", timedelta(milliseconds=500)),
        ("2d", timedelta(days=2)),
        ("1m30s250ms", timedelta(seconds=90.25)),
        ("30m1h", timedelta(hours=1, minutes=30)),
        (" 45s ", timedelta(seconds=45)),
        ("0s", timedelta(0)),
        (90, timedelta(seconds=90)),
        (1.5, timedelta(seconds=1.5)),
        (0, timedelta(0)),
        (timedelta(minutes=3), timedelta(minutes=3)),
    ],
)
def test_parse(text: Any, expected: timedelta) -> None:
    assert parse_duration(text) == expected


@pytest.mark.parametrize("text", ["15", "m", "1x", "1h 30m", "1.5h", "-5m", "15M", "h1"])
def test_text_that_is_not_a_duration(text: str) -> None:
    with pytest.raises(ValueError) as exc:
        parse_duration(text)
    assert str(exc.value) == (
        f"{text!r} is not a duration: use numbers with units ms, s, m, h, d, e.g. '15m'"
    )


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("", "'' is not a duration: use numbers with units ms, s, m, h, d, e.g. '15m'"),
        (-1, "a duration cannot be negative"),
        (True, "expected a duration such as '30s', '15m' or '1h30m'"),
        (None, "expected a duration such as '30s', '15m' or '1h30m'"),
        ([15], "expected a duration such as '30s', '15m' or '1h30m'"),
    ],
)
def test_values_that_are_not_durations(value: Any, message: str) -> None:
    with pytest.raises(ValueError) as exc:
        parse_duration(value)
    assert str(exc.value) == message


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (timedelta(0), "0s"),
        (timedelta(minutes=15), "15m"),
        (timedelta(seconds=5400), "1h30m"),
        (timedelta(milliseconds=500), "500ms"),
        (timedelta(days=1, hours=1, minutes=1, seconds=1, milliseconds=1), "1d1h1m1s1ms"),
        (timedelta(hours=48), "2d"),
    ],
)
def test_format(value: timedelta, text: str) -> None:
    assert format_duration(value) == text


@given(st.integers(min_value=0, max_value=366 * 86_400_000))
def test_format_then_parse_is_identity_to_the_millisecond(millis: int) -> None:
    value = timedelta(milliseconds=millis)
    assert parse_duration(format_duration(value)) == value


@given(
    st.lists(
        st.tuples(st.integers(0, 100), st.sampled_from(["ms", "s", "m", "h", "d"])),
        max_size=3,
    )
)
def test_any_unit_text_parses_to_its_sum(parts: list[tuple[int, str]]) -> None:
    text = "".join(f"{n}{unit}" for n, unit in parts)
    seconds = {"ms": 0.001, "s": 1, "m": 60, "h": 3600, "d": 86400}
    if not text:
        with pytest.raises(ValueError):
            parse_duration(text)
        return
    expected = timedelta(seconds=sum(n * seconds[unit] for n, unit in parts))
    assert abs(parse_duration(text) - expected) < timedelta(milliseconds=1)
    # The short form is canonical: formatting again changes nothing.
    short = format_duration(parse_duration(text))
    assert format_duration(parse_duration(short)) == short


@pytest.mark.parametrize(
    ("value", "message"),
    [
        (float("inf"), "inf is not a duration: it must be a finite number of seconds"),
        (float("nan"), "nan is not a duration: it must be a finite number of seconds"),
        ("99999999999999d", "'99999999999999d' is longer than the maximum of 366 days"),
        ("367d", "'367d' is longer than the maximum of 366 days"),
        (10**400, "1" + "0" * 36 + "... is longer than the maximum of 366 days"),
        (
            "9" * 5000 + "s",
            "'999999999999999999999999999999999999... is not a duration: "
            "use numbers with units ms, s, m, h, d, e.g. '15m'",
        ),
    ],
)
def test_out_of_range_durations_are_refused_with_a_short_message(value: Any, message: str) -> None:
    with pytest.raises(ValueError) as exc:
        parse_duration(value)
    assert str(exc.value) == message


def test_the_longest_duration_is_accepted() -> None:
    assert parse_duration("366d") == timedelta(days=366)
