"""A container's output parameters: the files it writes them to, on this machine.

A template names where its container writes each output parameter (``valueFrom.path``,
such as ``/tmp/outputs/commit``); after the main container ends, whatever its outcome, the
wait container reads them (``SaveParameters``), a missing file taking its ``default``.
Locally every directory holding such files is mapped to a fresh directory per attempt, and
the arguments and environment values that name it are rewritten to match.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from orchestrator.engine.executor import ContainerJob
from orchestrator.engine.expressions import text


def declared_outputs(body: Mapping[str, Any]) -> dict[str, tuple[str, Any]]:
    """Each output parameter of a container template: its path and its default."""
    return {
        str(p["name"]): (str(p["valueFrom"]["path"]), p["valueFrom"].get("default"))
        for p in (body.get("outputs") or {}).get("parameters") or []
    }


def mapped_dirs(paths: set[str], local: Path) -> dict[str, Path]:
    """Each directory holding output files -> its own local directory."""
    dirs = sorted({str(Path(p).parent) for p in paths})
    if len(dirs) == 1:
        return {dirs[0]: local}
    return {d: local / str(i) for i, d in enumerate(dirs)}


def remap(value: str, mapped: Mapping[str, Path]) -> str:
    for directory, local in mapped.items():
        if value == directory:
            return str(local)
        if value.startswith(directory + "/"):
            return str(local) + value[len(directory) :]
    return value


def read_outputs(
    job: ContainerJob, declared: Mapping[str, tuple[str, Any]]
) -> tuple[dict[str, str], str]:
    """The output parameters an attempt left (``SaveParameters``: a missing file takes its
    default), and the error for the first one that has neither."""
    values: dict[str, str] = {}
    missing = ""
    for name, (path, default) in declared.items():
        local = job.outputs[name]
        if local.exists():
            values[name] = local.read_text().rstrip("\n")
        elif default is not None:
            values[name] = text(default)
        elif not missing:
            missing = f"failed to read output parameter {name!r} from {path}"
    return values, missing
