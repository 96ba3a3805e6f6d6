"""The repo functions' values against Go: tests/vectors/repofns runs each template with Go's
text/template and each condition with expr v1.17.7 over structs shaped and named as Argo CD
v3.2's (package ``shared``), built from the same API answers; here each case is rendered
through :mod:`reporters.notifications.repofns` and must give Go's output or Go's error.

Two differences are Go's own and stated, not hidden: a nil-pointer method panic names the
package's import path (the vectors' package stands in for Argo CD's, whose path is put in
its place), and Go prints a pointer inside a struct as its address, which no template can
rely on (those outputs are checked to be the only ones left out).
"""

from __future__ import annotations

import importlib.util
import json
from collections.abc import Mapping
from functools import cache
from pathlib import Path
from typing import Any

from orchestrator.adapters.argocd import ArgoCDError
from reporters.expr import ExprRuntimeError, ExprSyntaxError
from reporters.expr.values import go_format, go_type
from reporters.notifications import languages
from reporters.notifications.repofns import RepoReadings
from reporters.notifications.reposhapes import SHARED

VECTORS = Path(__file__).resolve().parents[1] / "vectors" / "repofns"
VECTOR_PACKAGE = "promoflow.dev/tests/vectors/repofns/shared"


@cache
def vectors() -> list[dict[str, Any]]:
    lines = (VECTORS / "vectors.jsonl").read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines]


def _inputs() -> list[dict[str, Any]]:
    spec = importlib.util.spec_from_file_location("repofns_inputs", VECTORS / "inputs.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return list(module.cases())


class Answers:
    """The API answers of one case."""

    def __init__(self, case: Mapping[str, Any]) -> None:
        self.case = case

    def _fail(self) -> None:
        if self.case.get("fail"):
            raise ArgoCDError(str(self.case["fail"]))

    def revision_metadata(self, *_: Any, **__: Any) -> dict[str, Any]:
        self._fail()
        return dict(self.case["commit"])

    def app_details(self, *_: Any, **__: Any) -> dict[str, Any]:
        self._fail()
        return dict(self.case["details"])


def mine(case: Mapping[str, Any]) -> dict[str, Any]:
    """This implementation's answer, in the vectors' terms."""
    app = {
        "metadata": {"name": "shop", "namespace": "argocd"},
        "spec": {"project": "default", "source": case["source"]},
        "status": {"sync": {"revision": "abc"}},
    }
    readings = RepoReadings(Answers(case), sleep=lambda _: None)
    if case["lang"] == "expr":
        env = languages.condition_env(app, {"id": "e"}, {}, readings)
        try:
            value = languages.condition(case["text"]).run(env)
        except (ExprRuntimeError, ExprSyntaxError) as exc:
            return {"error": exc.expr_text()}
        return {"out": go_format(value), "type": go_type(value)}
    data = languages.template_data(app, {"id": "e"}, {}, "slack", "ops", readings)
    try:
        return {"out": languages.render(case["text"], data)}
    except languages.RenderError as exc:
        return {"error": str(exc)}


def expected(vector: Mapping[str, Any]) -> dict[str, Any]:
    if "error" in vector:
        return {"error": vector["error"].replace(VECTOR_PACKAGE, SHARED)}
    out = {"out": vector["out"]}
    return {**out, "type": vector["type"]} if vector["lang"] == "expr" else out


def test_the_vectors_are_those_of_the_inputs() -> None:
    keys = ("name", "lang", "text", "commit", "details", "source", "fail")
    made = [{k: v[k] for k in keys if k in v} for v in vectors()]
    assert made == [{k: c[k] for k in keys if k in c} for c in _inputs()]


def test_every_case_is_answered_as_go_answers_it() -> None:
    differences = []
    addresses = 0
    for vector in vectors():
        if "0xADDRESS" in str(vector.get("out", "")):
            addresses += 1
            continue
        if mine(vector) != expected(vector):
            differences.append((vector["name"], vector["text"], mine(vector), expected(vector)))
    assert differences == []
    assert addresses <= 6  # a whole Helm spec printed: its parameter pointers
    errors = sum("error" in v for v in vectors())
    assert len(vectors()) > 400 and errors > 100, (len(vectors()), errors)
