"""Every duration a set of Argo objects hands to the controller, with where it comes from.

Argo reads ``suspend.duration`` and retry ``backoff.duration``/``maxDuration``/``cap`` with
``ParseStringToDuration``. In promoflow's objects these are often ``{{inputs.parameters.X}}``
of a shared WorkflowTemplate, so the value that reaches the controller is the parameter's
default or an argument a DAG task passes through ``templateRef``: both are collected here.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from typing import Any

DURATION_FIELDS = (
    ("suspend", "duration"),
    ("retryStrategy", "backoff", "duration"),
    ("retryStrategy", "backoff", "maxDuration"),
    ("retryStrategy", "backoff", "cap"),
)
_INPUT = re.compile(r"^\{\{\s*inputs\.parameters\.([A-Za-z0-9_-]+)\s*\}\}$")


def _get(data: Any, path: tuple[str, ...]) -> Any:
    for key in path:
        if not isinstance(data, dict):
            return None
        data = data.get(key)
    return data


def _templates(objects: Iterable[dict[str, Any]]) -> Iterator[tuple[str, dict[str, Any]]]:
    for obj in objects:
        name = (obj.get("metadata") or {}).get("name", "?")
        for tpl in (obj.get("spec") or {}).get("templates") or []:
            yield name, tpl


def durations(objects: list[dict[str, Any]]) -> list[tuple[str, str]]:
    """``(where, text)`` for every duration value that can reach the controller."""
    found: list[tuple[str, str]] = []
    parameterised: dict[tuple[str, str], list[str]] = {}  # (template, tpl) -> params
    for owner, tpl in _templates(objects):
        where = f"{owner}/{tpl.get('name')}"
        for path in DURATION_FIELDS:
            value = _get(tpl, path)
            if value is None:
                continue
            match = _INPUT.match(str(value))
            if match is None:
                found.append((f"{where}: {'.'.join(path)}", str(value)))
                continue
            param = match.group(1)
            parameterised.setdefault((owner, str(tpl.get("name"))), []).append(param)
            for decl in (tpl.get("inputs") or {}).get("parameters") or []:
                if decl.get("name") == param and decl.get("default") is not None:
                    found.append((f"{where}: default of {param}", str(decl["default"])))
    for owner, tpl in _templates(objects):
        for task in [*(_get(tpl, ("dag", "tasks")) or [])] + [
            step for group in tpl.get("steps") or [] for step in group
        ]:
            ref = task.get("templateRef") or {}
            params = parameterised.get((str(ref.get("name")), str(ref.get("template"))), [])
            for arg in _get(task, ("arguments", "parameters")) or []:
                if arg.get("name") in params and "value" in arg:
                    where = f"{owner}/{tpl.get('name')}/{task.get('name')}: {arg['name']}"
                    found.append((where, str(arg["value"])))
    return found
