"""PromotionTemplate: what moves from one environment's configuration to the next.

File names are relative to the product's directory in each environment and may use glob
patterns; YAML paths name single values. Both are checked here, at load time, so a template
that could write outside the product's directory never reaches a promotion.
"""

from __future__ import annotations

from typing import Annotated, ClassVar, Literal

from pydantic import AfterValidator

from orchestrator.model.base import Model, Resource
from orchestrator.model.paths import check_relative_file, check_yaml_path, is_glob

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
    """One file to promote: selected YAML paths, or the whole file when ``paths`` is empty."""

    file: RelativeFile
    paths: list[YamlPath] = []

    @property
    def whole_file(self) -> bool:
        return not self.paths


class VersionSource(Model):
    """Where the product's version lives, so ``--version V`` knows what to set."""

    file: RelativeFile
    path: YamlPath


class PromotionTemplateSpec(Model):
    version_source: VersionSource | None = None
    files: list[FileRule]


class PromotionTemplate(Resource):
    KIND: ClassVar[str] = "PromotionTemplate"
    kind: Literal["PromotionTemplate"] = "PromotionTemplate"
    spec: PromotionTemplateSpec
