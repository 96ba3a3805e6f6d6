"""Plain mappings -> typed resources, with every problem placed at its source position."""

from __future__ import annotations

from typing import Any

from pydantic import ValidationError

from orchestrator.loading.ours import Claim, claim, missing_version_is_ours
from orchestrator.model import API_VERSION, RESOURCE_KINDS, Resource
from orchestrator.model.base import SourceMap
from orchestrator.model.errors import problems_from
from orchestrator.problems import Problem, suggest


class Broken(list[Problem]):
    """Problems of a document that names a resource; its kind and name are kept so that
    references to it are not reported a second time as "unknown"."""

    def __init__(self, problems: list[Problem], kind: str, name: str | None) -> None:
        super().__init__(problems)
        self.kind = kind
        self.name = name


def _shown(value: str) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def resource_from(
    data: Any, source: SourceMap, file_is_ours: bool = True
) -> Resource | list[Problem] | None:
    """Build the resource a mapping describes; ``None`` for another tool's document.

    ``file_is_ours``: the file holds at least one promoflow document (see
    :mod:`orchestrator.loading.ours` for which documents are claimed and why)."""
    if not isinstance(data, dict):
        if not file_is_ours:
            return None
        kind = "a list" if isinstance(data, list) else f"a {type(data).__name__}"
        return [
            Problem(source.origin, f"document is {kind}, expected a mapping with apiVersion/kind")
        ]
    claimed = claim(data)
    if claimed is Claim.OTHER:
        return None
    if claimed is Claim.NO_VERSION:
        if not missing_version_is_ours(data, file_is_ours):
            return None
        return [Problem(source.origin, f"missing apiVersion (expected {API_VERSION!r})")]
    if claimed is Claim.WRONG_VERSION:
        api_version = data.get("apiVersion")
        shown = _shown(api_version) if isinstance(api_version, str) else "(not a string)"
        return [
            Problem(
                source.at("apiVersion"),
                f"unsupported apiVersion {shown} (expected {API_VERSION!r})",
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
