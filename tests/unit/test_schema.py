"""``promoflow schema``: a valid JSON Schema that accepts the examples and refuses typos."""

from __future__ import annotations

import copy
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml
from jsonschema import Draft202012Validator

from orchestrator.model import RESOURCE_KINDS

REPO = Path(__file__).resolve().parents[2]
EXAMPLE_FILES = sorted((REPO / "environments").rglob("*.yaml"))


def _schema(*args: str) -> dict[str, Any]:
    result = subprocess.run(
        [sys.executable, "-m", "orchestrator.cli", "schema", *args],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    schema: dict[str, Any] = json.loads(result.stdout)
    return schema


@pytest.fixture(scope="module")
def combined() -> Draft202012Validator:
    schema = _schema()
    Draft202012Validator.check_schema(schema)
    return Draft202012Validator(schema)


def _examples() -> list[tuple[str, dict[str, Any]]]:
    docs = []
    for path in EXAMPLE_FILES:
        for doc in yaml.safe_load_all(path.read_text()):
            docs.append((f"{path.relative_to(REPO)}:{doc['metadata']['name']}", doc))
    return docs


EXAMPLES = _examples()


def test_every_kind_is_in_the_examples() -> None:
    assert {doc["kind"] for _, doc in EXAMPLES} == set(RESOURCE_KINDS)


@pytest.mark.parametrize(("where", "doc"), EXAMPLES, ids=[w for w, _ in EXAMPLES])
def test_every_example_document_validates(
    combined: Draft202012Validator, where: str, doc: dict[str, Any]
) -> None:
    assert [e.message for e in combined.iter_errors(doc)] == []
    # Exactly one branch of the oneOf accepts it: the one of its kind.
    defs = combined.schema["$defs"]
    accepting = [
        b["$ref"]
        for b in combined.schema["oneOf"]
        if Draft202012Validator({"$defs": defs, **b}).is_valid(doc)
    ]
    assert accepting == [f"#/$defs/{doc['kind']}"]


def _example(kind: str) -> dict[str, Any]:
    return copy.deepcopy(next(doc for _, doc in EXAMPLES if doc["kind"] == kind))


def _break(doc: dict[str, Any], *path: str | int, value: Any) -> dict[str, Any]:
    target: Any = doc
    for part in path[:-1]:
        target = target[part]
    target[path[-1]] = value
    return doc


@pytest.mark.parametrize(
    "doc",
    [
        pytest.param(_break(_example("Environment"), "spec", "prodution", value=True), id="typo"),
        pytest.param(
            _break(_example("PromotionPolicy"), "spec", "policy", "pre_action", value={}),
            id="snake-case-key",
        ),
        pytest.param(
            _break(_example("PromotionPolicy"), "spec", "policy", "gates", 0, value={"wait": {}}),
            id="unknown-gate",
        ),
        pytest.param(
            _break(
                _example("PromotionPolicy"),
                "spec",
                "policy",
                "gates",
                0,
                value={"soak": {"duration": "30 minutes"}},
            ),
            id="bad-duration",
        ),
        pytest.param(_break(_example("Product"), "metadata", "name", value="Shop"), id="bad-name"),
        pytest.param(_break(_example("PromotionFlow"), "kind", value="Flow"), id="unknown-kind"),
        pytest.param(
            _break(_example("PromotionFlow"), "apiVersion", value="promoflow.dev/v2"),
            id="api-version",
        ),
    ],
)
def test_a_broken_document_fails(combined: Draft202012Validator, doc: dict[str, Any]) -> None:
    assert not combined.is_valid(doc)


def test_typo_is_reported_as_an_unexpected_property(combined: Draft202012Validator) -> None:
    doc = _break(_example("Environment"), "spec", "prodution", value=True)
    branch = {"$defs": combined.schema["$defs"], "$ref": "#/$defs/Environment"}
    assert {"$ref": "#/$defs/Environment"} in combined.schema["oneOf"]
    messages = [e.message for e in Draft202012Validator(branch).iter_errors(doc)]
    assert messages == ["Additional properties are not allowed ('prodution' was unexpected)"]


def test_one_kind_schema() -> None:
    schema = _schema("PromotionFlow")
    Draft202012Validator.check_schema(schema)
    validator = Draft202012Validator(schema)
    flow = _example("PromotionFlow")
    assert validator.is_valid(flow)
    assert not validator.is_valid(_example("Environment"))
    assert not validator.is_valid(_break(flow, "spec", "steps", 0, "depends_on", value=["dev"]))
