"""An executor that runs nothing: it records what would run and ends it as scripted.

The engine's scheduling, substitution, retries and exit handling are tested against the
golden workflows with it; real subprocesses are covered by the local promotion tests.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from orchestrator.compiler import library_templates
from orchestrator.engine.executor import ContainerJob, ContainerResult
from orchestrator.local.standins import stand_ins

GOLDEN = Path(__file__).resolve().parents[1] / "golden" / "expected"


DEFAULT_OUTPUTS = {"changed": "true"}
"""Outputs a ``when`` compares (a plan's ``changed``): a value it can read."""


@dataclass
class Scripted:
    """``codes[node]``: exit codes of successive attempts (0 once they run out);
    ``outputs[node][name]``: what a node outputs (default ``NODE:NAME``, or
    :data:`DEFAULT_OUTPUTS`)."""

    codes: dict[str, list[int]] = field(default_factory=dict)
    outputs: dict[str, dict[str, str]] = field(default_factory=dict)
    host_env: dict[str, str] = field(default_factory=dict)
    jobs: list[ContainerJob] = field(default_factory=list)
    started: list[str] = field(default_factory=list)
    finished: list[str] = field(default_factory=list)
    finished_before: dict[str, set[str]] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def run(self, job: ContainerJob) -> ContainerResult:
        with self._lock:
            self.jobs.append(job)
            self.started.append(job.node)
            self.finished_before.setdefault(job.node, set(self.finished))
            codes = self.codes.get(job.node) or []
            code = codes.pop(0) if codes else 0
        if code == 0:
            for name, path in job.outputs.items():
                path.parent.mkdir(parents=True, exist_ok=True)
                value = DEFAULT_OUTPUTS.get(name, f"{job.node}:{name}")
                path.write_text(self.outputs.get(job.node, {}).get(name, value) + "\n")
        with self._lock:
            self.finished.append(job.node)
        return ContainerResult(code, f"{job.node} exited {code}" if code else "")

    def argv(self, node: str) -> list[str]:
        return next(job.argv for job in self.jobs if job.node == node)


def golden(name: str) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The Workflow of a golden file and every template it needs (stand-ins for user ones)."""
    docs = list(yaml.safe_load_all((GOLDEN / f"{name}.yaml").read_text()))
    workflow = next(d for d in docs if d["kind"] == "Workflow")
    templates = [d for d in docs if d["kind"] == "WorkflowTemplate"] + library_templates()
    return workflow, templates + stand_ins(templates, "http://127.0.0.1:9")


def dag_tasks(templates: list[dict[str, Any]], workflow: dict[str, Any]) -> dict[str, Any]:
    """The product template's DAG tasks by name."""
    ref = workflow["spec"]["workflowTemplateRef"]["name"]
    product = next(t for t in templates if t["metadata"]["name"] == ref)
    entry = next(t for t in product["spec"]["templates"] if "dag" in t)
    return {task["name"]: task for task in entry["dag"]["tasks"]}
