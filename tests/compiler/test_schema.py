"""Every compiled object validates against the upstream Argo schema, field names included."""

from __future__ import annotations

from pathlib import Path

import pytest

from orchestrator.compiler.compile import library_templates
from tests.compiler.helpers import SCENARIOS, SETTINGS, compiled
from tests.support.argo_schema import schema_errors, unknown_fields


@pytest.mark.parametrize(("scenario", "path", "product"), SCENARIOS, ids=[s[0] for s in SCENARIOS])
def test_compiled_objects_validate(scenario: str, path: Path, product: str) -> None:
    for manifest in compiled(path, product):
        assert schema_errors(manifest) == []
        assert unknown_fields(manifest) == []


def test_library_templates_validate() -> None:
    for manifest in library_templates(SETTINGS):
        assert schema_errors(manifest) == []
        assert unknown_fields(manifest) == []


def test_checker_catches_misspelt_and_mistyped_fields() -> None:
    manifest = compiled(*SCENARIOS[-1][1:])[0]
    manifest["spec"]["entrypiont"] = "promote"
    manifest["spec"]["templates"][0]["dag"]["tasks"][0]["dependz"] = "x"
    assert sorted(unknown_fields(manifest)) == [
        ".spec.entrypiont",
        ".spec.templates[0].dag.tasks[0].dependz",
    ]
    manifest["spec"]["templates"][0]["dag"]["failFast"] = "no"
    assert any("failFast" in e for e in schema_errors(manifest))
