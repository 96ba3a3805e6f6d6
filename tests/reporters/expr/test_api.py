"""reporters.expr's API: errors with expr's wording and positions, budgets, names()."""

from __future__ import annotations

from typing import Any

import pytest

from reporters.expr import (
    BudgetExceeded,
    ExprRuntimeError,
    ExprSyntaxError,
    ExprUnsupported,
    Limits,
    compile,
    decode_object,
    go_type,
)
from tests.reporters.expr.conformance import env


def test_a_syntax_error_has_its_line_column_and_caret() -> None:
    with pytest.raises(ExprSyntaxError) as caught:
        compile("app.status.sync.status ==\n  'Synced' &&")
    error = caught.value
    assert (error.line, error.column) == (2, 13)  # expr points at the last character
    assert error.message == "unexpected token EOF"
    assert error.expr_text().endswith("\n |   'Synced' &&\n | ............^")


def test_a_lexing_error_is_placed_on_the_character() -> None:
    with pytest.raises(ExprSyntaxError) as caught:
        compile("app.name @ 1")
    assert caught.value.message == "unrecognized character: U+0040 '@'"
    assert (caught.value.line, caught.value.column) == (1, 10)


def test_a_type_error_is_a_compile_error() -> None:
    with pytest.raises(ExprSyntaxError, match=r"mismatched types int and string"):
        compile("1 + 'a'")


def test_coalesce_mixed_with_another_operator_says_what_to_write() -> None:
    with pytest.raises(ExprSyntaxError, match=r"cannot be mixed. Wrap either by parentheses"):
        compile("app.a ?? 1 + 2")
    assert compile("app.a ?? (1 + 2)").run({"app": {}}) == 3


def test_run_errors_carry_go_s_message_and_place() -> None:
    program = compile("app.status.missing.phase == 'x'")
    with pytest.raises(ExprRuntimeError) as caught:
        program.run({"app": {"status": {}}})
    assert caught.value.message == "cannot fetch phase from <nil>"
    assert caught.value.column == 20


def test_optional_chaining_and_coalescing_read_missing_fields_as_nil() -> None:
    program = compile("app.status.operationState?.syncResult?.revision ?? 'none'")
    assert program.run({"app": {"status": {}}}) == "none"
    state = {"status": {"operationState": {"syncResult": {"revision": "abc"}}}}
    assert program.run({"app": state}) == "abc"


def test_a_when_that_is_not_a_bool_does_not_trigger() -> None:
    assert compile("app.metadata.name").triggered({"app": {"metadata": {"name": "x"}}}) is False
    assert compile("").triggered({}) is False  # notifications-engine reads "" as "false"


def test_integers_of_an_object_are_int64_and_mix_with_literals_as_in_go() -> None:
    app = decode_object({"metadata": {"generation": 263}, "ratio": 0.5})
    assert go_type(app["metadata"]["generation"]) == "int64"
    assert go_type(compile("app.metadata.generation + 1").run({"app": app})) == "int"
    assert go_type(compile("-app.metadata.generation").run({"app": app})) == "int64"
    assert compile("app.metadata.generation == 263.0").run({"app": app}) is True
    assert compile("app.metadata.generation / 2").run({"app": app}) == 131.5


def test_the_step_budget_stops_a_long_run() -> None:
    program = compile("map(1..500, map(1..500, # * 2))")
    with pytest.raises(BudgetExceeded, match="steps") as caught:
        program.run({}, Limits(steps=10_000))
    assert "hint" in str(caught.value)


def test_the_memory_budget_is_expr_s_own() -> None:
    with pytest.raises(ExprRuntimeError, match="memory budget exceeded"):
        compile("len(1..2000)").run({}, Limits(memory=1000))
    assert compile("len(1..999)").run({}, Limits(memory=1000)) == 999


def test_patterns_outside_the_shared_re2_syntax_are_refused_with_a_hint() -> None:
    with pytest.raises(ExprUnsupported) as caught:
        compile("app.name matches '(?=prod)'")  # a lookahead: not RE2
    assert caught.value.hint
    assert compile("'prod-eu' matches '^prod-[a-z]+$'").run({}) is True
    assert compile("'a\\n' matches 'a$'").run({}) is False  # RE2's $ is the end of text


def test_names_lists_each_path_and_function_with_its_position() -> None:
    program = compile(
        "app.status.health.status == 'Healthy' and\n"
        "time.Now().Sub(time.Parse(app.status.operationState?.finishedAt)).Minutes() > 5 and "
        "len(context.argocdUrl) > 0"
    )
    names = {(name.path, name.kind, name.line, name.column) for name in program.names()}
    assert ("app.status.health.status", "variable", 1, 1) in names
    assert ("time.Now", "function", 2, 1) in names
    assert ("time.Parse", "function", 2, 16) in names
    assert ("app.status.operationState.finishedAt", "variable", 2, 27) in names
    assert ("len", "builtin", 2, 85) in names
    assert ("context.argocdUrl", "variable", 2, 89) in names


def test_names_leave_out_let_variables_and_predicate_pointers() -> None:
    program = compile("let s = app.status; all(s.resources, .status == 'Synced')")
    paths = {name.path for name in program.names()}
    assert paths == {"app.status", "all"}


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("time.Now().Sub(time.Parse(app.status.operationState.finishedAt)).Minutes()",
         266.93333333333334),
        ("time.Parse(app.status.operationState.startedAt).Add(time.Minute).Before(time.Now())",
         True),
        ("strings.ToUpper(app.metadata.name)", "VELERO-TEST"),
        ("repo.QueryEscape('a b&c')", "a+b%26c"),
        ("context.missing", ""),
    ],
)  # fmt: skip
def test_argo_cd_s_functions(text: str, expected: Any) -> None:
    assert compile(text).run(env("live")) == expected


@pytest.mark.parametrize(
    ("text", "hint"),
    [
        ("app.status.sync.status = 'Synced'", "=="),
        ("app.status.sync.status === 'Synced'", "=="),
        ("app.metadata.name =~ '^prod'", "matches"),
        ("{{ app.status.sync.status }} == 'Synced'", "without {{ }}"),
        ("app.healthy & app.synced", "&&"),
        ("'unterminated", "close the string"),
    ],
)
def test_syntax_errors_say_what_to_write_instead(text: str, hint: str) -> None:
    with pytest.raises(ExprSyntaxError) as caught:
        compile(text)
    assert hint in caught.value.hint
    assert hint in str(caught.value)  # the hint is shown with the error


def test_a_missing_field_error_suggests_optional_chaining() -> None:
    with pytest.raises(ExprRuntimeError) as caught:
        compile("app.status.operationState.phase == 'Running'").run({"app": {"status": {}}})
    assert "?." in caught.value.hint and "??" in caught.value.hint


def test_an_expression_nested_beyond_what_python_can_walk_is_refused() -> None:
    with pytest.raises(ExprUnsupported, match="nested too deeply"):
        compile("(" * 400 + "1" + ")" * 400)
    assert compile("(" * 50 + "1" + ")" * 50).run({}) == 1


def test_once_per_is_the_value_printed_as_go_prints_it() -> None:
    program = compile("app.status.operationState?.syncResult?.revision")
    app = {"status": {"operationState": {"syncResult": {"revision": "ea87"}}}}
    assert program.once_per({"app": app}) == "ea87"
    assert program.once_per({"app": {"status": {}}}) == "<nil>"
    assert (
        compile("app.metadata.generation * 1.0").once_per(
            {"app": decode_object({"metadata": {"generation": 1000000}})}
        )
        == "1e+06"
    )
    assert compile("app.a.b").once_per({"app": {}}) == ""  # failed: logged, key empty


def test_names_through_pipes_predicates_and_indexes() -> None:
    program = compile(
        "app.status.resources | filter(.kind == 'Service') | map(.name) | len() > 0 and "
        "app.metadata.annotations['team'] == context.team and repo.RepoURLToHTTPS(x) != ''"
    )
    names = {(name.path, name.kind) for name in program.names()}
    assert names == {
        ("app.status.resources", "variable"),
        ("filter", "builtin"),
        ("map", "builtin"),
        ("len", "builtin"),
        ("app.metadata.annotations.team", "variable"),
        ("context.team", "variable"),
        ("repo.RepoURLToHTTPS", "function"),
        ("x", "variable"),
    }


def test_a_pattern_known_only_at_run_time_is_refused_when_it_is_outside_re2_s_shared_part() -> None:
    program = compile("app.name matches app.pattern")
    assert program.run({"app": {"name": "prod-1", "pattern": "^prod-[0-9]+$"}}) is True
    with pytest.raises(ExprUnsupported) as caught:
        program.run({"app": {"name": "prod-1", "pattern": "\\pL+"}})
    assert (caught.value.line, caught.value.column) == (1, 10)
    assert program.run({"app": {"name": "PROD-1", "pattern": "(?i)^prod"}}) is True
    with pytest.raises(ExprUnsupported, match="non-ASCII"):
        program.run({"app": {"name": "\u212a", "pattern": "(?i)k"}})  # the Kelvin sign


def test_repeat_counts_against_expr_s_memory_budget() -> None:
    with pytest.raises(ExprRuntimeError, match="memory budget exceeded"):
        compile("repeat('ab', 600)").run({}, Limits(memory=1000))
    assert compile("len(repeat('ab', 400))").run({}, Limits(memory=1000)) == 800
