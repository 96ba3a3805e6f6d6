"""What a promotion run's ``status.message`` says: where it is, or how it ended.

The Argo Workflows list shows ``status.message`` in its MESSAGE column, but the
controller writes it only when the phase changes: empty while Running, empty on
Succeeded, the root DAG's (empty) message on Failed. So a run waiting for an approval, or
one that stopped at a rejection, shows ``-``. The reporter, which already follows every
promotion Workflow, writes the message this module computes (``reporters/runstatus.py``):

- ``waiting for approval of prod (approvers: group:sre); promoted to dev, staging``
- ``soaking prod; promoted to dev, staging`` or ``promoting staging; promoted to dev``
- ``promoted to dev, staging, prod``
- ``prod rejected by alice: change freeze; promoted to dev, staging; not promoted: prod-us``

Pure: it reads the trimmed Workflow of :func:`reporters.events.resources.workflow_essentials`,
whose ``plan`` holds the environments and approvers read from the product template.
The message changes per environment, not per node, so the writes (and the controller's
retried updates they cause) stay few.
"""

from __future__ import annotations

import json
import re
from typing import Any

from orchestrator.urls import scrub

Obj = dict[str, Any]
FULFILLED = ("Succeeded", "Skipped", "Omitted")
FAILED = ("Failed", "Error")
ACTIVE = ("Running", "Pending")
ENVIRONMENT_TASKS = "promoflow.dev/environment-tasks"
"""The DAG's annotation the compiler writes (``orchestrator.compiler.workflow``)."""
MAX_LENGTH = 1024
"""A message longer than this is cut: the list column shows one line of it anyway."""
_RESUMED_BY = re.compile(r";?\s*Resumed by: map\[.*\]\s*$")
_EXIT = re.compile(r"^[a-z0-9-]+: \w+ \(exit code \d+\):\s*")
"""What Argo puts before a failed container's termination message (``main: Error (exit
code 1): ``): said by the step already."""
_SAYS_WHY = re.compile(r"\s*\(approve-[^)]*says why\)")


def plan_of(workflow: Obj) -> Obj:
    """The environments (in flow order), their tasks and approvers, from the product
    template Argo stored in the run's status (``storedWorkflowTemplateSpec``): the
    compiler annotates its DAG with each environment's tasks."""
    status = workflow.get("status") or {}
    stored = status.get("storedWorkflowTemplateSpec") or workflow.get("spec") or {}
    templates = [t for t in stored.get("templates") or [] if isinstance(t, dict)]
    tasks: dict[str, list[str]] = {}
    approvers: dict[str, str] = {}
    for template in templates:
        notes = (template.get("metadata") or {}).get("annotations") or {}
        if template.get("dag") is not None and ENVIRONMENT_TASKS in notes:
            tasks = _owned(notes[ENVIRONMENT_TASKS])
        if template.get("suspend") is not None and "promoflow.dev/answerers" in notes:
            approvers[str(notes.get("promoflow.dev/environment", ""))] = str(
                notes["promoflow.dev/answerers"]
            )
    return {"environments": list(tasks), "tasks": tasks, "approvers": approvers}


def _owned(text: Any) -> dict[str, list[str]]:
    try:
        found = json.loads(str(text))
    except ValueError:
        return {}
    if not isinstance(found, dict):
        return {}
    return {str(env): [str(t) for t in ts] for env, ts in found.items() if isinstance(ts, list)}


def run_message(workflow: Obj) -> str:
    """The message for a promotion Workflow, trimmed or whole; "" when its plan is unknown
    (a run not started from a product template)."""
    status = workflow.get("status") or {}
    plan = workflow.get("plan") or plan_of(workflow)
    environments: list[str] = plan.get("environments") or []
    if not environments:
        return ""
    tasks: dict[str, list[str]] = plan.get("tasks") or {}
    approvers: dict[str, str] = plan.get("approvers") or {}
    nodes = {
        str(n.get("displayName")): n
        for n in (status.get("nodes") or {}).values()
        if isinstance(n, dict) and n.get("displayName")
    }
    done = status.get("phase") in ("Succeeded", *FAILED)
    failures: list[str] = []
    now: list[str] = []
    promoted: list[str] = []
    untouched: list[str] = []
    for env in environments:
        own = {t: nodes[t] for t in tasks.get(env) or [] if t in nodes}
        phases = {t: str(n.get("phase", "")) for t, n in own.items()}
        failed = [t for t, p in phases.items() if p in FAILED]
        if failed:
            failures.append(_failure(env, failed[0], nodes))
        elif _unanswered(env, nodes, tasks.get(env) or []):
            failures.append(
                f"approve-{env} was resumed without an answer (`argo resume` without `argo "
                f"node set`), so Argo cannot go on with {env}: stop this run and promote again"
            )
        elif phases.get(f"approve-{env}") == "Running":
            who = approvers.get(env, "")
            now.append(f"waiting for approval of {env}" + (f" (approvers: {who})" if who else ""))
        elif phases.get(f"soak-{env}") == "Running":
            now.append(f"soaking {env}")
        elif _promoted(phases, tasks.get(env) or []):
            promoted.append(env)
        elif any(p in ACTIVE for p in phases.values()) or (phases and not done):
            now.append(f"promoting {env}")
        else:
            untouched.append(env)
    parts = failures + now
    if promoted:
        parts.append(f"promoted to {', '.join(promoted)}")
    if done and untouched:
        parts.append(f"not promoted: {', '.join(untouched)}")
    if status.get("phase") in FAILED and not failures:
        reason = str(status.get("message") or "").strip()
        parts.insert(0, reason or "failed")
    return _bounded("; ".join(parts))


def _promoted(phases: dict[str, str], tasks: list[str]) -> bool:
    """Every task of the environment has run (or was skipped), and one of them ran."""
    return (
        len(phases) == len(tasks)
        and all(p in FULFILLED for p in phases.values())
        and "Succeeded" in phases.values()
    )


def _unanswered(env: str, nodes: dict[str, Obj], tasks: list[str]) -> bool:
    """An approval resumed by node without a value set (``argo resume
    --node-field-selector``): Argo applies the output's default only when the whole
    workflow is resumed, so ``approve`` stays unset and the task after it, which needs it,
    never starts. The run would hang, silent, until its deadline."""
    asked, judge = nodes.get(f"approve-{env}"), f"approver-{env}"
    if asked is None or asked.get("phase") != "Succeeded" or judge not in tasks or judge in nodes:
        return False
    outputs = (asked.get("outputs") or {}).get("parameters") or []
    return any(p.get("name") == "approve" and "value" not in p for p in outputs)


def _failure(env: str, task: str, nodes: dict[str, Obj]) -> str:
    """Why the environment stopped: the failed step's message (its last attempt's, for a
    retried step), with the reason a rejection was given."""
    node = nodes[task]
    attempts = sorted(
        (n for name, n in nodes.items() if re.fullmatch(rf"{re.escape(task)}\(\d+\)", name)),
        key=lambda n: str(n.get("startedAt") or ""),
    )
    message = str(node.get("message") or "").strip()
    if attempts and (not message or node.get("type") == "Retry"):
        message = str(attempts[-1].get("message") or "").strip() or message
    message = _EXIT.sub("", message)
    if task == f"approver-{env}":
        asked = _RESUMED_BY.sub("", str(nodes.get(f"approve-{env}", {}).get("message") or ""))
        reason = asked.strip()
        if reason.startswith("rejected by "):
            return f"{env} {reason}"
        bare = _SAYS_WHY.sub("", message)
        return f"{bare}: {reason}" if reason and bare != message else bare
    return message or f"{env}: {task} {node.get('phase', 'failed').lower()}"


def _bounded(text: str) -> str:
    """One line, bounded, and scrubbed as everything else the reporter writes: a step's
    message could quote a URL with its credentials."""
    flat = " ".join(scrub(text).split())
    return flat if len(flat) <= MAX_LENGTH else flat[: MAX_LENGTH - 1] + "…"
