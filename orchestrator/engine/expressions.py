"""``{{...}}`` references: which ones a template uses, and their substitution.

Argo replaces ``{{workflow.parameters.version}}``, ``{{inputs.parameters.x}}``,
``{{tasks.deploy-dev.outputs.parameters.commit}}`` and friends as plain text, once, in every
string of a template. Here every reference is looked up in an explicit table of values; one
that is not there is an error naming it, never text left behind for a step to trip over.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator, Mapping
from datetime import UTC, datetime
from typing import Any

from orchestrator.engine.errors import EngineError

_TAG = re.compile(r"\{\{(.*?)\}\}", re.DOTALL)

WORKFLOW_VARIABLES = frozenset(
    {
        "workflow.name",
        "workflow.namespace",
        "workflow.uid",
        "workflow.serviceAccountName",
        "workflow.creationTimestamp",
        "workflow.status",
        "workflow.failures",
        "workflow.duration",
        "workflow.parameters",
        "workflow.mainEntrypoint",
        "workflow.labels",
    }
)
"""Global variables the engine provides, besides ``workflow.parameters.<name>``.

``workflow.labels`` is the JSON of the run's labels as they are when a task starts: the
controller reads them again on every pass (``setGlobalParameters``), and an answered
approval changes them (the Argo Server labels the acting user)."""
TASK_FIELDS = ("startedAt", "finishedAt", "status")
"""``tasks.NAME.startedAt`` and friends (``buildLocalScope``), for tasks that have run."""


def rfc3339(moment: datetime) -> str:
    """A node time as Argo prints it in ``tasks.NAME.startedAt``: UTC, whole seconds."""
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def labels_json(labels: Mapping[str, str]) -> str:
    """``json.Marshal`` of a Go map: keys sorted, no spaces."""
    return json.dumps(dict(sorted(labels.items())), separators=(",", ":"))


def references(text: str) -> list[str]:
    """The names inside ``{{ }}`` in ``text``, stripped as Argo strips them."""
    return [match.group(1).strip() for match in _TAG.finditer(text)]


def strings(value: Any, path: str = "") -> Iterator[tuple[str, str]]:
    """Every string in a manifest fragment with its path (``container.args[3]``)."""
    if isinstance(value, str):
        yield path, value
    elif isinstance(value, Mapping):
        for key, item in value.items():
            yield from strings(item, f"{path}.{key}" if path else str(key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from strings(item, f"{path}[{index}]")


def check_references(value: Any, known: Callable[[str], bool], where: str) -> None:
    """Refuse the first reference ``known`` does not accept, naming where it was found."""
    for path, text in strings(value):
        for ref in references(text):
            if ref.startswith("="):
                raise EngineError(
                    f"unsupported Argo feature: expression tag {{{{{ref}}}}} in {where} ({path})"
                )
            if not known(ref):
                raise EngineError(f"unknown reference {{{{{ref}}}}} in {where} ({path})")


def substitute(text: str, values: Mapping[str, str], where: str) -> str:
    """Replace each ``{{name}}`` with ``values[name]``; the values are not scanned again."""

    def replace(match: re.Match[str]) -> str:
        ref = match.group(1).strip()
        if ref not in values:
            raise EngineError(f"cannot resolve {{{{{ref}}}}} in {where}")
        return values[ref]

    return _TAG.sub(replace, text)


def substitute_all(value: Any, values: Mapping[str, str], where: str) -> Any:
    """A copy of a manifest fragment with every string substituted."""
    if isinstance(value, str):
        return substitute(value, values, where)
    if isinstance(value, Mapping):
        return {key: substitute_all(item, values, where) for key, item in value.items()}
    if isinstance(value, list):
        return [substitute_all(item, values, where) for item in value]
    return value


def text(value: Any) -> str:
    """A parameter value as Argo's AnyString keeps it: YAML ``true`` stays ``true``."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return value
    if isinstance(value, int | float):
        return str(value)
    return json.dumps(value, separators=(",", ":"))


def workflow_values(
    *,
    name: str,
    namespace: str,
    uid: str,
    service_account: str,
    created: str,
    entrypoint: str,
    parameters: Mapping[str, str],
    status: str,
    failures: list[dict[str, str]],
    duration: float,
) -> dict[str, str]:
    """The ``workflow.*`` table, as the exit handler sees it once the run has ended."""
    values = {
        "workflow.name": name,
        "workflow.namespace": namespace,
        "workflow.uid": uid,
        "workflow.serviceAccountName": service_account,
        "workflow.creationTimestamp": created,
        "workflow.mainEntrypoint": entrypoint,
        "workflow.status": status,
        "workflow.failures": json.dumps(failures, separators=(",", ":")) if failures else "",
        "workflow.duration": f"{duration:.6f}",
        "workflow.parameters": json.dumps(
            [{"name": k, "value": v} for k, v in parameters.items()], separators=(",", ":")
        ),
    }
    values.update({f"workflow.parameters.{k}": v for k, v in parameters.items()})
    return values


class Scope:
    """The values ``{{...}}`` resolves to at one place in the workflow."""

    def __init__(self, base: Mapping[str, str]) -> None:
        self.values = dict(base)

    def child(self, extra: Mapping[str, str]) -> Scope:
        return Scope({**self.values, **extra})
