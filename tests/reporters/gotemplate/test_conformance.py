"""Every committed vector: what Go's text/template with notifications-engine's function map
wrote (or the error it gave) for a template and its data, which this package must match
exactly. The vectors come from tests/vectors/gotemplate/main.go, run against Go and sprig
at the versions Argo CD v3.2.12 builds with (see that directory's inputs.py)."""

from __future__ import annotations

import pytest

from reporters.gotemplate import TemplateExecError, TemplateSyntaxError, parse
from tests.reporters.gotemplate.vectors import Vector, load

VECTORS = list(load())


def test_there_are_several_thousand_vectors() -> None:
    assert len(VECTORS) > 3000
    assert sum(1 for v in VECTORS if v.raw.get("uses") == ["app"]) > 100


def render(vector: Vector) -> tuple[str, str]:
    """("out", text) or (phase, Go's error message)."""
    try:
        template = parse(vector.text, name=vector.name)
    except TemplateSyntaxError as exc:
        return "parse", str(exc)
    try:
        return "out", template.execute(vector.data())
    except TemplateExecError as exc:
        return "exec", str(exc)


@pytest.mark.parametrize("vector", VECTORS, ids=[f"L{v.line}" for v in VECTORS])
def test_vector(vector: Vector) -> None:
    expected = ("out", vector.out) if vector.out is not None else (vector.phase, vector.error)
    assert render(vector) == expected, vector.text
