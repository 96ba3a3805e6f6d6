"""Checks of the file names and YAML paths a PromotionTemplate lists (pure, no pydantic).

The models use them as validators at load time; the promote step uses them on its
``--files`` flag, so both refuse the same paths with the same words, and the step does not
import the model layer to do it.
"""

from __future__ import annotations

from pathlib import PurePosixPath

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


PATHS_RULE = "must be a non-empty list of YAML paths; omit 'paths' to copy the whole file"


def check_paths_value(value: object) -> str | None:
    """Why a *written* ``paths`` value is refused (``None`` when it lists something).

    An absent ``paths`` copies the whole file; an empty or null one is refused rather than
    read as "the whole file" (or as "nothing"), since either reading surprises someone."""
    if isinstance(value, list | tuple) and value:
        return None
    return f"{PATHS_RULE} (got {_described(value)})"


def _described(value: object) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    empty = "an empty " if not value else "a "
    if isinstance(value, list | tuple):
        return empty + "list"
    if isinstance(value, dict):
        return empty + "mapping"
    if isinstance(value, str):
        return empty + "string"
    return type(value).__name__


def is_glob(file: str) -> bool:
    return any(ch in _GLOB_CHARS for ch in file)
