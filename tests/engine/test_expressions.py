"""The pure parts of the engine: depends, when, retry expressions, substitution."""

from __future__ import annotations

import pytest

from orchestrator.engine.conditions import evaluate_when, parse_expression
from orchestrator.engine.depends import Decision, dag_phase, parse_depends
from orchestrator.engine.errors import EngineError
from orchestrator.engine.expressions import substitute, substitute_all
from orchestrator.engine.model import Phase

S, F, E, K, OM, P = (
    Phase.SUCCEEDED,
    Phase.FAILED,
    Phase.ERROR,
    Phase.SKIPPED,
    Phase.OMITTED,
    Phase.PENDING,
)


@pytest.mark.parametrize(
    ("text", "phases", "decision"),
    [
        ("a", {"a": S}, Decision.RUN),
        ("a", {"a": K}, Decision.RUN),  # a bare name accepts Skipped
        ("a", {"a": F}, Decision.OMIT),
        ("a", {"a": P}, Decision.WAIT),
        ("a.Succeeded && b.Succeeded", {"a": F, "b": P}, Decision.OMIT),  # decided early
        ("a.Succeeded || b.Succeeded", {"a": S, "b": P}, Decision.WAIT),  # Argo waits for all
        ("a.Failed || a.Errored", {"a": E}, Decision.RUN),
        ("!a.Succeeded", {"a": OM}, Decision.RUN),
        ("(a.Succeeded || b.Failed) && !c.Skipped", {"a": F, "b": F, "c": S}, Decision.RUN),
    ],
)
def test_depends_decisions(text: str, phases: dict[str, Phase], decision: Decision) -> None:
    assert parse_depends(text).decide(phases) is decision


@pytest.mark.parametrize("text", ["a &&", "a.Bogus", "(a", "a b"])
def test_bad_depends_is_an_error(text: str) -> None:
    with pytest.raises(EngineError):
        parse_depends(text)


def test_dag_phase_follows_the_branches() -> None:
    deps = {"a": frozenset[str](), "b": frozenset({"a"}), "c": frozenset({"b"})}
    assert dag_phase(deps, {"a": S, "b": S, "c": S}) is S
    assert dag_phase(deps, {"a": S, "b": F, "c": OM}) is F
    assert dag_phase(deps, {"a": S, "b": K, "c": S}) is S


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("YES == YES", True),
        ("NO == YES", False),
        ("1.5 > 1", True),
        ("abc != abd && true", True),
        ("release-1.2 =~ '^release-'", True),
    ],
)
def test_when_is_evaluated_like_govaluate(text: str, value: bool) -> None:
    assert evaluate_when(text) is value


def test_retry_expressions_read_variables() -> None:
    rule = parse_expression(
        'lastRetry.status == "Error" || asInt(lastRetry.exitCode) == 75',
        frozenset({"lastRetry.status", "lastRetry.exitCode"}),
    )
    assert rule.evaluate({"lastRetry.status": "Failed", "lastRetry.exitCode": "75"})
    assert not rule.evaluate({"lastRetry.status": "Failed", "lastRetry.exitCode": "1"})
    with pytest.raises(EngineError, match="unknown variable"):
        parse_expression("retries > 1", frozenset({"lastRetry.status"}))


def test_substitution_is_one_pass_and_refuses_unknown_names() -> None:
    values = {"a": "{{b}}", "b": "x"}
    assert substitute("<{{ a }}>", values, "here") == "<{{b}}>"
    assert substitute_all({"k": ["{{b}}", 3]}, values, "here") == {"k": ["x", 3]}
    with pytest.raises(EngineError, match=r"cannot resolve \{\{c\}\} in here"):
        substitute("{{c}}", values, "here")
