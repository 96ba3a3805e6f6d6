"""orchestrator.golang: the Go semantics expr, templates and the local engine share.

Each package's vectors prove the shared modules through its own API; these cases pin the
points where the shared modules decide between what the packages did before (Go's own
answers, written out from the Go documentation and the vectors).
"""

from __future__ import annotations

import pytest

from orchestrator.golang import argocd_repo, regexp
from orchestrator.golang.durations import DurationError, duration_string, parse_duration
from orchestrator.golang.fmt import Printer, Spec
from orchestrator.golang.gotime import UTC, Time, Zone
from orchestrator.golang.jsonenc import MarshalError, marshal
from orchestrator.golang.printf import sprintf
from orchestrator.golang.timelayout import TimeParseError, parse_rfc3339, parse_time

PRINTER = Printer()


@pytest.mark.parametrize(
    ("value", "text"),
    [(float("inf"), "+Inf"), (float("-inf"), "-Inf"), (float("nan"), "NaN"), (1e6, "1e+06"),
     ({"b": 1, "a": [None, True]}, "map[a:[<nil> true] b:1]")],
)  # fmt: skip
def test_v_prints_as_go(value: object, text: str) -> None:
    assert PRINTER.format_value(value, Spec()) == text


def test_printf_reports_a_wrong_verb_with_the_type_the_printer_is_given() -> None:
    assert sprintf(PRINTER, "%d|%5.1f", "x", 2.25) == "%!d(string=x)|  2.2"


def test_an_omitted_year_is_year_zero() -> None:
    assert parse_time("15:04:05", "10:00:00").format("2006-01-02T15:04:05Z07:00") == (
        "0000-01-01T10:00:00Z"
    )


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("2024-01-02T10:61:00Z", 'parsing time "2024-01-02T10:61:00Z": minute out of range'),
        ("2024-02-30T10:00:00Z", 'parsing time "2024-02-30T10:00:00Z": day out of range'),
        ("2024-01-02 10:00:00Z", 'parsing time "2024-01-02 10:00:00Z" as '
         '"2006-01-02T15:04:05Z07:00": cannot parse " 10:00:00Z" as "T"'),
    ],
)  # fmt: skip
def test_rfc3339_errors_are_gos(text: str, message: str) -> None:
    with pytest.raises(TimeParseError) as exc:
        parse_rfc3339(text)
    assert str(exc.value) == message


def test_an_offset_is_kept_and_zero_is_utc() -> None:
    assert parse_rfc3339("2024-03-05T07:33:03.5+01:30") == Time(
        1709618583, 500_000_000, Zone("", 5400)
    )
    assert parse_rfc3339("2024-03-05T07:33:03+00:00").zone == UTC


def test_durations_print_and_parse_as_go() -> None:
    assert duration_string(parse_duration("1h30m0.5s")) == "1h30m0.5s"
    with pytest.raises(DurationError, match='unknown unit "d" in duration "2d"'):
        parse_duration("2d")


@pytest.mark.parametrize("pattern", ["\\B", "(x{2}){3}", "x{01}", "(?=a)"])
def test_patterns_python_reads_otherwise_are_refused(pattern: str) -> None:
    with pytest.raises(regexp.PatternUnsupported):
        regexp.compile_re2(pattern)


def test_repo_urls_are_read_as_git_urls_reads_them() -> None:
    assert argocd_repo.repo_url_to_https("git@github.com:org/repo.git") == (
        "https://github.com/org/repo.git"
    )
    assert argocd_repo.full_name_by_repo_url("https://gitlab.com/g/s/r.git") == "g/s"
    with pytest.raises(argocd_repo.RepoURLUnsupported) as exc:
        argocd_repo.repo_url_to_https("https://github.com/org/repo?ref=main")
    assert "https://" in exc.value.hint


def test_json_is_written_as_encoding_json_writes_it() -> None:
    data = {"b": "<x>\u2028", "a": [1e21, 1e-7, None, 0.5, 3]}
    assert marshal(data) == '{"a":[1e+21,1e-7,null,0.5,3],"b":"\\u003cx\\u003e\\u2028"}'
    with pytest.raises(MarshalError, match=r"json: unsupported value: \+Inf"):
        marshal([float("inf")])
