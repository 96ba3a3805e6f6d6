"""A template from any team cannot hang the reporter or fill its memory.

Go's text/template has no such bounds; here a step budget, an output cap, a template
call depth and caps on what single functions build stop a run with a TemplateLimitError.
"""

from __future__ import annotations

import time

import pytest

from reporters.gotemplate import Limits, TemplateExecError, TemplateLimitError, parse


def test_loops_stop_at_the_step_budget() -> None:
    template = parse(
        "{{ range $i := until 1000 }}{{ range until 1000 }}{{ end }}{{ end }}",
        name="t",
        limits=Limits(max_steps=50_000),
    )
    started = time.monotonic()
    with pytest.raises(TemplateLimitError) as info:
        template.execute({})
    assert time.monotonic() - started < 5
    assert "50000 steps" in str(info.value)
    assert info.value.hint


def test_output_stops_at_the_cap() -> None:
    template = parse("{{ range until 1000 }}0123456789{{ end }}", limits=Limits(max_output=5000))
    with pytest.raises(TemplateLimitError, match="longer than 5000 characters"):
        template.execute({})
    assert len(parse("{{ range until 400 }}0123456789{{ end }}").execute({})) == 4000


def test_a_template_calling_itself_stops_at_the_depth_limit() -> None:
    template = parse('{{ define "x" }}{{ template "x" }}{{ end }}{{ template "x" }}', name="t")
    with pytest.raises(TemplateLimitError, match="maximum template depth"):
        template.execute({})


def test_a_limit_error_is_an_execution_error() -> None:
    assert issubclass(TemplateLimitError, TemplateExecError)


@pytest.mark.parametrize(
    ("text", "match"),
    [
        ('{{ repeat 100000000 "abc" }}', "repeat would build"),
        ("{{ until 100000000 | len }}", "longer than"),
        ("{{ seq 1 100000000 }}", "longer than"),
        (
            '{{ mustRegexMatch "(a+)+$" "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaab" }}',
            "nested repetition",
        ),
    ],
)
def test_functions_that_would_build_too_much_or_run_for_ever_are_refused(
    text: str, match: str
) -> None:
    with pytest.raises(TemplateExecError, match=match):
        parse(text, name="t").execute({})


def test_a_huge_printf_width_is_ignored_as_fmt_ignores_it() -> None:
    assert parse('{{ printf "%999999999d" 5 }}').execute({}) == "5"
    assert parse('{{ printf "%*d" 99999999 5 }}').execute({}) == "%!(BADWIDTH)5"


def test_regex_match_answers_false_at_once_for_a_refused_pattern() -> None:
    started = time.monotonic()
    out = parse('{{ regexMatch "(a+)+$" "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaab" }}').execute({})
    assert out == "false"
    assert time.monotonic() - started < 1
