"""Check Argo objects against the upstream JSON Schema (tests/refdata), strictly.

The upstream schema declares ``IntOrString`` as a string only, while the cluster accepts
integers too; promoflow emits strings (``retryStrategy.limit: "3"``), and this checker widens
that one definition so objects read back from a server (which may hold integers) pass.
The schema also allows unknown fields, so :func:`unknown_fields` walks object and schema
together and names every key the schema does not define: a misspelt field fails the test.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

import jsonschema

REFDATA = Path(__file__).resolve().parents[1] / "refdata"
WORKFLOWS_SCHEMA = REFDATA / "argo-workflows" / "schema.json"
PREFIX = "io.argoproj.workflow.v1alpha1."


@cache
def definitions() -> dict[str, Any]:
    defs: dict[str, Any] = json.loads(WORKFLOWS_SCHEMA.read_text())["definitions"]
    defs["io.k8s.apimachinery.pkg.util.intstr.IntOrString"] = {"type": ["string", "integer"]}
    return defs


def schema_errors(obj: dict[str, Any], kind: str | None = None) -> list[str]:
    """Validation errors of ``obj`` against its kind's definition (empty when valid)."""
    ref = {"$ref": f"#/definitions/{PREFIX}{kind or obj['kind']}", "definitions": definitions()}
    validator = jsonschema.Draft7Validator(ref)
    return [
        f"{'/'.join(map(str, e.absolute_path))}: {e.message}" for e in validator.iter_errors(obj)
    ]


def _resolve(schema: dict[str, Any]) -> dict[str, Any]:
    while "$ref" in schema:
        schema = definitions()[schema["$ref"].rsplit("/", 1)[-1]]
    return schema


def unknown_fields(obj: Any, kind: str | None = None) -> list[str]:
    """Paths of keys in ``obj`` that its schema does not define."""
    root = {"$ref": f"#/definitions/{PREFIX}{kind or obj['kind']}"}
    found: list[str] = []

    def walk(value: Any, schema: dict[str, Any], path: str) -> None:
        schema = _resolve(schema)
        if isinstance(value, dict):
            props = schema.get("properties")
            extra = schema.get("additionalProperties")
            for key, item in value.items():
                if props is not None and key in props:
                    walk(item, props[key], f"{path}.{key}")
                elif isinstance(extra, dict):
                    walk(item, extra, f"{path}.{key}")
                elif props is not None:
                    found.append(f"{path}.{key}")
        elif isinstance(value, list) and isinstance(schema.get("items"), dict):
            for i, item in enumerate(value):
                walk(item, schema["items"], f"{path}[{i}]")

    walk(obj, root, "")
    return found
