"""reporters.expr against the real expr-lang/expr v1.17.7, run as Argo CD Notifications runs
trigger conditions (tests/vectors/expr/main.go): each case is evaluated exactly as Go
evaluates it, or refused, never answered differently."""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest

from reporters.expr import ExprUnsupported, compile
from tests.reporters.expr.conformance import INPUTS, answer, comparable, env, vectors


def test_the_vectors_are_those_of_the_inputs() -> None:
    """vectors.jsonl was produced from inputs.py as it is (regenerate both together)."""
    assert [(v["in"], v["app"]) for v in vectors()] == INPUTS.cases()


def test_every_vector_is_evaluated_as_go_does_or_refused() -> None:
    differences: list[tuple[dict[str, Any], dict[str, Any] | None]] = []
    kinds: Counter[str] = Counter()
    for vector in vectors():
        mine = answer(vector["in"], vector["app"])
        if mine is None:
            kinds["refused"] += 1
            continue
        kind = "compile" if "compile" in mine else "run" if "run" in mine else "value"
        kinds[kind] += 1
        if comparable(mine) != comparable(vector):
            differences.append((vector, mine))
    assert differences == []
    assert kinds["value"] > 2000 and kinds["compile"] > 300 and kinds["run"] > 300, kinds
    assert kinds["refused"] < len(vectors()) * 0.03, kinds


def test_every_trigger_of_the_catalog_and_the_manual_runs_as_in_argo_cd() -> None:
    """The catalog's and the operator manual's ``when``/``oncePer`` on every variant of the
    live Application: never refused, always Go's value, and the catalog's own triggers fire
    where they are meant to."""
    conditions = set(INPUTS.trigger_conditions())
    cases = [v for v in vectors() if v["in"] in conditions]
    assert len(cases) == len(conditions) * len(INPUTS.apps())
    for vector in cases:
        assert comparable(answer(vector["in"], vector["app"]) or {}) == comparable(vector)
    fired = {(v["in"], v["app"]) for v in cases if v.get("triggered")}
    assert ("app.metadata.deletionTimestamp != nil", "deleted") in fired
    assert ("app.metadata.deletionTimestamp != nil", "live") not in fired
    assert ("app.status.health.status == 'Degraded'", "degraded") in fired
    running = "app.status.operationState != nil and app.status.operationState.phase in ['Running']"
    assert (running, "running") in fired and (running, "idle") not in fired


def test_every_refusal_says_what_to_write_instead() -> None:
    """A case this implementation refuses is reported with its place and a hint."""
    refused = 0
    for vector in vectors():
        if answer(vector["in"], vector["app"]) is not None:
            continue
        refused += 1
        with pytest.raises(ExprUnsupported) as caught:
            compile(vector["in"]).run(env(vector["app"]))
        assert caught.value.hint, vector
        assert caught.value.message, vector
    assert refused > 0
