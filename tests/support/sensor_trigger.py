"""Applying an Argo Events k8s trigger's parameters as Argo Events does
(``sensors/triggers/params.go``): the dataTemplate's output, else (it failed or gave
nothing) the literal value; neither fails the trigger. Templates are rendered by the
caller's ``render``: Go, in the e2e parity test."""

from __future__ import annotations

import copy
import re
from collections.abc import Callable
from typing import Any

from orchestrator.manifest import Manifest

Render = Callable[[str, dict[str, Any]], "str | None"]
"""Renders a Go template against event data; None when it fails or gives nothing."""


def path_of(text: str) -> list[str]:
    """An sjson/gjson path split at its unescaped dots."""
    return [part.replace("\\.", ".") for part in re.split(r"(?<!\\)\.", text)]


def get(data: Any, path: list[str]) -> Any:
    for key in path:
        if isinstance(data, list):
            data = data[int(key)]
        elif isinstance(data, dict) and key in data:
            data = data[key]
        else:
            raise KeyError(".".join(path))
    return data


def put(data: Any, path: list[str], value: str) -> None:
    for key in path[:-1]:
        data = data[int(key)] if isinstance(data, list) else data[key]
    if isinstance(data, list):
        data[int(path[-1])] = value
    else:
        data[path[-1]] = value


def resolve(src: dict[str, Any], event: dict[str, Any], render: Render) -> str:
    if "dataTemplate" in src:
        out = render(src["dataTemplate"], event)
        if out is not None:
            return out
    if "value" in src:
        return str(src["value"])
    raise LookupError(f"no value for {src}")


def created_workflow(manifest: Manifest, event: dict[str, Any], render: Render) -> Manifest:
    """The Workflow the Sensor's trigger creates for ``event`` (``{"header", "body"}``)."""
    k8s = manifest["spec"]["triggers"][0]["template"]["k8s"]
    workflow: Manifest = copy.deepcopy(k8s["source"]["resource"])
    for parameter in k8s["parameters"]:
        put(workflow, path_of(parameter["dest"]), resolve(parameter["src"], event, render))
    return workflow
