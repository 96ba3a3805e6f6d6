"""Plain mappings -> typed resources, with every problem placed at its source position."""

from __future__ import annotations

from typing import Any

from pydantic import ValidationError

from orchestrator.model import API_VERSION, RESOURCE_KINDS, Resource
from orchestrator.model.base import API_GROUP, SourceMap
from orchestrator.model.errors import problems_from
from orchestrator.problems import Problem, suggest


class Broken(list[Problem]):
    """Problems of a document that names a resource; its kind and name are kept so that
    references to it are not reported a second time as "unknown"."""

    def __init__(self, problems: list[Problem], kind: str, name: str | None) -> None:
        super().__init__(problems)
        self.kind = kind
        self.name = name


def resource_from(data: Any, source: SourceMap) -> Resource | list[Problem] | None:
    """Build the resource a mapping describes; ``None`` for another tool's document."""
    if not isinstance(data, dict):
        kind = "a list" if isinstance(data, list) else f"a {type(data).__name__}"
        return [
            Problem(source.origin, f"document is {kind}, expected a mapping with apiVersion/kind")
        ]
    api_version = data.get("apiVersion")
    if api_version is None:
        if str(data.get("kind")) not in RESOURCE_KINDS:
            return None  # e.g. Helm values in a file that also holds promoflow documents
        return [Problem(source.origin, f"missing apiVersion (expected {API_VERSION!r})")]
    if not str(api_version).startswith(f"{API_GROUP}/"):
        return None
    if api_version != API_VERSION:
        return [
            Problem(
                source.at("apiVersion"),
                f"unsupported apiVersion {api_version!r} (expected {API_VERSION!r})",
            )
        ]
    kind_value = data.get("kind")
    cls = RESOURCE_KINDS.get(str(kind_value))
    if cls is None:
        what = "missing kind" if kind_value is None else f"unknown kind {kind_value!r}"
        return [
            Problem(
                source.at("kind"),
                f"{what}{suggest(str(kind_value), RESOURCE_KINDS)}; one of: "
                + ", ".join(sorted(RESOURCE_KINDS)),
            )
        ]
    try:
        # camelCase only, as the JSON Schema says: "pre_action" is an unknown field in YAML.
        resource = cls.model_validate(data, by_alias=True, by_name=False)
    except ValidationError as exc:
        metadata = data.get("metadata")
        name = metadata.get("name") if isinstance(metadata, dict) else None
        return Broken(problems_from(exc, cls, source), cls.KIND, str(name) if name else None)
    return resource.with_source(source)
