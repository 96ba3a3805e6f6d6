"""Check rendered Kubernetes objects against upstream schemas, strictly.

:func:`validate` takes one object (a parsed YAML document) and returns its problems, each as
``"<kind>/<name>: <path>: <reason>"``, for instance
``"Deployment/web: spec.template.spec.containers[0].name: required"``. An empty list means
the object is valid.

- Core kinds are checked against the Kubernetes v1.34.2 OpenAPI v3 schemas vendored in
  ``tests/refdata/kubernetes`` (see ``extract.py`` there for the kinds and the source). The
  schemas are read as the API server reads them: ``IntOrString`` takes an integer or a
  string, ``Quantity`` a string in quantity form or a number, ``format: int32``/``int64``
  integers (no floats, no booleans) in range, ``format: byte`` base64 and ``format:
  date-time`` RFC 3339 strings. An object schema that lists ``properties`` and has no
  ``additionalProperties`` rejects every other field, as ``kubectl apply --validate=strict``
  does. ``null`` is a type error: these schemas mark nothing ``nullable``.
- Argo kinds (``argoproj.io/v1alpha1``) are checked against the vendored Argo Workflows schema
  by the helpers of ``tests/support/argo_schema.py``, unknown fields included.
- Every object needs ``apiVersion``, ``kind`` and ``metadata.name`` (Helm and ``kubectl
  apply`` find objects by name); an apiVersion/kind without a known schema is a problem.

The 1.34.2 schemas carry no ``enum``: allowed values listed only in descriptions (a Service's
``type``, a container's ``imagePullPolicy``) are the API server's business, not checked here.

Schemas and validators are loaded once per process and kept.
"""

from __future__ import annotations

import base64
import binascii
import json
import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from datetime import datetime
from functools import cache
from typing import Any

import jsonschema
from jsonschema.exceptions import ValidationError
from jsonschema.protocols import Validator
from referencing import Registry
from referencing.jsonschema import DRAFT4

from tests.support.argo_schema import PREFIX as ARGO_PREFIX
from tests.support.argo_schema import REFDATA, definitions, unknown_fields

KUBERNETES_VERSION = "v1.34.2"
KUBERNETES_SCHEMAS = REFDATA / "kubernetes" / f"{KUBERNETES_VERSION}-schemas.json"
KUBERNETES_URI = f"urn:promoflow:kubernetes:{KUBERNETES_VERSION}"
ARGO_API_VERSION = "argoproj.io/v1alpha1"
ARGO_KINDS = frozenset({"Workflow", "WorkflowTemplate", "ClusterWorkflowTemplate", "CronWorkflow"})

_INT_RANGES = {"int32": (-(2**31), 2**31 - 1), "int64": (-(2**63), 2**63 - 1)}
_DATE_TIME = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)", re.ASCII)
# apimachinery's resource.ParseQuantity: a signed decimal, then a binary-SI, a decimal-SI or
# an exponent suffix ("500m", "1.5Gi", "2e3").
_QUANTITY = re.compile(
    r"[+-]?(\d+(\.\d*)?|\.\d+)(Ki|Mi|Gi|Ti|Pi|Ei|[numkMGTPE]|[eE][+-]?\d+)?", re.ASCII
)
_PLAIN_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_-]*", re.ASCII)
_JSON_TYPES = {
    bool: "boolean",
    int: "integer",
    float: "number",
    str: "string",
    list: "array",
    dict: "object",
    type(None): "null",
}
_FORMAT_REASONS = {
    "byte": "not base64 (format byte)",
    "date-time": "not an RFC 3339 date-time (format date-time)",
    "int32": "out of the int32 range",
    "int64": "out of the int64 range",
    "quantity": "not a quantity (such as 500m, 128Mi, 2)",
}


def validate(obj: dict[str, Any]) -> list[str]:
    """Problems of one rendered object; empty when it is valid."""
    if not isinstance(obj, dict):
        return [f"?/?: (root): must be an object, not {_describe(obj)}"]
    api_version, kind = obj.get("apiVersion"), obj.get("kind")
    metadata = obj.get("metadata")
    name = metadata.get("name") if isinstance(metadata, dict) else None
    label = f"{kind if isinstance(kind, str) else '?'}/{name if isinstance(name, str) else '?'}"
    if not isinstance(api_version, str) or not isinstance(kind, str):
        return [f"{label}: (root): apiVersion and kind are required strings"]

    validator = _kubernetes_validator(api_version, kind)
    extra: list[str] = []
    if validator is None and api_version == ARGO_API_VERSION and kind in ARGO_KINDS:
        validator = _argo_validator(kind)
        extra = [f"{path.lstrip('.')}: unknown field" for path in unknown_fields(obj, kind)]
    if validator is None:
        validator = _crd_validator(api_version, kind)
    if validator is None:
        problem = f"{label}: no schema is known for apiVersion {api_version!r} kind {kind!r}"
        others = [known for known in known_kinds() if known.rpartition("/")[2] == kind]
        return [f"{problem} (known: {', '.join(others)})" if others else problem]
    return sorted(
        {f"{label}: {problem}" for problem in [*_problems(validator.iter_errors(obj)), *extra]}
    )


def known_kinds() -> list[str]:
    """Every ``apiVersion/kind`` with a schema, Kubernetes and Argo."""
    argo = (f"{ARGO_API_VERSION}/{kind}" for kind in ARGO_KINDS)
    return sorted([*_kubernetes()[0], *argo, *_crds()])


# -- loading ---------------------------------------------------------------------------------


def _root(ref: str, api_version: str, kind: str) -> dict[str, Any]:
    """The schema of a whole object: its kind's schema plus what every applied object needs."""
    return {
        "allOf": [{"$ref": ref}],
        "properties": {
            "apiVersion": {"enum": [api_version]},
            "kind": {"enum": [kind]},
            "metadata": {"type": "object", "required": ["name"]},
        },
        "required": ["apiVersion", "kind", "metadata"],
    }


@cache
def _kubernetes() -> tuple[dict[str, str], Registry[Any]]:
    document = json.loads(KUBERNETES_SCHEMAS.read_text())
    schemas = {
        name: _as_served(schema) for name, schema in document["components"]["schemas"].items()
    }
    resource = DRAFT4.create_resource({"components": {"schemas": schemas}})
    registry: Registry[Any] = Registry().with_resource(KUBERNETES_URI, resource)
    return document["kinds"], registry


@cache
def _kubernetes_validator(api_version: str, kind: str) -> Validator | None:
    kinds, registry = _kubernetes()
    name = kinds.get(f"{api_version}/{kind}")
    if name is None:
        return None
    ref = f"{KUBERNETES_URI}#/components/schemas/{name}"
    return jsonschema.Draft4Validator(
        _root(ref, api_version, kind), registry=registry, format_checker=_format_checker()
    )


@cache
def _crds() -> dict[str, dict[str, Any]]:
    """The vendored CRD schemas (``tests/refdata/crds``), by ``apiVersion/kind``."""
    out = {}
    for path in sorted((REFDATA / "crds").glob("*.json")):
        document = json.loads(path.read_text())
        out[f"{document['apiVersion']}/{document['kind']}"] = document["schema"]
    return out


@cache
def _crd_validator(api_version: str, kind: str) -> Validator | None:
    """A custom resource, as the API server reads its CRD's structural schema (strict)."""
    schema = _crds().get(f"{api_version}/{kind}")
    if schema is None:
        return None
    served = _as_served(schema)
    properties = {
        **(served.get("properties") or {}),
        "apiVersion": {"enum": [api_version]},
        "kind": {"enum": [kind]},
        "metadata": {"type": "object", "required": ["name"]},
    }
    required = sorted({*served.get("required", []), "apiVersion", "kind", "metadata"})
    root = {**served, "properties": properties, "required": required}
    return jsonschema.Draft4Validator(root, format_checker=_format_checker())


@cache
def _argo_validator(kind: str) -> Validator:
    # The schema tests/support/argo_schema.py loads (IntOrString widened), read as it reads it.
    root = _root(f"#/definitions/{ARGO_PREFIX}{kind}", ARGO_API_VERSION, kind)
    return jsonschema.Draft7Validator({**root, "definitions": definitions()})


def _as_served(schema: Any) -> Any:
    """An OpenAPI schema of Kubernetes as a Draft 4 JSON Schema, with the API server's reading."""
    if not isinstance(schema, dict):
        return schema
    out: dict[str, Any] = {}
    for key, value in schema.items():
        if key == "properties":
            out[key] = {field: _as_served(sub) for field, sub in value.items()}
        elif key in ("items", "additionalProperties", "not"):
            out[key] = _as_served(value)
        elif key in ("allOf", "anyOf", "oneOf"):
            out[key] = [_as_served(sub) for sub in value]
        elif key not in ("default", "example", "nullable") and not key.startswith("x-"):
            out[key] = value
    # IntOrString and Quantity are a oneOf of bare types: one type list reads better in errors.
    branches = out.get("oneOf")
    if branches and all(set(branch) == {"type"} for branch in branches):
        del out["oneOf"]
        out["type"] = [branch["type"] for branch in branches]
        if out.get("format") == "int-or-string":
            del out["format"]
        elif set(out["type"]) == {"string", "number"}:
            out["format"] = "quantity"  # Quantity, the only such type: the API server parses it
    if schema.get("x-kubernetes-int-or-string"):
        out["type"] = ["integer", "string"]
    if schema.get("nullable") and "type" in out:
        types = out["type"] if isinstance(out["type"], list) else [out["type"]]
        out["type"] = [*types, "null"]
    if (
        "properties" in out
        and "additionalProperties" not in out
        and not schema.get("x-kubernetes-preserve-unknown-fields")
    ):
        out["additionalProperties"] = False
    return out


@cache
def _format_checker() -> jsonschema.FormatChecker:
    checker = jsonschema.FormatChecker(formats=())

    @checker.checks("byte")
    def is_byte(value: object) -> bool:
        if not isinstance(value, str):
            return True
        try:  # as Go's base64.StdEncoding: padding required, line breaks skipped
            base64.b64decode(value.replace("\r", "").replace("\n", ""), validate=True)
        except (binascii.Error, ValueError):
            return False
        return True

    @checker.checks("date-time")
    def is_date_time(value: object) -> bool:
        if not isinstance(value, str):
            return True
        if not _DATE_TIME.fullmatch(value):
            return False
        try:
            datetime.fromisoformat(value)
        except ValueError:
            return False
        return True

    for fmt, (low, high) in _INT_RANGES.items():
        checker.checks(fmt)(_range_check(low, high))

    @checker.checks("quantity")
    def is_quantity(value: object) -> bool:
        return not isinstance(value, str) or _QUANTITY.fullmatch(value) is not None

    return checker


def _range_check(low: int, high: int) -> Callable[[object], bool]:
    def check(value: object) -> bool:
        return not isinstance(value, int) or isinstance(value, bool) or low <= value <= high

    return check


# -- messages --------------------------------------------------------------------------------


def _problems(errors: Iterable[ValidationError]) -> Iterator[str]:
    for error in errors:
        path = list(error.absolute_path)
        keyword = error.validator
        value: Any = error.validator_value  # the keyword's argument in the schema
        schema: Any = error.schema
        if keyword == "required" and isinstance(error.instance, dict):
            for field in value:
                if field not in error.instance:
                    yield f"{_path([*path, field])}: required"
        elif keyword == "additionalProperties" and isinstance(error.instance, dict):
            known = schema.get("properties", {})
            for field in error.instance:
                if field not in known:
                    yield f"{_path([*path, field])}: unknown field"
        elif keyword == "type":
            wanted = " or ".join(value) if isinstance(value, list) else value
            yield f"{_path(path)}: must be {wanted}, not {_describe(error.instance)}"
        elif keyword == "enum":
            allowed = ", ".join(json.dumps(item) for item in value)
            yield f"{_path(path)}: must be one of {allowed}, not {_describe(error.instance)}"
        elif keyword == "format":
            reason = _FORMAT_REASONS.get(value, f"not {value}")
            yield f"{_path(path)}: {reason}: {_describe(error.instance)}"
        else:
            yield f"{_path(path)}: {error.message}"


def _path(parts: Sequence[str | int]) -> str:
    out = ""
    for part in parts:
        if isinstance(part, int):
            out += f"[{part}]"
        elif _PLAIN_KEY.fullmatch(part):
            out += f".{part}" if out else part
        else:
            out += f"[{json.dumps(part)}]"
    return out or "(root)"


def _describe(value: object) -> str:
    kind = _JSON_TYPES.get(type(value), type(value).__name__)
    if isinstance(value, dict | list):
        return kind
    text = json.dumps(value) if value is not None else ""
    if len(text) > 40:
        text = text[:37] + "..."
    return f"{kind} {text}".rstrip()
