"""Field paths of an Application, checked against Argo CD's API spec: every path of a real
live Application and of Argo CD's own catalog is one, and a misspelt one is told with the
field it most likely meant."""

from __future__ import annotations

import importlib.util
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from reporters.notifications import appfields

REFDATA = Path(__file__).resolve().parents[1] / "refdata" / "argo-cd"


def _script() -> Any:
    spec = importlib.util.spec_from_file_location("fields", REFDATA / "fields.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_committed_table_is_what_the_script_extracts() -> None:
    script = _script()
    table = script.extract(yaml.safe_load((REFDATA / "swagger.json").read_text()))
    assert appfields.TABLE.read_text() == script.render(table)


def _paths(value: Any, path: tuple[str, ...] = ()) -> Iterator[tuple[str, ...]]:
    if isinstance(value, dict):
        for key, sub in value.items():
            yield from _paths(sub, (*path, str(key)))
    elif isinstance(value, list):
        for index, sub in enumerate(value):
            yield from _paths(sub, (*path, str(index)))
    else:
        yield path


def test_every_path_of_a_live_application_is_a_field() -> None:
    live = yaml.safe_load((REFDATA / "application-live-example.yaml").read_text())
    paths = [p for p in _paths(live) if p[:1] not in (("apiVersion",), ("kind",))]
    assert len(paths) > 200
    problems = [(p, appfields.lookup(p).problem) for p in paths if appfields.lookup(p).problem]
    assert problems == []


def _catalog_paths() -> set[tuple[str, ...]]:
    """``.app.a.b`` in the catalog's Go templates and ``app.a.b`` in its expr conditions."""
    found: set[tuple[str, ...]] = set()
    for name in ("notifications-catalog-install.yaml", "notifications-cm-docs-example.yaml"):
        text = (REFDATA / name).read_text()
        for match in re.finditer(r"(?<![\w$])\.?app((?:\.[A-Za-z_][A-Za-z0-9_]*)+)", text):
            found.add(tuple(match.group(1).lstrip(".").split(".")))
    return found


def test_every_path_argo_cds_catalog_reads_is_a_field() -> None:
    paths = _catalog_paths()
    assert ("status", "health", "lastTransitionTime") in paths
    assert len(paths) >= 15
    assert {p: appfields.lookup(p).problem for p in paths if appfields.lookup(p).problem} == {}


@pytest.mark.parametrize(
    ("path", "kind", "problem"),
    [
        ("spec.source.repoURL", "string", ""),
        ("status.operationState.finishedAt", "time", ""),
        ("metadata.deletionTimestamp", "time", ""),
        ("metadata.labels.team", "string", ""),
        ("status.history.0.revision", "string", ""),
        ("spec.source.helm.valuesObject.image.tag", "any", ""),
        ("status.conditions", "list", ""),
        ("spec.sourse.repoURL", "", "app.spec has no field 'sourse' (did you mean 'source'?)"),
        (
            "status.history.revision",
            "",
            "app.status.history is a list: index it or range over it to read 'revision'",
        ),
        (
            "metadata.labels.team.name",
            "",
            "app.metadata.labels.team is a string, it has no field 'name'",
        ),
    ],
)
def test_lookup(path: str, kind: str, problem: str) -> None:
    assert appfields.lookup(path.split(".")) == appfields.Found(kind, problem)
