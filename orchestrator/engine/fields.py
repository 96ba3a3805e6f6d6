"""Field by field: which of Argo's fields a local run implements, and the values it takes.

The tables name every field the engine implements where it can appear (the workflow spec,
a template, its container, a DAG task, a step, a retryStrategy and its backoff);
:func:`refuse` names the first field outside them. The checks read a template's own
settings (``outputs``, ``failFast``, ``activeDeadlineSeconds``, ``retryStrategy``,
``volumes``) the way Argo's validation and the controller read them, so a value Argo would
refuse, or run differently from the engine, is refused before the run. :mod:`.check` walks
the workflow and applies them.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from orchestrator.engine.errors import EngineError
from orchestrator.engine.expressions import references
from orchestrator.engine.exprlang import parse_expression
from orchestrator.engine.retry import POLICIES, RetryError, go_atoi, go_duration
from orchestrator.engine.templates import BOUNDARY_KINDS, LEAF_KINDS

POD_ONLY = frozenset(
    {
        "metadata",
        "serviceAccountName",
        "nodeSelector",
        "tolerations",
        "affinity",
        "priority",
        "securityContext",
        "podSpecPatch",
        "volumes",
    }
)
"""Pod shape, nothing a local process can differ by; of ``volumes`` only ``emptyDir``
(scratch space a process has anyway), checked in ``scratch_only``."""
TEMPLATE_KEYS = frozenset(
    {
        "name",
        "inputs",
        "outputs",
        "retryStrategy",
        "activeDeadlineSeconds",
        "synchronization",
        "failFast",
        *LEAF_KINDS,
        *BOUNDARY_KINDS,
    }
)
CONTAINER_KEYS = frozenset(
    {
        "name",
        "image",
        "imagePullPolicy",
        "command",
        "args",
        "env",
        "resources",
        "securityContext",
        "volumeMounts",
    }
)
TASK_KEYS = frozenset(
    {"name", "template", "templateRef", "arguments", "depends", "dependencies", "when"}
)
STEP_KEYS = frozenset({"name", "template", "templateRef", "arguments", "when"})
SPEC_KEYS = frozenset(
    {
        "entrypoint",
        "onExit",
        "arguments",
        "templates",
        "serviceAccountName",
        "parallelism",
        "podGC",
        "ttlStrategy",
        "podMetadata",
        "archiveLogs",
        "workflowMetadata",
        "synchronization",
    }
)
RETRY_KEYS = frozenset({"limit", "retryPolicy", "expression", "backoff"})
BACKOFF_KEYS = frozenset({"duration", "factor", "maxDuration", "cap"})
RETRY_POLICIES = POLICIES


def refuse(keys: Iterable[str], allowed: frozenset[str], where: str) -> None:
    extra = sorted(set(keys) - allowed)
    if extra:
        raise EngineError(f"unsupported Argo feature: {extra[0]} in {where}")


def scratch_only(body: Mapping[str, Any], where: str) -> None:
    """Volumes a local run can do without: ``emptyDir`` ones, mounted by name."""
    names = set()
    for volume in body.get("volumes") or []:
        if set(volume) != {"name", "emptyDir"}:
            raise EngineError(
                f"unsupported Argo feature: volume {volume.get('name')!r} in {where} "
                "(only emptyDir volumes)"
            )
        names.add(volume["name"])
    for mount in (body.get("container") or {}).get("volumeMounts") or []:
        if mount.get("name") not in names:
            raise EngineError(
                f"unsupported Argo feature: volumeMount {mount.get('name')!r} in {where} "
                "(only of the template's emptyDir volumes)"
            )


def _templated(value: Any) -> bool:
    """A value with ``{{...}}`` in it: it can only be checked once substituted."""
    return isinstance(value, str) and bool(references(value))


def require_bool(value: Any, what: str) -> None:
    if not isinstance(value, bool):
        raise EngineError(f"{what} must be true or false, not {value!r}")


def check_outputs(body: Mapping[str, Any], kind: str, where: str) -> None:
    for param in (body.get("outputs") or {}).get("parameters") or []:
        source = param.get("valueFrom") or {}
        wanted = "path" if kind == "container" else "supplied"
        refuse(source.keys(), frozenset({wanted, "default"}), f"outputs of {where}")
        if wanted not in source:
            raise EngineError(
                f"unsupported Argo feature: output {param.get('name')} of {where} "
                f"needs valueFrom.{wanted}"
            )


def check_fail_fast(body: Mapping[str, Any], where: str) -> None:
    """Template-level ``failFast`` (not ``dag.failFast``): ``checkParallelism`` then
    starts no new child, retries included, once any pod in the template failed, and
    fails the template when none is left running. Only ``true`` does anything
    (``IsFailFast``), and that scheduling is not modelled locally."""
    if "failFast" not in body:
        return
    require_bool(body["failFast"], f"failFast of {where}")
    if body["failFast"]:
        raise EngineError(
            f"unsupported Argo feature: failFast: true on {where} (the template-level "
            "flag; dag.failFast is supported)"
        )


def check_deadline(body: Mapping[str, Any], kind: str, where: str) -> None:
    """``activeDeadlineSeconds``: the pod's deadline, so leaf templates only
    (``validateNonLeaf``), a whole number of seconds above 0 (``validateLeaf``; 0 is
    refused by Kubernetes when the pod is created)."""
    if "activeDeadlineSeconds" not in body:
        return
    value = body["activeDeadlineSeconds"]
    if kind in BOUNDARY_KINDS:
        raise EngineError(
            f"{where}: activeDeadlineSeconds is only valid for leaf templates (Argo "
            "refuses it on dag and steps templates)"
        )
    if _templated(value):
        return
    seconds = go_atoi(value)
    if seconds is None or seconds <= 0:
        raise EngineError(
            f"{where}: activeDeadlineSeconds must be a positive integer (seconds), not {value!r}"
        )


def check_retry(strategy: Any, where: str) -> None:
    """``retryStrategy``, refused where the controller would end the node in Error for
    a reason known now (``processNodeRetries`` reads limit, factor and durations
    strictly) or where it retries without end."""
    if strategy is None:
        return
    at = f"retryStrategy of {where}"
    refuse(strategy.keys(), RETRY_KEYS, at)
    backoff = strategy.get("backoff")
    if "limit" not in strategy or strategy["limit"] is None:
        raise EngineError(f"{at} has no limit (unbounded retries)")
    limit = strategy["limit"]
    if not _templated(limit) and go_atoi(limit) is None:
        raise EngineError(f"{at}: limit must be a whole number, not {limit!r}")
    policy = strategy.get("retryPolicy")
    if policy and policy not in RETRY_POLICIES:
        raise EngineError(f"{at}: unknown retryPolicy {policy!r}")
    expression = strategy.get("expression")
    if expression and not _templated(expression):
        parse_expression(str(expression))
    if backoff is None:
        return
    refuse(backoff.keys(), BACKOFF_KEYS, f"backoff of {where}")
    if not backoff.get("duration"):
        raise EngineError(
            f"{at}: backoff needs a duration (Argo fails the node: no base duration "
            "specified for retryStrategy)"
        )
    for key in ("duration", "maxDuration", "cap"):
        value = backoff.get(key)
        if value is not None and value != "" and not _templated(value):
            try:
                go_duration(value)
            except RetryError as exc:
                raise EngineError(f"{at}: backoff.{key}: {exc}") from None
    factor = backoff.get("factor")
    if factor is not None and not _templated(factor) and go_atoi(factor) is None:
        raise EngineError(
            f"{at}: backoff.factor must be a whole number, not {factor!r} (Argo reads it as an int)"
        )
