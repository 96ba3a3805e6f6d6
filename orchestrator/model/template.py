"""PromotionTemplate: what moves from one environment's configuration to the next.

File names are relative to the product's directory in each environment and may use glob
patterns; YAML paths name single values. Both are checked here, at load time, so a template
that could write outside the product's directory never reaches a promotion.
"""

from __future__ import annotations

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

__all__ = [
    "FileRule",
    "ImageRule",
    "PromotionTemplate",
    "PromotionTemplateSpec",
    "RelativeFile",
    "VersionSource",
    "YamlPath",
    "check_relative_file",
    "image_spec",
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
    Read by attribute so a configuration without such rules needs nothing more."""
    source = spec.version_source
    rule = getattr(source, "kustomize_image", None)
    if source is not None and rule is not None:
        return source.file, str(rule.name)
    rules = [(r.file, getattr(r, "kustomize_image", None)) for r in spec.files]
    found = [(file, str(rule.name)) for file, rule in rules if rule is not None]
    return found[0] if len(found) == 1 else None


def _explicit_spec(rule: ImageRule, source: VersionSource | None) -> ImageSpec:
    """``image:`` with its defaults taken from the versionSource; ``ValueError`` when one
    is needed and cannot be taken."""
    file = rule.file or (source.file if source is not None else None)
    if file is None:
        raise ValueError("'file' is required: the template has no versionSource to take it from")
    tag_field = rule.tag_field
    agrees = source is not None and source.file == file and source.path != rule.digest_field
    if tag_field is None and agrees and source is not None:
        tag_field = source.path  # the version is the tag
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


class PromotionTemplate(Resource):
    KIND: ClassVar[str] = "PromotionTemplate"
    kind: Literal["PromotionTemplate"] = "PromotionTemplate"
    spec: PromotionTemplateSpec
