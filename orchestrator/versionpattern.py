"""Which versions a template accepts, checked before anything is written.

A version is written as is into a file (``image.tag: 1.0 beta``) and from there into a
Deployment's image reference, the run's name and labels: a version a registry cannot hold
would be committed and only fail when Kubernetes pulls it. So every version is checked
where it enters (``promote``, ``diff``, ``compile``, the webhook service), the same way:

* Whitespace and control characters are refused always, whatever the pattern: no image tag,
  Git ref or label holds them, a YAML scalar would need quoting to keep them, and an
  invisible character (a trailing newline pasted from a terminal, a zero-width space, a
  right-to-left mark) makes a version that looks like another. "Whitespace or control"
  is every character of the Unicode categories Z (separators) and C (control, format,
  unassigned, private use), which includes all that ``str.isspace`` calls space.
* ``versionSource.versionPattern`` (a regular expression, Python's syntax read with
  ``re.ASCII``, that must match the whole version) says what the product's versions look
  like (``v?\\d+\\.\\d+\\.\\d+``).
* Without one, a version written as an image tag (a ``kustomizeImage``'s ``newTag``, or the
  ``tagField`` of the template's ``image``) must be a tag a registry accepts (the OCI
  distribution spec's ``[a-zA-Z0-9_][a-zA-Z0-9._-]{0,127}``). That is wider than semver on
  purpose: it holds every semver version a tag can hold (``1.4.2``, ``v2.0.0-rc.1``) and
  what real tags also are (a short commit ``6063e25``, a date ``2026-11-27``, ``1.4``), while
  refusing what cannot be a tag at all (``1.0+build``, ``1.0/beta``); a team that wants
  semver only says so with a ``versionPattern``. Other versions (a chart version, a
  setting) need only be free of whitespace and control characters.

Pure, no imports from the rest of the package.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

IMAGE_TAG = r"[a-zA-Z0-9_][a-zA-Z0-9._-]{0,127}"
"""The OCI distribution spec's tag grammar: what a registry accepts as a tag."""
_IMAGE_TAG = re.compile(IMAGE_TAG)


def unsafe_character(version: str) -> tuple[int, str] | None:
    """The first whitespace or control character of ``version``: its 1-based position and
    how to name it (``a space``, ``U+200B``), or ``None``."""
    for index, char in enumerate(version, 1):
        if unicodedata.category(char)[0] in "ZC" or char.isspace():
            name = "a space" if char == " " else "a tab" if char == "\t" else f"U+{ord(char):04X}"
            return index, name
    return None


def compile_pattern(pattern: str) -> re.Pattern[str]:
    """The pattern, read as Go's RE2 reads it where it can (``\\d`` is ``[0-9]``, not any
    script's digit: ``re.ASCII``), as an Argo Events Sensor checks it too; ``ValueError``
    naming what is wrong with a pattern that does not compile."""
    try:
        return re.compile(pattern, re.ASCII)
    except re.error as exc:
        where = f" at position {exc.pos + 1}" if exc.pos is not None else ""
        raise ValueError(
            f"versionPattern {pattern!r} is not a regular expression: {exc.msg}{where}"
        ) from None


@dataclass(frozen=True)
class VersionRule:
    """What one template accepts: its ``versionPattern``, else the tag grammar when the
    version is an image tag, else any version without whitespace or control characters."""

    pattern: str | None = None
    image_tag: bool = False
    template: str = ""
    where: str = ""
    """Where the version is written (``values.yaml image.tag``), for messages."""

    def refusal(self, version: str) -> str | None:
        """Why ``version`` is refused, or ``None`` when it is accepted."""
        shown = repr(version)
        unsafe = unsafe_character(version)
        if unsafe is not None:
            index, name = unsafe
            return (
                f"version {shown} has {name} at character {index}: a version is written "
                "into files, image tags and names as is; give it without whitespace or "
                "control characters"
            )
        written = f" (written to {self.where})" if self.where else ""
        of = f" of template {self.template}" if self.template else ""
        if self.pattern is not None:
            if compile_pattern(self.pattern).fullmatch(version) is None:
                return (
                    f"version {shown} does not match the versionPattern{of} "
                    f"{self.pattern!r}{written}"
                )
            return None
        if self.image_tag and _IMAGE_TAG.fullmatch(version) is None:
            return (
                f"version {shown} cannot be an image tag{written}: a tag is up to 128 "
                "letters, digits, '_', '.' and '-', not starting with '.' or '-' (set "
                f"versionSource.versionPattern{of} to say what its versions look like)"
            )
        return None
