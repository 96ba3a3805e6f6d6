"""``orchestrator.yamlscalars`` and ``orchestrator.goscalars``: Go's YAML resolvers mirrored
by hand, checked against vectors the real libraries produced (tests/vectors/goyaml:
sigs.k8s.io/yaml v1.6.0 over yaml.v2, and yaml.v3 v3.0.1, for edge cases of every scalar
shape and seeded random tokens).

A difference here is a tag promoflow believes Helm or kustomize read as a string, and they
do not: ``6063e25`` deployed as ``6.063e+28``.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest

from orchestrator.goscalars import GoScalar
from orchestrator.yamlscalars import (
    UNREADABLE,
    describe,
    go_v2,
    go_v3,
    misread,
    readings,
    scan,
    yaml11,
    yaml12,
)

VECTORS = Path(__file__).resolve().parents[1] / "vectors" / "goyaml" / "vectors.jsonl"


def _vectors() -> list[dict[str, Any]]:
    # one vector a line: split on newlines only, tokens may hold U+0085 or U+2028
    lines = VECTORS.read_text(encoding="utf-8").split("\n")
    return [json.loads(line) for line in lines if line]


ALL = _vectors()


def _types(key: str) -> set[str]:
    return {v[key].get("type", "error") for v in ALL}


def test_the_vectors_cover_every_outcome() -> None:
    assert len(ALL) > 2000
    assert {"string", "int", "uint64", "float64", "bool", "<nil>", "error"} <= _types("v2")
    assert {"string", "int", "uint64", "float64", "bool", "<nil>", "time.Time"} <= _types("v3")
    assert any(v["json"] is None for v in ALL) and any(v["json"] for v in ALL)


def _same(mirror: GoScalar, go: dict[str, Any]) -> bool:
    if mirror.type != go.get("type"):
        return False
    text = go.get("value")
    value = mirror.value
    if mirror.type == "<nil>":
        return text is None and value is None
    if mirror.type == "float64":
        assert isinstance(value, float) and text is not None
        return (math.isnan(value) and math.isnan(float(text))) or value == float(text)
    if mirror.type == "bool":
        return text == ("true" if value else "false")
    return str(value) == text


def _agrees(mirror: GoScalar | Any, go: dict[str, Any], block: bool) -> bool:
    """The mirror says what Go decodes; or it calls the token unreadable and Go errs or
    finds something other than a scalar (or the token is a block scalar header, which the
    mirror leaves alone)."""
    if mirror is UNREADABLE:
        return "error" in go or go.get("type", "").startswith(("map[", "[]")) or block

    return isinstance(mirror, GoScalar) and _same(mirror, go)


@pytest.mark.parametrize("vector", ALL, ids=lambda v: repr(v["in"])[:30])
def test_the_mirror_agrees_with_go(vector: dict[str, Any]) -> None:
    token = vector["in"]
    v2, v3 = go_v2(token), go_v3(token)
    block = token[:1] in ("|", ">")
    assert _agrees(v2, vector["v2"], block), (v2, vector["v2"])
    assert _agrees(v3, vector["v3"], block), (v3, vector["v3"])
    if isinstance(v3, GoScalar):
        assert v3.tag == vector["v3"]["tag"]
    # and what sigs.k8s.io/yaml hands Helm and kustomize as JSON
    if isinstance(v2, GoScalar):
        if isinstance(v2.value, float) and not math.isfinite(v2.value):
            assert vector["json"] is None and "unsupported value" in vector["json_error"]
        else:
            got = json.loads(vector["json"])["k"]
            if v2.type == "float64":  # Go's JSON spells 1.8e19 as 18000000000000000000
                assert isinstance(got, int | float) and float(got) == v2.value
            else:
                assert type(got) is type(v2.value) and got == v2.value


@pytest.mark.parametrize(
    ("token", "v11", "v12", "v2", "v3"),
    [
        ("6063e25", "6063e25", 6.063e28, 6.063e28, 6.063e28),
        ("1e3", "1e3", 1000.0, 1000.0, 1000.0),
        ("0o17", "0o17", 15, 15, 15),
        ("y", "y", "y", True, "y"),
        ("1.10", 1.1, 1.1, 1.1, 1.1),
        ("0123", 83, 123, 83, 83),
        ("on", True, "on", True, "on"),
        ("null", None, None, None, None),
        ("089", "089", 89, 89.0, 89.0),
        ("1:30", 90, "1:30", "1:30", "1:30"),
        ("0b+1", "0b+1", "0b+1", 1, 1),
        ("2024-1-2", "2024-1-2", "2024-1-2", "2024-1-2", "2024-01-02T00:00:00Z"),
        ("1.2.3", "1.2.3", "1.2.3", "1.2.3", "1.2.3"),
        ("'1e3'", "1e3", "1e3", "1e3", "1e3"),
        ('"y"', "y", "y", "y", "y"),
    ],
)
def test_the_readers_disagree_as_the_issue_says(
    token: str, v11: Any, v12: Any, v2: Any, v3: Any
) -> None:
    got = readings(token)
    assert [got["YAML 1.1"], got["YAML 1.2"]] == [v11, v12]
    assert [got["Go yaml.v2"].value, got["Go yaml.v3"].value] == [v2, v3]  # type: ignore[union-attr]


@pytest.mark.parametrize(
    ("token", "text", "reader"),
    [
        ("6063e25", "6063e25", "Go yaml.v2"),
        ("y", "y", "Go yaml.v2"),
        ("2024-1-2", "2024-1-2", "Go yaml.v3"),
        ("1:30", "1:30", "YAML 1.1"),
        ("1e400", "1e400", "YAML 1.2"),
        ('"6063e25"', "6063e25", None),
        ("'y'", "y", None),
        ("ghcr.io/acme/web", "ghcr.io/acme/web", None),
    ],
)
def test_misread_names_the_first_reader_that_disagrees(
    token: str, text: str, reader: str | None
) -> None:
    found = misread(token, text)
    assert (found[0] if found else None) == reader


def test_unreadable_tokens() -> None:
    for token in ["a: b", "[a]", "&x a", "!!str a", "'a", "%a"]:
        assert scan(token) is None, token
        assert go_v2(token) is UNREADABLE and go_v3(token) is UNREADABLE
    assert yaml11("2024-02-30") is UNREADABLE  # PyYAML: day is out of range
    assert yaml12("[1]") is UNREADABLE
    assert scan("'it''s'") == ("single", "it's")
    assert scan("a #b") == ("plain", "a")


def test_describe() -> None:
    assert describe(go_v2("6063e25")) == "6.063e+28 (float64)"
    assert describe(go_v2("y")) == "true (bool)"
    assert describe(go_v2("x")) == "'x' (string)"
    assert describe(go_v2("~")) == "null (<nil>)"
    assert describe(yaml12("1e3")) == "1000.0 (float)"
    assert describe(UNREADABLE).startswith("no single value")
