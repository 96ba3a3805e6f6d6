"""PromotionTemplate: what moves from one environment's configuration to the next.

File names are relative to the product's directory in each environment and may use glob
patterns; YAML paths name single values. Both are checked here, at load time, so a template
that could write outside the product's directory never reaches a promotion.
"""

from __future__ import annotations

import re
from typing import Annotated, Any, ClassVar, Literal

from pydantic import AfterValidator, Field, ValidationInfo, field_validator, model_validator

from orchestrator.imageref import ReferenceError, parse_repository
from orchestrator.imagespec import ImageSpec, kustomize_image_spec
from orchestrator.model.base import Model, Resource
from orchestrator.model.paths import (
    check_paths_value,
    check_relative_file,
    check_yaml_path,
    is_glob,
)
from orchestrator.model.yamlpath import Selector, format_yaml_path
from orchestrator.versionpattern import VersionRule, compile_pattern

__all__ = [
    "FileRule",
    "ImageRule",
    "KustomizeImage",
    "PromotionTemplate",
    "PromotionTemplateSpec",
    "RelativeFile",
    "VersionSource",
    "YamlPath",
    "check_relative_file",
    "image_spec",
    "is_glob",
    "version_rule",
]

RelativeFile = Annotated[str, AfterValidator(check_relative_file)]
YamlPath = Annotated[str, AfterValidator(check_yaml_path)]


_IMAGE_NAME = re.compile(r"[^\s\]\[\"']+")


def _image_name(value: str) -> str:
    if not _IMAGE_NAME.fullmatch(value):
        raise ValueError(f"{value!r} is not an image name (e.g. ghcr.io/acme/web)")
    return value


class KustomizeImage(Model):
    """An entry of a kustomization's ``images:``, named by its ``name`` as Kustomize names it
    (``kustomize edit set image``): the version is its ``newTag`` or ``digest``, which move
    together (setting one clears the other, since a stale digest would win over a new
    tag), while ``newName`` stays the environment's own (a registry mirror per region)."""

    name: Annotated[str, AfterValidator(_image_name)]

    def path(self, key: str = "") -> str:
        """``images[name=NAME]`` and, with ``key``, one of its fields."""
        parts: tuple[str | Selector, ...] = ("images", Selector("name", self.name))
        return format_yaml_path((*parts, key) if key else parts)


class FileRule(Model):
    """One file to promote: selected YAML paths, a Kustomize image, or the whole file when
    neither is given.

    Only an *absent* ``paths`` means the whole file: ``paths: []`` (or null, ``""``, ``{}``)
    looks like "nothing selected" to a reader, and taking it as "everything" once overwrote
    a target environment's own settings. So any written ``paths`` must list something.

    Every path must exist in the source and the target file, so a typo stops the promotion
    instead of adding a key nothing reads; ``create: true`` lets the rule add what the
    target lacks, deliberately."""

    file: RelativeFile
    # validate_default=False: the check below runs only for a ``paths`` actually written
    paths: list[YamlPath] = Field(default_factory=list, validate_default=False, min_length=1)
    create: bool = False
    kustomize_image: KustomizeImage | None = None

    @field_validator("paths", mode="before")
    @classmethod
    def _written_paths_list_something(cls, value: Any) -> Any:
        problem = check_paths_value(value)
        if problem:
            raise ValueError(problem)
        return value

    @model_validator(mode="after")
    def _one_kind_of_rule(self) -> FileRule:
        if self.kustomize_image is not None and self.paths:
            raise ValueError("give either 'paths' or 'kustomizeImage', not both")
        if self.create and not self.paths:
            raise ValueError(
                "'create' applies to 'paths' (a Kustomize image entry is always added when "
                "missing; a whole file is always copied)"
            )
        return self

    @property
    def whole_file(self) -> bool:
        return not self.paths and self.kustomize_image is None


class VersionSource(Model):
    """Where the product's version lives, so ``--version V`` knows what to set.

    ``fields`` are YAML paths of the same file that belong to the version (an image digest
    beside its tag): a new version is only accepted with a value for each
    (``promoflow promote --set image.digest=sha256:...``), so a tag never moves without its
    digest, and the file rules then copy them onward together."""

    file: RelativeFile
    path: YamlPath | None = None
    kustomize_image: KustomizeImage | None = None
    """Instead of ``path``: the version is this Kustomize image's ``newTag`` (the entry is
    added when missing, and a digest that is not one of the ``fields`` is cleared)."""
    fields: list[YamlPath] = []
    version_pattern: str | None = None
    """A regular expression the whole version must match (orchestrator.versionpattern):
    without it, a version written as an image tag must be one a registry accepts."""

    @field_validator("version_pattern")
    @classmethod
    def _compiles(cls, value: str | None) -> str | None:
        if value is not None:
            if not value.strip():
                raise ValueError("versionPattern is empty; leave it out to take the default")
            compile_pattern(value)
        return value

    @field_validator("fields")
    @classmethod
    def _distinct(cls, value: list[str]) -> list[str]:
        if len(set(value)) != len(value):
            raise ValueError("each field may be listed once")
        return value

    @model_validator(mode="after")
    def _path_or_image(self) -> VersionSource:
        if (self.path is None) == (self.kustomize_image is None):
            raise ValueError("give either 'path' or 'kustomizeImage' (where the version is)")
        if self.version_path in self.fields:
            raise ValueError("the version's own path is not one of its fields")
        return self

    @property
    def version_path(self) -> str:
        """The YAML path the version is written at."""
        if self.kustomize_image is not None:
            return self.kustomize_image.path("newTag")
        assert self.path is not None  # checked by _path_or_image
        return self.path


class ImageRule(Model):
    """Which container image the version is, so the gate can check that it runs.

    ``repository`` names it (``ghcr.io/acme/web``), or ``repositoryField`` reads it from a
    YAML path of ``file`` (a chart's ``image.repository``; ``repository``, when also given,
    is what an absent field means). ``tagField`` and ``digestField`` are the YAML paths of
    the tag and the digest in ``file``; ``file`` defaults to the versionSource's file and
    ``tagField`` to its path when the files agree."""

    repository: str | None = None
    repository_field: YamlPath | None = None
    file: RelativeFile | None = None
    tag_field: YamlPath | None = None
    digest_field: YamlPath | None = None

    @field_validator("repository")
    @classmethod
    def _is_repository(cls, value: str | None) -> str | None:
        if value is not None:
            try:
                parse_repository(value)
            except ReferenceError as exc:
                raise ValueError(
                    f"{value!r} is not an image repository (as ghcr.io/acme/web): {exc}"
                ) from None
        return value

    @field_validator("file")
    @classmethod
    def _one_file(cls, value: str | None) -> str | None:
        if value is not None and is_glob(value):
            raise ValueError(f"{value!r}: the image is read from one file, not a pattern")
        return value

    @model_validator(mode="after")
    def _named(self) -> ImageRule:
        if self.repository is None and self.repository_field is None:
            raise ValueError("give 'repository' (ghcr.io/acme/web) or 'repositoryField'")
        return self


class PromotionTemplateSpec(Model):
    version_source: VersionSource | None = None
    files: list[FileRule]
    image: ImageRule | None = None

    @field_validator("image")
    @classmethod
    def _image_resolves(cls, value: ImageRule | None, info: ValidationInfo) -> ImageRule | None:
        """Defaults that cannot be taken (no versionSource to take the file or the tag
        field from) are errors here, at ``image``, not a check that quietly never runs."""
        if value is not None and "version_source" in info.data:
            _explicit_spec(value, info.data["version_source"])
        return value


def image_spec(spec: PromotionTemplateSpec) -> ImageSpec | None:
    """The image a template's version is, normalized (``None``: unknown, nothing to
    verify). An explicit ``image:`` wins; else a Kustomize image rule
    (:func:`kustomize_image_name`)."""
    if spec.image is not None:
        return _explicit_spec(spec.image, spec.version_source)
    found = kustomize_image_name(spec)
    if found is None:
        return None
    file, name = found
    return kustomize_image_spec(name, file)


def kustomize_image_name(spec: PromotionTemplateSpec) -> tuple[str, str] | None:
    """Where a Kustomize image rule (``kustomizeImage: {name: X}``) becomes the image:
    ``(file, X)`` of the versionSource's rule, else of the only file rule that has one.
    """
    source = spec.version_source
    if source is not None and source.kustomize_image is not None:
        return source.file, source.kustomize_image.name
    found = [(r.file, r.kustomize_image.name) for r in spec.files if r.kustomize_image]
    return found[0] if len(found) == 1 else None


def _explicit_spec(rule: ImageRule, source: VersionSource | None) -> ImageSpec:
    """``image:`` with its defaults taken from the versionSource; ``ValueError`` when one
    is needed and cannot be taken."""
    file = rule.file or (source.file if source is not None else None)
    if file is None:
        raise ValueError("'file' is required: the template has no versionSource to take it from")
    tag_field = rule.tag_field
    agrees = source is not None and source.file == file and source.version_path != rule.digest_field
    if tag_field is None and agrees and source is not None:
        tag_field = source.version_path  # the version is the tag
    if tag_field is None and rule.digest_field is None:
        where = f" (the version is written to {source.file}, not {file})" if source else ""
        raise ValueError(f"give tagField or digestField{where}")
    field = tag_field or rule.digest_field or ""
    return ImageSpec(
        file=file,
        repository=rule.repository or "",
        repository_field=rule.repository_field or "",
        tag_field=tag_field or "",
        digest_field=rule.digest_field or "",
        source=f"{file} {field}",
    )


def version_rule(template: PromotionTemplate) -> VersionRule:
    """Which versions ``template`` accepts (see :mod:`orchestrator.versionpattern`)."""
    spec = template.spec
    source = spec.version_source
    if source is None:
        return VersionRule(template=template.name)
    image = image_spec(spec)
    tag = source.kustomize_image is not None or (
        image is not None and image.file == source.file and image.tag_field == source.version_path
    )
    return VersionRule(
        source.version_pattern, tag, template.name, f"{source.file} {source.version_path}"
    )


class PromotionTemplate(Resource):
    KIND: ClassVar[str] = "PromotionTemplate"
    kind: Literal["PromotionTemplate"] = "PromotionTemplate"
    spec: PromotionTemplateSpec
