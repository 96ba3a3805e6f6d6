"""Stand-ins for the WorkflowTemplates a flow names but promoflow does not ship.

Pre- and post-actions (``smoke-tests``, ``announce``) are the team's own templates on the
cluster. A local run either gets them (``--templates DIR``) or, when asked, runs a
stand-in: a step that calls the local status page and says which template it replaces,
so the node is visibly a stand-in and the flow around it runs for real.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from orchestrator.engine.templates import index_templates
from orchestrator.manifest import Manifest


def referenced(manifests: Iterable[Mapping[str, Any]]) -> set[tuple[str, str]]:
    """``(WorkflowTemplate, template)`` pairs named by ``templateRef`` anywhere."""
    found: set[tuple[str, str]] = set()

    def walk(value: Any) -> None:
        if isinstance(value, Mapping):
            ref = value.get("templateRef")
            if isinstance(ref, Mapping):
                found.add((str(ref.get("name", "")), str(ref.get("template", ""))))
            for item in value.values():
                walk(item)
        elif isinstance(value, list):
            for item in value:
                walk(item)

    for manifest in manifests:
        walk(manifest)
    return found


def missing(manifests: Sequence[Mapping[str, Any]]) -> dict[str, set[str]]:
    """WorkflowTemplates referenced but not among ``manifests``, with their templates."""
    have = index_templates(manifests)
    wanted: dict[str, set[str]] = {}
    for owner, template in referenced(manifests):
        if owner not in have:
            wanted.setdefault(owner, set()).add(template)
    return wanted


def stand_in(name: str, templates: Iterable[str], status_url: str) -> Manifest:
    """A WorkflowTemplate ``name`` whose templates check ``status_url`` and say so."""
    return {
        "apiVersion": "argoproj.io/v1alpha1",
        "kind": "WorkflowTemplate",
        "metadata": {"name": name, "labels": {"promoflow.dev/stand-in": "true"}},
        "spec": {
            "templates": [
                {
                    "name": template,
                    "container": {
                        "image": "promoflow",
                        "command": ["promoflow"],
                        "args": [
                            "step",
                            "http-check",
                            "--url",
                            f"{status_url.rstrip('/')}/stand-in/{name}/{template}",
                            "--retries",
                            "0",
                        ],
                    },
                }
                for template in sorted(templates)
            ]
        },
    }


def stand_ins(manifests: Sequence[Mapping[str, Any]], status_url: str) -> list[Manifest]:
    return [stand_in(name, tpls, status_url) for name, tpls in sorted(missing(manifests).items())]
