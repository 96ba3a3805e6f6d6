"""PromotionTemplate: what moves from one environment's configuration to the next.

File names are relative to the product's directory in each environment and may use glob
patterns; YAML paths name single values. Both are checked here, at load time, so a template
that could write outside the product's directory never reaches a promotion.
"""

from __future__ import annotations

from typing import Annotated, Any, ClassVar, Literal

from pydantic import AfterValidator, Field, field_validator

from orchestrator.model.base import Model, Resource
from orchestrator.model.paths import (
    check_paths_value,
    check_relative_file,
    check_yaml_path,
    is_glob,
)

__all__ = [
    "FileRule",
    "PromotionTemplate",
    "PromotionTemplateSpec",
    "RelativeFile",
    "VersionSource",
    "YamlPath",
    "check_relative_file",
    "is_glob",
]

RelativeFile = Annotated[str, AfterValidator(check_relative_file)]
YamlPath = Annotated[str, AfterValidator(check_yaml_path)]


class FileRule(Model):
    """One file to promote: selected YAML paths, or the whole file when ``paths`` is absent.

    Only an *absent* ``paths`` means the whole file: ``paths: []`` (or null, ``""``, ``{}``)
    looks like "nothing selected" to a reader, and taking it as "everything" once overwrote
    a target environment's own settings. So any written ``paths`` must list something."""

    file: RelativeFile
    # validate_default=False: the check below runs only for a ``paths`` actually written
    paths: list[YamlPath] = Field(default_factory=list, validate_default=False, min_length=1)

    @field_validator("paths", mode="before")
    @classmethod
    def _written_paths_list_something(cls, value: Any) -> Any:
        problem = check_paths_value(value)
        if problem:
            raise ValueError(problem)
        return value

    @property
    def whole_file(self) -> bool:
        return not self.paths


class VersionSource(Model):
    """Where the product's version lives, so ``--version V`` knows what to set.

    ``fields`` are YAML paths of the same file that belong to the version (an image digest
    beside its tag): a new version is only accepted with a value for each
    (``promoflow promote --set image.digest=sha256:...``), so a tag never moves without its
    digest, and the file rules then copy them onward together."""

    file: RelativeFile
    path: YamlPath
    fields: list[YamlPath] = []

    @field_validator("fields")
    @classmethod
    def _distinct(cls, value: list[str], info: Any) -> list[str]:
        if len(set(value)) != len(value):
            raise ValueError("each field may be listed once")
        if info.data.get("path") in value:
            raise ValueError("the version's own path is not one of its fields")
        return value


class PromotionTemplateSpec(Model):
    version_source: VersionSource | None = None
    files: list[FileRule]


class PromotionTemplate(Resource):
    KIND: ClassVar[str] = "PromotionTemplate"
    kind: Literal["PromotionTemplate"] = "PromotionTemplate"
    spec: PromotionTemplateSpec
