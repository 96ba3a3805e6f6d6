"""The pure parts of the engine: depends, when, retry expressions, substitution."""

from __future__ import annotations

import importlib.util
import json
import re
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from orchestrator.engine.conditions import (
    WhenError,
    WhenRefused,
    check_when,
    evaluate_when,
    parse_expression,
)
from orchestrator.engine.depends import Decision, dag_phase, parse_depends
from orchestrator.engine.errors import EngineError
from orchestrator.engine.expressions import substitute, substitute_all
from orchestrator.engine.gotext import go_value_text
from orchestrator.engine.model import Phase
from orchestrator.engine.re2subset import PatternError, compile_re2

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
        # Argo never decides early: evaluateDependsLogic waits for every named task
        ("a.Succeeded && b.Succeeded", {"a": F, "b": P}, Decision.WAIT),
        ("a.Succeeded && b.Succeeded", {"a": F, "b": S}, Decision.OMIT),
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
        ("'release-1.2' =~ '^release-'", True),
    ],
)
def test_when_is_evaluated_like_govaluate(text: str, value: bool) -> None:
    assert evaluate_when(text) is value


def test_an_unquoted_version_in_when_is_arithmetic_in_govaluate() -> None:
    """govaluate lexes ``release-1.2`` as ``release - 1.2`` (Argo fails the node): the
    engine does not evaluate arithmetic and says so."""
    with pytest.raises(WhenRefused, match="arithmetic '-'"):
        evaluate_when("release-1.2 =~ '^release-'")


# -- when against the real govaluate (tests/vectors/govaluate) -----------------------------------

VECTORS = Path(__file__).resolve().parents[1] / "vectors" / "govaluate"


def _inputs_module() -> ModuleType:
    spec = importlib.util.spec_from_file_location("govaluate_inputs", VECTORS / "inputs.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


INPUTS = _inputs_module()
ALL: list[dict[str, Any]] = [
    json.loads(line)
    for line in (VECTORS / "vectors.jsonl").read_text(encoding="utf-8").splitlines()
]


def _engine(text: str) -> dict[str, Any] | None:
    """What the engine gives, in the vectors' terms; None when it refuses the text."""
    try:
        return {"in": text, "result": evaluate_when(text)}
    except WhenRefused:
        return None
    except WhenError as exc:
        return {"in": text, "error": str(exc)}


def test_the_vectors_are_those_of_the_inputs() -> None:
    """vectors.jsonl was produced from inputs.py as it is (regenerate both together)."""
    assert [v["in"] for v in ALL] == INPUTS.inputs()


def test_every_vector_the_engine_evaluates_is_what_govaluate_gives() -> None:
    """For each text: the engine refuses it, or gives exactly Argo's result (true/false, or
    the same error message); never a different answer. Enough of each kind is covered."""
    differences, kinds = [], {"true": 0, "false": 0, "error": 0, "refused": 0}
    for vector in ALL:
        mine = _engine(vector["in"])
        if mine is None:
            kinds["refused"] += 1
            continue
        kinds[str(mine["result"]).lower() if "result" in mine else "error"] += 1
        if mine != vector:
            differences.append((vector, mine))
    assert differences == []
    assert min(kinds.values()) > 400, kinds


def test_the_subset_grammar_is_never_refused() -> None:
    """Random text of the documented subset (inputs.py ``subset_inputs``) always runs."""
    refused = [text for text in INPUTS.subset_inputs() if _engine(text) is None]
    assert refused == []


def test_govaluate_panics_are_refused() -> None:
    panics = [v["in"] for v in ALL if "panic" in v]
    assert panics
    assert all(_engine(text) is None for text in panics)


@pytest.mark.parametrize(
    ("text", "construct"),
    [
        ("'2024-01-02' == x", "date"),
        ("'3:04PM' == x", "date"),
        ("'Mon Jan  2 15:04:05 2006' == x", "date"),
        ("0x1F == 31", "hex"),
        ("1e3 > 1", "exponents"),
        ("a ? b : c", "ternary"),
        ("a ?? b", "coalescing"),
        ("a.b == c", "field access"),
        ("[a b] == c", "'['"),
        ("2 * 2 == 4", "arithmetic '*'"),
        ("1 & 1 == 1", "bitwise"),
        ("a&&!b", "'&&!'"),
        ("a == b == c", "chained comparison"),
        ("!word", "'!' before the text"),
        ("x =~ '(?i)X'", "regular expression '(?i)X'"),
        ("x =~ '[[:alpha:]]'", "POSIX"),
        ("'a\\", "backslash"),
        ("a\\ b == c", "'\\\\'"),
        ("'a\" == 'a'", "opened with ' and closed with \""),
        ("x in a", "parenthesised list"),
        ("f(x)", "'('"),
        ("\u00e9 == \u00e9", "outside quotes"),
    ],
)
def test_what_the_subset_leaves_out_is_refused(text: str, construct: str) -> None:
    with pytest.raises(WhenRefused, match=re.escape(construct)) as exc:
        evaluate_when(text)
    assert f"cannot evaluate when '{text}' locally" in str(exc.value)


@pytest.mark.parametrize(
    "template",
    [
        "{{tasks.approve-prod.outputs.parameters.approve}} == YES",  # what promoflow compiles
        "{{steps.flip-coin.outputs.result}} == heads",  # Argo's examples and docs
        "( {{steps.a.outputs.result}} == heads &&\n  {{steps.b.outputs.result}} == tails\n) ||"
        "\n( {{steps.a.outputs.result}} == tails && {{steps.b.outputs.result}} == tails )",
        "{{steps.flip-again.outputs.result}} =~ hea",
        "{{workflow.status}} != Succeeded",
        "{{inputs.parameters.num}} != 1 && {{inputs.parameters.num}} != 2",
        "{{steps.iterate-counter.outputs.result}} < {{inputs.parameters.limit}}",
        "{{inputs.parameters.should-print}} == true",
        "!{{inputs.parameters.skip}}",
        "'{{inputs.parameters.version}}' =~ '^v[0-9]+\\.'",
        "{{x}} in (a, b, -1)",
        "{{x}}",
        "",
    ],
)
def test_check_when_accepts_the_subset_whatever_the_references_hold(template: str) -> None:
    check_when(template)


@pytest.mark.parametrize(
    ("template", "construct"),
    [
        ("{{x}} ? a : b", "ternary"),
        ("{{x}}-1 == 2", "arithmetic '-'"),
        ("{{x}}.y == 1", "'{{...}}.y'"),
        ("{{x}} =~ '(?=a)'", "lookaround"),
        ("'{{x}}' > '2024-01-01'", "date"),
        ("{{x}} + 1 > 2", "arithmetic '+'"),
        ("{{x}} ==", "ends where a value should follow"),
        ("({{x}} == a", "unclosed '('"),
    ],
)
def test_check_when_refuses_text_outside_the_subset(template: str, construct: str) -> None:
    with pytest.raises(WhenRefused, match=re.escape(construct)) as exc:
        check_when(template)
    assert template in str(exc.value)


@pytest.mark.parametrize(
    ("pattern", "text", "found"),
    [
        ("a$", "a\n", False),  # RE2's $ is the end of the text; Python's also matches before \n
        ("\\s", "\v", False),  # RE2's \s has no vertical tab
        ("[\\s]", "\t", True),
        ("\\w", "\u00e9", False),  # ASCII classes, as in RE2
        ("^.$", "\u00e9", True),
        ("x{2,3}?y", "xxy", True),
        ("[]a]", "]", True),
        ("[a-]", "-", True),
        ("(?:ab|c)+$", "xabc", True),
    ],
)
def test_re2_patterns_match_as_in_go(pattern: str, text: str, found: bool) -> None:
    assert (compile_re2(pattern).search(text) is not None) is found


@pytest.mark.parametrize(
    "pattern",
    ["(?i)a", "a(?=b)", "\\Z", "\\B", "\\pL", "[[:digit:]]", "x{,3}", "x{1001}", "a**",
     "(a+)+", "(x{2}){3}", "[a&&b]", "[z-a]", "(", "\\1", "a{", "x{01}"],
)  # fmt: skip
def test_re2_syntax_outside_the_subset_is_refused(pattern: str) -> None:
    with pytest.raises(PatternError, match=re.escape(pattern)):
        compile_re2(pattern)


@pytest.mark.parametrize(
    ("value", "text"),
    [(7.0, "7"), (1e6, "1e+06"), (123456.0, "123456"), (1e-5, "1e-05"), (0.0001, "0.0001"),
     (-0.0, "-0"), (1.5, "1.5"), (True, "true"), (None, "<nil>"), (["a", 2.0], "[a 2]")],
)  # fmt: skip
def test_go_value_text_is_fmt_v(value: Any, text: str) -> None:
    assert go_value_text(value) == text


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
