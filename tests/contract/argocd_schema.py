"""Check Argo CD objects and API answers against the upstream schemas (tests/refdata).

Two sources, both from the Argo CD repository: the Application CRD's ``openAPIV3Schema``
(what the Kubernetes API server accepts) and the API server's ``swagger.json`` (what its
REST gateway answers). The CRD schema is OpenAPI v3, not JSON Schema: ``nullable`` becomes
a ``null`` type, ``x-kubernetes-int-or-string`` an integer-or-string, and the other
``x-kubernetes-*`` keys are dropped. Both schemas let unknown fields through, so
:func:`crd_unknown_fields` and :func:`swagger_unknown_fields` walk object and schema
together and name every key the schema does not declare: a misspelt field fails the test.
Timestamps are checked as RFC 3339 (``format: date-time``).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import datetime
from functools import cache
from typing import Any

import jsonschema
import yaml

from tests.support.argo_schema import REFDATA

ARGOCD = REFDATA / "argo-cd"
TYPE_META = ("apiVersion", "kind")
"""Declared by the CRD schema but not by the swagger's (protobuf-generated) definitions."""

FORMATS = jsonschema.FormatChecker()


@FORMATS.checks("date-time", raises=ValueError)
def _rfc3339(value: object) -> bool:
    if not isinstance(value, str):
        return True
    if not (value.endswith("Z") or value[-6:-5] in ("+", "-")):
        raise ValueError(f"no time zone in {value!r}")
    datetime.fromisoformat(value.replace("Z", "+00:00"))
    return True


def _convert(node: Any) -> Any:
    """OpenAPI v3 (structural CRD schema) to JSON Schema."""
    if isinstance(node, list):
        return [_convert(item) for item in node]
    if not isinstance(node, dict):
        return node
    out: dict[str, Any] = {}
    for key, value in node.items():
        if key == "properties":
            out[key] = {name: _convert(sub) for name, sub in value.items()}
        elif key == "nullable" or key.startswith("x-kubernetes-"):
            continue
        else:
            out[key] = _convert(value)
    if node.get("x-kubernetes-int-or-string"):
        out.pop("type", None)
        out.setdefault("anyOf", [{"type": "integer"}, {"type": "string"}])
    if node.get("nullable") and isinstance(out.get("type"), str):
        out["type"] = [out["type"], "null"]
    return out


@cache
def crd_raw_schema() -> dict[str, Any]:
    text = (ARGOCD / "application-crd.yaml").read_text()
    crd = yaml.load(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    version = next(v for v in crd["spec"]["versions"] if v["name"] == "v1alpha1")
    schema: dict[str, Any] = version["schema"]["openAPIV3Schema"]
    return schema


@cache
def crd_schema() -> dict[str, Any]:
    converted: dict[str, Any] = _convert(crd_raw_schema())
    return converted


def crd_errors(obj: Any) -> list[str]:
    """Validation errors of an Application against the CRD schema (empty when valid)."""
    validator = jsonschema.Draft7Validator(crd_schema(), format_checker=FORMATS)
    return [
        f"{'/'.join(map(str, e.absolute_path))}: {e.message}" for e in validator.iter_errors(obj)
    ]


CUSTOM_JSON = {"v1FieldsV1"}
"""Definitions whose Go type marshals its own JSON, unlike its struct fields: FieldsV1 (the
``managedFields`` trie, ``f:metadata``...) is declared with a ``Raw`` field it never sends."""


def _walk(
    value: Any,
    schema: dict[str, Any],
    path: str,
    found: list[str],
    resolve: Callable[[dict[str, Any]], dict[str, Any]],
    type_meta: bool = False,
) -> None:
    if schema.get("$ref", "").rsplit("/", 1)[-1] in CUSTOM_JSON:
        return
    schema = resolve(schema)
    if schema.get("x-kubernetes-preserve-unknown-fields"):
        return
    if isinstance(value, dict):
        props = schema.get("properties")
        extra = schema.get("additionalProperties")
        for key, item in value.items():
            if props is not None and key in props:
                _walk(item, props[key], f"{path}.{key}", found, resolve, type_meta)
            elif isinstance(extra, dict):
                _walk(item, extra, f"{path}.{key}", found, resolve, type_meta)
            elif type_meta and key in TYPE_META and "metadata" in (props or {}):
                continue
            elif props is not None and extra is None:
                found.append(f"{path}.{key}")
    elif isinstance(value, list) and isinstance(schema.get("items"), dict):
        for i, item in enumerate(value):
            _walk(item, schema["items"], f"{path}[{i}]", found, resolve, type_meta)


def crd_unknown_fields(obj: Any) -> list[str]:
    """Paths of keys in an Application that the CRD schema does not declare."""
    found: list[str] = []
    _walk(obj, crd_raw_schema(), "", found, lambda s: s)
    return found


@cache
def swagger() -> dict[str, Any]:
    data: dict[str, Any] = json.loads((ARGOCD / "swagger.json").read_text())
    return data


def _resolve(schema: dict[str, Any]) -> dict[str, Any]:
    while "$ref" in schema:
        schema = swagger()["definitions"][schema["$ref"].rsplit("/", 1)[-1]]
    return schema


def swagger_errors(definition: str, body: Any) -> list[str]:
    """Errors of ``body`` against a swagger definition (``v1alpha1Application``...)."""
    schema = {"$ref": f"#/definitions/{definition}", "definitions": swagger()["definitions"]}
    validator = jsonschema.Draft4Validator(schema, format_checker=FORMATS)
    return [
        f"{'/'.join(map(str, e.absolute_path))}: {e.message}" for e in validator.iter_errors(body)
    ]


def response_errors(path: str, method: str, status: int, body: Any) -> list[str]:
    """Errors of ``body`` against the operation's response schema (default for errors)."""
    responses = swagger()["paths"][path][method.lower()]["responses"]
    schema = (responses.get(str(status)) or responses["default"])["schema"]
    validator = jsonschema.Draft4Validator(
        {**schema, "definitions": swagger()["definitions"]}, format_checker=FORMATS
    )
    return [
        f"{'/'.join(map(str, e.absolute_path))}: {e.message}" for e in validator.iter_errors(body)
    ]


def swagger_unknown_fields(definition: str, body: Any, *, type_meta: bool = False) -> list[str]:
    """Keys of ``body`` the swagger definition does not declare; ``type_meta`` allows the
    ``apiVersion``/``kind`` the swagger leaves out of its object definitions."""
    found: list[str] = []
    _walk(body, {"$ref": f"#/definitions/{definition}"}, "", found, _resolve, type_meta)
    return found
