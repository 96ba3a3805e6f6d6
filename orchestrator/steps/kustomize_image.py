"""A Kustomize image rule: promote one entry of a kustomization's ``images:``, by name.

``kustomize edit set image NAME:TAG`` finds the entry whose ``name`` is NAME, sets its tag,
and adds the entry when the kustomization has none yet; Kargo's ``kustomize-set-image``
step does the same. Selecting the entry by name (not ``images[0]``) keeps a promotion on
the right image when someone reorders the list.

What moves is the version: ``newTag`` and ``digest`` together, as one unit. Kustomize
writes ``NAME:TAG@DIGEST`` when an entry has both, and the runtime pulls by the digest, so
a new tag beside a stale digest would keep the old image running: whichever of the two the
source has is written, and the other is cleared. ``newName`` is the environment's own (a
registry mirror per region) and is only copied into an entry that is being added.

Pure: reads texts, returns the updates :func:`orchestrator.yamledit.edit` applies.
"""

from __future__ import annotations

from typing import Any

from orchestrator.model.yamlpath import Selector, format_yaml_path
from orchestrator.yamledit import Update, Value, YamlEditError, exists, read

VERSION_KEYS = ("newTag", "digest")
"""The fields of an entry that name its version; they move together."""


def path(name: str, key: str = "") -> str:
    """``images[name=NAME]`` and, with ``key``, one of its fields."""
    parts: tuple[str | Selector, ...] = ("images", Selector("name", name))
    return format_yaml_path((*parts, key) if key else parts)


def _entry(text: str, name: str, file: str) -> dict[str, Any] | None:
    """The entry named ``name`` (``None`` when the file has none)."""
    if not exists(text, path(name), file):
        return None
    entry = read(text, path(name), file).data
    if not isinstance(entry, dict):
        raise YamlEditError(f"{file}: the images entry named {name!r} is not a mapping")
    return entry


def copy_updates(
    source_text: str, target_text: str, name: str, source_file: str, target_file: str
) -> tuple[dict[str, Update], set[str]]:
    """The updates that give the target's entry the source entry's version, and the paths
    that may be created (the entry itself, when the target has none)."""
    entry = _entry(source_text, name, source_file)
    if entry is None:
        read(source_text, path(name, "newTag"), source_file)  # raises, naming what there is
        raise AssertionError("unreachable: the entry is missing")
    present = [key for key in VERSION_KEYS if entry.get(key) not in (None, "")]
    if not present:
        raise YamlEditError(
            f"{source_file}: the images entry named {name!r} has neither newTag nor digest: "
            "there is no version to promote"
        )
    updates: dict[str, Update] = {
        path(name, key): read(source_text, path(name, key), source_file) if key in present else None
        for key in VERSION_KEYS
    }
    if _entry(target_text, name, target_file) is None and entry.get("newName"):
        updates[path(name, "newName")] = read(source_text, path(name, "newName"), source_file)
    return updates, {p for p, v in updates.items() if v is not None}


def version_updates(
    name: str, version: str, fields: dict[str, str]
) -> tuple[dict[str, Update], set[str]]:
    """The updates that make ``version`` the entry's ``newTag`` (the entry is added when
    missing); a digest that is not given with the version (as one of its ``fields``) would
    be stale, so it is cleared. The fields themselves are the caller's to write; those
    inside the entry may be created with it."""
    digest = path(name, "digest")
    updates: dict[str, Update] = {path(name, "newTag"): Value(version)}
    if digest not in fields:
        updates[digest] = None
    inside = {p for p in fields if p.startswith(path(name) + ".")}
    return updates, {path(name, "newTag"), *inside}
