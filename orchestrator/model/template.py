"""PromotionTemplate: what moves from one environment's configuration to the next.

File names are relative to the product's directory in each environment and may use glob
patterns; YAML paths name single values. Both are checked here, at load time, so a template
that could write outside the product's directory never reaches a promotion.
"""

from __future__ import annotations

from pathlib import PurePosixPath
from typing import Annotated, ClassVar, Literal

from pydantic import AfterValidator

from orchestrator.model.base import Model, Resource
from orchestrator.model.yamlpath import parse_yaml_path

_GLOB_CHARS = set("*?[")


def check_relative_file(value: str) -> str:
    """A path inside the product directory: relative, no ``..``, forward slashes."""
    if not value.strip():
        raise ValueError("file cannot be empty")
    if "\\" in value:
        raise ValueError(f"{value!r}: use '/' to separate directories")
    path = PurePosixPath(value)
    if path.is_absolute():
        raise ValueError(f"{value!r} is absolute: files are relative to the product directory")
    if ".." in path.parts:
        raise ValueError(f"{value!r} escapes the product directory ('..' is not allowed)")
    return value


def check_yaml_path(value: str) -> str:
    parse_yaml_path(value)
    return value


def is_glob(file: str) -> bool:
    return any(ch in _GLOB_CHARS for ch in file)


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
