"""Local runs (``promoflow promote --local``, ``promoflow demo``) as the cluster's runs are
read: their records, in the shape of an Argo Workflow, so ``runs``, ``status`` and ``logs``
show both alike.

A local run keeps, under its runs directory (``.promoflow/runs`` by default):
``NAME-STARTED.json``, the run record (written as the run goes, final when it ends), and
``NAME-STARTED/nodes/TASK/ATTEMPT/log``, each step's output (stdout, then stderr, masked of
credentials once the step ends). A record is the engine's
(:meth:`orchestrator.engine.model.RunRecord.to_dict`); a run's product and version are its
parameters.
"""

from __future__ import annotations

import json
import os
import socket
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from orchestrator.runs import LABEL

_NODE_TYPES = {"container": "Pod", "suspend": "Suspend"}
FINAL = ("Succeeded", "Failed", "Error")


@dataclass(frozen=True)
class LocalRun:
    """A record file and what it holds."""

    path: Path
    record: dict[str, Any]

    @property
    def name(self) -> str:
        return str(self.record.get("name") or "")

    @property
    def logs_dir(self) -> Path:
        """Where its steps' output is kept: the record's path without ``.json``."""
        return self.path.with_suffix("")

    @property
    def done(self) -> bool:
        return self.record.get("phase") in FINAL or abandoned(self.record)


def abandoned(record: dict[str, Any]) -> bool:
    """A record left unfinished by a process that has ended (killed, the machine
    restarted): it will never be finished, so ``--watch`` must not wait for it. Snapshots
    name their writer (``runner``: pid and host); only this host's processes can be asked."""
    runner = record.get("runner")
    if record.get("phase") in FINAL or not isinstance(runner, dict):
        return False
    if runner.get("host") != socket.gethostname():
        return False
    try:
        os.kill(int(runner.get("pid", 0)), 0)
    except ProcessLookupError:
        return True
    except (OSError, ValueError, TypeError):  # alive under another user, or no pid
        return False
    return False


def runner() -> dict[str, Any]:
    """What a snapshot says of its writer (see :func:`abandoned`)."""
    return {"pid": os.getpid(), "host": socket.gethostname()}


def read(path: Path) -> LocalRun | None:
    """The record at ``path``; ``None`` for a file that is not one (or is being replaced)."""
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError, UnicodeDecodeError):
        return None
    if not isinstance(data, dict) or not isinstance(data.get("name"), str):
        return None
    return LocalRun(path, data)


def local_runs(runs_dir: Path) -> list[LocalRun]:
    """Every record under ``runs_dir`` (none when it does not exist), oldest file first."""
    if not runs_dir.is_dir():
        return []
    found = (read(path) for path in sorted(runs_dir.glob("*.json")))
    return [run for run in found if run is not None]


def find(runs_dir: Path, name: str) -> LocalRun | None:
    """The run called ``name`` (or whose record file is ``name``): the latest, when a
    request ran twice under one name."""
    matches = [r for r in local_runs(runs_dir) if name in (r.name, r.path.stem)]
    return matches[-1] if matches else None


def as_workflow(record: dict[str, Any]) -> dict[str, Any]:
    """The record in the shape of an Argo Workflow, as far as :func:`runs.summarize` and
    ``logs`` read one: labels, phase, times and one node per task."""
    name = str(record.get("name") or "")
    params = record.get("parameters") or {}
    nodes: dict[str, Any] = {}
    for node in [*(record.get("nodes") or []), *(record.get("exitNodes") or [])]:
        display = str(node.get("displayName") or node.get("name") or "")
        phase = str(node.get("phase") or "")
        kind = _NODE_TYPES.get(str(node.get("kind") or ""), "Skipped")
        nodes[display] = {
            "id": display,
            "name": f"{name}.{display}",
            "displayName": display,
            "type": kind,
            "phase": phase,
            "message": node.get("message") or "",
            "startedAt": node.get("startedAt") or "",
            "finishedAt": node.get("finishedAt") or "",
            "outputs": {
                "parameters": [
                    {"name": key, "value": value}
                    for key, value in (node.get("outputs") or {}).items()
                ]
            },
        }
    phase, message = record.get("phase") or "Pending", record.get("message") or ""
    if abandoned(record):
        phase = "Error"
        message = f"the run's process (pid {record['runner'].get('pid')}) ended before the run"
    return {
        "metadata": {
            "name": name,
            "labels": {f"{LABEL}product": str(params.get("product") or "")},
            "annotations": {f"{LABEL}version": str(params.get("version") or "")},
        },
        "status": {
            "phase": phase,
            "startedAt": record.get("startedAt") or "",
            "finishedAt": record.get("finishedAt") or "",
            "message": message,
            "nodes": nodes,
        },
    }


def node_logs(run: LocalRun, node: str | None = None) -> list[tuple[str, Path]]:
    """``(task, log file)`` of every attempt of every step (of ``node`` only, if given),
    in the order the steps started."""
    order = {
        str(n.get("name") or ""): (str(n.get("startedAt") or "~"), i)
        for i, n in enumerate(
            [*(run.record.get("nodes") or []), *(run.record.get("exitNodes") or [])]
        )
    }
    root = run.logs_dir / "nodes"
    if not root.is_dir():
        return []
    tasks = [p for p in root.iterdir() if p.is_dir() and (node is None or p.name == node)]
    tasks.sort(key=lambda p: order.get(p.name, ("~", len(order))))
    found = []
    for task in tasks:
        attempts = sorted(
            (p for p in task.iterdir() if p.name.isdigit()), key=lambda p: int(p.name)
        )
        found += [
            (task.name, attempt / "log") for attempt in attempts if (attempt / "log").exists()
        ]
    return found


def save(path: Path, record: dict[str, Any]) -> None:
    """Write a record so that a reader never sees half of it (``status --watch`` reads it
    while the run writes it); writers in several threads each write a file of their own."""
    partial = path.with_name(f".{path.name}.{os.getpid()}.{threading.get_ident()}.partial")
    partial.write_text(json.dumps(record, indent=2, ensure_ascii=False) + "\n")
    os.replace(partial, path)
