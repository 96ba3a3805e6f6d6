"""Validate HTTP answers against the Argo Server swagger (tests/refdata)."""

from __future__ import annotations

import json
from functools import cache
from typing import Any

import jsonschema

from tests.support.argo_schema import REFDATA

SWAGGER = REFDATA / "argo-workflows" / "openapi-swagger.json"


@cache
def swagger() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(SWAGGER.read_text())
    data["definitions"]["io.k8s.apimachinery.pkg.util.intstr.IntOrString"] = {
        "type": ["string", "integer"]
    }
    return data


def operation(path: str, method: str) -> dict[str, Any]:
    op: dict[str, Any] = swagger()["paths"][path][method.lower()]
    return op


def response_errors(path: str, method: str, status: int, body: Any) -> list[str]:
    """Errors of ``body`` against the operation's response schema (default for errors)."""
    responses = operation(path, method)["responses"]
    schema = (responses.get(str(status)) or responses["default"])["schema"]
    validator = jsonschema.Draft4Validator({**schema, "definitions": swagger()["definitions"]})
    return [e.message for e in validator.iter_errors(body)]
