"""Which image a template's version is, and how to read it from a promoted file.

A PromotionTemplate may say which container image its version names (``spec.image``, or a
Kustomize image rule): a repository, given or read from a field, and the YAML paths of the
tag and the digest in one file. The model resolves that to one :class:`ImageSpec`, the
compiler hands it to the promote step as JSON (``--image``), the step reads the image from
the file it just promoted and the wait step checks that Argo CD shows it running; the
Argo CD simulator reads it the same way to show what a real cluster would run. One shape
for all of them, so the image checked is the image written.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass

from orchestrator.imageref import ReferenceError, parse

_KEYS = {
    "file": "file",
    "repository": "repository",
    "repositoryField": "repository_field",
    "tagField": "tag_field",
    "digestField": "digest_field",
    "source": "source",
}


class ImageSpecError(ValueError):
    """An ``--image`` value that is not an image spec; the message says what is wrong."""


@dataclass(frozen=True)
class ImageSpec:
    """``file`` holds the image: its repository is ``repository`` or the value at
    ``repository_field`` (which wins when present), its tag at ``tag_field`` and its digest
    at ``digest_field`` (either may be empty, not both). ``source`` names where the
    version is written, for messages (``values.yaml image.tag``)."""

    file: str
    repository: str = ""
    repository_field: str = ""
    tag_field: str = ""
    digest_field: str = ""
    source: str = ""

    def to_json(self) -> str:
        data = {key: getattr(self, attr) for key, attr in _KEYS.items()}
        return json.dumps(data, separators=(",", ":"))

    @classmethod
    def from_json(cls, text: str) -> ImageSpec:
        try:
            data = json.loads(text) if len(text) <= MAX_SPEC else None
        except ValueError:
            raise ImageSpecError("not valid JSON") from None
        if not isinstance(data, dict) or not all(isinstance(v, str) for v in data.values()):
            raise ImageSpecError(
                "expected a JSON object of texts: file, repository or repositoryField, "
                "tagField and/or digestField, source"
            )
        unknown = sorted(set(data) - set(_KEYS))
        if unknown:
            raise ImageSpecError(f"unknown field {unknown[0]!r} (expected {', '.join(_KEYS)})")
        values = {_KEYS[key]: value for key, value in data.items()}
        spec = cls(file=values.pop("file", ""), **values)
        problem = spec.problem()
        if problem:
            raise ImageSpecError(problem)
        return spec

    def problem(self) -> str:
        """Why this spec cannot name an image ("" when it can)."""
        if not self.file:
            return "'file' is required"
        if not self.repository and not self.repository_field:
            return "give 'repository' or 'repositoryField'"
        if not self.tag_field and not self.digest_field:
            return "give 'tagField' or 'digestField' (or both)"
        if self.repository:
            try:
                parse(self.repository)
            except ReferenceError as exc:
                return f"repository {self.repository!r}: {exc}"
        return ""


MAX_SPEC = 16 * 1024
"""Characters of an ``--image`` value: far more than any spec, far less than a bomb."""


@dataclass(frozen=True)
class PromotedImage:
    """The image a promoted file names: ``REPOSITORY[:TAG][@DIGEST]`` and where it came
    from (the file and the field of the tag, or of the digest when there is no tag)."""

    reference: str
    source: str


Lookup = Callable[[str], str | None]
"""The text at a YAML path of the spec's file, or ``None`` where the path is absent."""


def read_image(spec: ImageSpec, lookup: Lookup) -> PromotedImage | None:
    """The image the file names; ``None`` when it names none (no tag and no digest written:
    a Kustomize rule whose ``images:`` entry sets neither, a missing repository field).
    Raises :class:`ImageSpecError` when the values do not make an image reference."""
    repository = (lookup(spec.repository_field) if spec.repository_field else None) or (
        spec.repository
    )
    tag = lookup(spec.tag_field) if spec.tag_field else None
    digest = lookup(spec.digest_field) if spec.digest_field else None
    if not repository or not (tag or digest):
        return None
    reference = repository + (f":{tag}" if tag else "") + (f"@{digest}" if digest else "")
    try:
        parse(reference)
    except ReferenceError as exc:
        raise ImageSpecError(
            f"{spec.file}: {reference!r} (from {_fields(spec)}) is not an image reference: {exc}"
        ) from None
    field = spec.tag_field if tag else spec.digest_field
    source = spec.source if tag and spec.source else f"{spec.file} {field}"
    return PromotedImage(reference, source)


def _fields(spec: ImageSpec) -> str:
    return ", ".join(f for f in (spec.repository_field, spec.tag_field, spec.digest_field) if f)


def kustomize_image_spec(name: str, file: str = "kustomization.yaml") -> ImageSpec:
    """The spec of a Kustomize image rule ``{name: NAME}``: the ``images:`` entry of that
    name, whose ``newName`` (when set) replaces the repository and whose ``newTag`` and
    ``digest`` are the version. An absent key reads as absent, so the repository falls
    back to NAME, as kustomize does."""
    entry = f"images[name={_selector_value(name)}]"
    return ImageSpec(
        file=file,
        repository=name,
        repository_field=f"{entry}.newName",
        tag_field=f"{entry}.newTag",
        digest_field=f"{entry}.digest",
        source=f"{file} {entry}.newTag",
    )


def _selector_value(value: str) -> str:
    """A selector's value as the path language writes it: bare when it can be, else
    quoted (``"a]b"``)."""
    return value if re.fullmatch(r"[A-Za-z0-9_./:@-]+", value) else json.dumps(value)
