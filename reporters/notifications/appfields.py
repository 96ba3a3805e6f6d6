"""The fields of an Argo CD Application, to check the paths templates and triggers read.

Go templates render a missing map key as ``<no value>`` and expr reads it as nil: a
misspelt ``.app.spec.sourse.repoURL`` passes Argo CD's start-up and sends an empty field
for ever. The Application's fields are known (Argo CD's API spec, extracted into
``application-fields.json`` by ``tests/refdata/argo-cd/fields.py``), so a path that leaves
them is refused at start, where it was written, with the field it most likely meant.

Maps (labels, annotations) take any key, and free-form values (``valuesObject``) any path
below them; what is below a list must be indexed first (a path segment of digits).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from orchestrator.problems import suggest

TABLE = Path(__file__).with_name("application-fields.json")
SCALARS = {"string", "integer", "number", "boolean", "time"}


@dataclass(frozen=True)
class Found:
    """Where a path ends: its kind (``object``, ``map``, ``list``, a scalar's type or
    ``any``), or why it is not a field of an Application."""

    kind: str
    problem: str = ""


@cache
def _types() -> tuple[str, dict[str, dict[str, Any]]]:
    table = json.loads(TABLE.read_text())
    return str(table["root"]), dict(table["types"])


def _kind(spec: Any) -> str:
    if isinstance(spec, list):
        return "list"
    if isinstance(spec, dict):
        return "map"
    return "object" if spec.startswith("#") else str(spec)


def lookup(path: Sequence[str], name: str = "app") -> Found:
    """What ``path`` (field names below the Application, as in ``app.status.sync``) is;
    ``name`` is how the path is shown in a problem (``.app`` for a template)."""
    root, types = _types()
    spec: Any = f"#{root}"
    shown = name
    for part in path:
        kind = _kind(spec)
        if kind == "any":
            return Found("any")
        if kind == "map":
            spec, shown = spec["*"], f"{shown}.{part}"
            continue
        if kind == "object":
            fields = types[spec[1:]]
            if part not in fields:
                return Found("", f"{shown} has no field {part!r}{suggest(part, list(fields))}")
            spec, shown = fields[part], f"{shown}.{part}"
            continue
        if kind == "list" and part.isdigit():  # index .app.status.history 0, history[0]
            spec, shown = spec[0], f"{shown}[{part}]"
            continue
        if kind == "list":
            return Found("", f"{shown} is a list: index it or range over it to read {part!r}")
        return Found("", f"{shown} is a {kind}, it has no field {part!r}")
    return Found(_kind(spec))
