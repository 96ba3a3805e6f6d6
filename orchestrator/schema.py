"""JSON Schema of the resource formats, for editors (yaml-language-server) and CI checks.

Generated from the same pydantic models the loader uses, so the schema cannot drift from
what promoflow accepts. Put ``# yaml-language-server: $schema=promoflow.schema.json`` at the
top of a file after ``promoflow schema > promoflow.schema.json``.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel
from pydantic.json_schema import JsonSchemaMode, models_json_schema

from orchestrator.model import RESOURCE_KINDS


def kind_schema(kind: str) -> dict[str, Any]:
    """Schema of one kind; ``KeyError`` if the kind does not exist."""
    schema = RESOURCE_KINDS[kind].model_json_schema(by_alias=True)
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    return schema


def combined_schema() -> dict[str, Any]:
    """One schema for any promoflow document: a ``oneOf`` over the kinds."""
    models: list[tuple[type[BaseModel], JsonSchemaMode]] = [
        (cls, "validation") for cls in RESOURCE_KINDS.values()
    ]
    refs, defs = models_json_schema(models, by_alias=True)
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": "https://promoflow.dev/schemas/v1alpha1.json",
        "title": "promoflow resources (promoflow.dev/v1alpha1)",
        "oneOf": [refs[m] for m in models],
        **defs,
    }
