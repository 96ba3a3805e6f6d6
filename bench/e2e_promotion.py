"""Benchmark: where a promotion's time goes on the e2e cluster, against the bare recipe.

On the e2e cluster (``make cluster``, or one configured as in tests/e2e/README.md), for a
chain of 3 environments and for 10 (two in a chain, then eight fanned out in parallel),
with no waits (no approval, no soak; the sync and health gates only):

- **the workflow**: ``promoflow apply`` + ``promote``, run by the real workflow-controller
  in pods of the step image, each environment deployed by the real Argo CD;
- **the bare recipe**, in the same round: the same commits pushed and the same Argo CD
  waits made directly from here, one environment after another, no workflow.

For every pod node of the workflow, its timeline from the Workflow's and the pods' own
timestamps: queued (node started -> pod created), scheduled, container started, step done
(the main container's end), node done, and the gap since the last node ended before it
started. A step's **overhead** is its node's time outside the main container plus the gap
before it; the medians are printed, the total over the bare recipe's time judged.
Kubernetes and Argo write these timestamps in whole seconds: single figures are +-1 s, the
medians over every step of the rounds are what to read.

Targets (issue: latency near the physical limit): the median overhead per step < 1 s, and
each promotion within 2x its bare recipe. Without a configured cluster it says so and
measures nothing (exit 0): ``make bench`` runs on machines without one.
"""

from __future__ import annotations

import itertools
import statistics
import tempfile
import time
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

import yaml
from rich.console import Console
from rich.table import Table

from bench._report import Row, below, finish

ROUNDS = 2
SIZES = (3, 10)
console = Console(highlight=False, width=120)


@dataclass(frozen=True)
class Step:
    """One pod node's timeline, in seconds from the workflow's start."""

    node: str
    started: float
    created: float
    scheduled: float
    running: float
    done: float
    finished: float
    gap: float
    """From the last node that ended before it started (or the workflow's start)."""

    @property
    def overhead(self) -> float:
        return (self.finished - self.started) - (self.done - self.running) + self.gap


def _at(value: Any) -> float:
    if isinstance(value, datetime):
        return value.timestamp()
    return datetime.fromisoformat(str(value).replace("Z", "+00:00")).timestamp()


def environments(size: int) -> tuple[tuple[str, ...], list[tuple[str, str]]]:
    """The environments and ``(before, after)`` edges: a chain of 3, or e0 -> e1 -> eight."""
    names = tuple(f"e{i}" for i in range(size))
    if size <= 3:
        return names, list(itertools.pairwise(names))
    return names, [(names[0], names[1]), *((names[1], n) for n in names[2:])]


def write_flow(flow: Any, edges: list[tuple[str, str]]) -> None:
    """The flow's steps as ``edges`` say (write_flow lays a chain)."""
    path = flow.directory / "promoflow.yaml"
    documents = list(yaml.safe_load_all(path.read_text()))
    for document in documents:
        if document["kind"] == "PromotionFlow":
            document["spec"]["steps"] = [
                {"environment": after, "dependsOn": [before]} for before, after in edges
            ]
    path.write_text(yaml.safe_dump_all(documents, sort_keys=False))


def timeline(e2e: Any, workflow: dict[str, Any]) -> list[Step]:
    """Every pod node's timeline, from the Workflow's nodes and their pods."""
    from kubernetes import client

    from tests.e2e.k8s import api_client

    start = _at(workflow["status"]["startedAt"])
    core = client.CoreV1Api(api_client(e2e))
    name = workflow["metadata"]["name"]
    pods = core.list_namespaced_pod(
        e2e.argo_namespace, label_selector=f"workflows.argoproj.io/workflow={name}"
    ).items
    by_node = {
        (p.metadata.annotations or {}).get("workflows.argoproj.io/node-name", ""): p for p in pods
    }
    nodes = [
        n
        for n in workflow["status"]["nodes"].values()
        if n.get("type") == "Pod" and n.get("finishedAt")
    ]
    ends: dict[str, float] = {}
    for node in nodes:
        ends[node["displayName"].split("(")[0]] = _at(node["finishedAt"]) - start
    steps = []
    for node in sorted(nodes, key=lambda n: _at(n["startedAt"])):
        pod = by_node.get(node["name"])
        if pod is None:
            continue
        scheduled = next(
            (
                c.last_transition_time
                for c in pod.status.conditions or []
                if c.type == "PodScheduled"
            ),
            None,
        )
        main = next((c for c in pod.status.container_statuses or [] if c.name == "main"), None)
        ended = main.state.terminated if main is not None and main.state else None
        if scheduled is None or ended is None:
            continue
        began = _at(node["startedAt"]) - start
        before = [end for end in ends.values() if end <= began]
        steps.append(
            Step(
                node=node["displayName"],
                started=began,
                created=_at(pod.metadata.creation_timestamp) - start,
                scheduled=_at(scheduled) - start,
                running=_at(ended.started_at) - start,
                done=_at(ended.finished_at) - start,
                finished=_at(node["finishedAt"]) - start,
                gap=began - max(before, default=0.0),
            )
        )
    return steps


def files(flow: Any, env: str, version: str) -> dict[str, str]:
    """An environment's files at ``version``: what the promote step edits (the ConfigMap's
    value and the Deployment's pod annotation, so the Deployment rolls)."""
    from tests.e2e.k8s import configmap, deployment

    app, e2e = flow.app(env), flow.e2e
    return {
        f"{flow.path(env)}/configmap.yaml": configmap(app, version),
        f"{flow.path(env)}/deployment.yaml": deployment(
            app, version, image=e2e.app_image, node_selector=e2e.app_node_selector
        ),
    }


def bare(
    repo: Any, apps: Any, flow: Any, names: tuple[str, ...], version: str, work: dict[str, float]
) -> float:
    """The same promotion made directly: per environment, one after another, its files
    committed and pushed with the version, Argo CD asked to refresh at once (as the gate
    asks; its own poll of the repository would add up to its reconciliation period), then
    waited for until it runs that commit, Synced and Healthy. ``work`` gets each step's
    own time (``deploy-ENV``: the push; ``sync-ENV``: the wait)."""
    from tests.e2e.k8s import APPS, GROUP, VERSION

    refresh = {"metadata": {"annotations": {"argocd.argoproj.io/refresh": "hard"}}}
    started = time.monotonic()
    for env in names:
        pushed = time.monotonic()
        commit = repo.commit(files(flow, env, version), env)
        synced = time.monotonic()
        work[f"deploy-{env}"] = synced - pushed
        apps.api.patch_namespaced_custom_object(
            GROUP, VERSION, flow.e2e.argocd_namespace, APPS, flow.app(env), refresh
        )
        apps.wait_deployed(flow.app(env), commit, flow.e2e.timeout)
        work[f"sync-{env}"] = time.monotonic() - synced
    return time.monotonic() - started


def show(size: int, steps: list[Step]) -> None:
    table = Table(title=f"{size} environments: the node timeline (s from the run's start)")
    for column in ("node", "started", "pod", "scheduled", "running", "step done", "node done"):
        table.add_column(column, justify="left" if column == "node" else "right")
    table.add_column("overhead", justify="right")
    for s in steps:
        table.add_row(
            s.node,
            *(f"{v:.0f}" for v in (s.started, s.created, s.scheduled, s.running, s.done)),
            f"{s.finished:.0f}",
            f"{s.overhead:.0f}",
        )
    console.print(table)


def node_overheads(
    workflow: dict[str, Any], names: tuple[str, ...], work: dict[str, float]
) -> tuple[float, list[float]]:
    """Each step node on the run's path: its time (and the gap since the node before it
    ended) less the step's own work, as the bare recipe timed it (a push, a wait); the
    first node's is returned apart (a plugin run's agent pod starts under it). Argo's
    timestamps are whole seconds: a single figure is +-1 s, the median over many is what
    to read."""
    on_path = {f"{kind}-{env}" for env in names[:3] for kind in ("deploy", "sync")}
    timed = sorted(
        (_at(n["startedAt"]), _at(n["finishedAt"]), n["displayName"].split("(")[0])
        for n in step_nodes(workflow)
        if n.get("finishedAt") and n["displayName"].split("(")[0] in on_path
    )
    out, last = [], _at(workflow["status"]["startedAt"])
    for _, ended, name in timed:
        out.append((ended - last) - work.get(name, 0.0))
        last = ended
    return (out[0], out[1:]) if out else (float("nan"), [])


EXECUTIONS = ("pod", "plugin")
"""Today's execution (a pod per step) and the executor plugin's, in the same rounds."""


def step_nodes(workflow: dict[str, Any]) -> list[dict[str, Any]]:
    return [n for n in workflow["status"]["nodes"].values() if n.get("type") in ("Pod", "Plugin")]


def critical_steps(workflow: dict[str, Any], names: tuple[str, ...]) -> int:
    """Step nodes on the run's longest path: the environments of the chain (e0, e1, e2:
    the fan-out's others run beside e2) and the run's own steps (notify). A retried step
    counts once."""
    on_path = {"", *names[:3]}
    seen = set()
    for node in step_nodes(workflow):
        if node.get("phase") != "Succeeded":
            continue
        display = node["displayName"].split("(")[0]
        env = next((n for n in names if display.endswith(f"-{n}")), "")
        if env in on_path:
            seen.add(display)
    return len(seen)


def main() -> None:
    from tests.e2e.settings import NotConfigured, load

    try:
        e2e = load()
    except NotConfigured as exc:
        console.print(f"e2e_promotion: not measured, no cluster configured ({exc})")
        return
    from tests.e2e import conftest
    from tests.e2e.flows import argo_client, wait_for_end
    from tests.e2e.gitops import GitopsRepo
    from tests.e2e.k8s import Apps
    from tests.e2e.promotions import policies
    from tests.e2e.runs import submit

    rows: list[Row] = []
    pod_overheads: list[float] = []
    per_step: dict[str, list[float]] = {e: [] for e in EXECUTIONS}
    gaps: dict[str, list[float]] = {e: [] for e in EXECUTIONS}
    firsts: dict[str, list[float]] = {e: [] for e in EXECUTIONS}
    work: dict[str, float] = {}
    """Each step's own time in the bare recipe of the round (a push, a wait)."""
    apps = Apps.connect(e2e)
    client = argo_client(e2e)
    with tempfile.TemporaryDirectory() as scratch, ExitStack() as stack:
        identity = stack.enter_context(contextmanager(conftest.workflow_identity.__wrapped__)(e2e))
        stack.enter_context(contextmanager(conftest.pod_runner.__wrapped__)(e2e))
        flows = stack.enter_context(
            contextmanager(conftest.flows.__wrapped__)(e2e, Path(scratch), identity, None)
        )
        stack.callback(apps.delete_all)
        for size in SIZES:
            names, edges = environments(size)
            repo = GitopsRepo(e2e, Path(scratch) / f"repo-{size}")
            flow = flows(policies(e2e)[:1], repo, environments=names)
            write_flow(flow, edges)
            first = repo.commit(
                {k: v for env in names for k, v in files(flow, env, "0.9.0").items()},
                "0.9.0 everywhere",
            )
            for env in names:
                apps.create(flow.app(env), repo.url, flow.path(env), repo.branch, flow.app(env))
            for env in names:
                apps.wait_deployed(flow.app(env), first, e2e.timeout)
            totals: dict[str, list[float]] = {e: [] for e in EXECUTIONS}
            bares: list[float] = []
            steps: list[Step] = []
            version = itertools.count()
            with console.status(f"{size} environments") as status:
                for i in range(ROUNDS):
                    bare_time = None
                    for execution in EXECUTIONS:
                        status.update(
                            f"{size} environments: round {i + 1}/{ROUNDS}, {execution} steps"
                        )
                        flow.execution = execution
                        # versions only grow: an environment never moves back
                        name = submit(flow, f"1.{next(version)}.{size}")
                        workflow = wait_for_end(client, name, e2e.timeout * 4)
                        assert workflow["status"]["phase"] == "Succeeded", workflow["status"]
                        repo.pull()
                        total = _at(workflow["status"]["finishedAt"]) - _at(
                            workflow["status"]["startedAt"]
                        )
                        totals[execution].append(total)
                        if execution == "pod":
                            steps = timeline(e2e, workflow)
                            pod_overheads += [s.overhead for s in steps]
                        if bare_time is None:
                            status.update(f"{size} environments: round {i + 1}/{ROUNDS}, bare")
                            bare_time = bare(
                                repo, apps, flow, names, f"1.{next(version)}.{size}", work
                            )
                            bares.append(bare_time)
                        opening, rest = node_overheads(workflow, names, work)
                        gaps[execution] += rest
                        firsts[execution].append(opening)
                        if size <= 3:
                            count = critical_steps(workflow, names)
                            per_step[execution].append((total - bare_time) / count)
            if steps:
                show(size, steps)
            base = statistics.median(bares)
            for execution in EXECUTIONS:
                total = statistics.median(totals[execution])
                today = execution == "pod"
                rows.append(
                    Row(
                        f"{size} environments, {execution} steps: workflow / bare recipe",
                        total / base,
                        f"{total:.1f} s vs {base:.1f} s (medians of {ROUNDS}; runs "
                        f"{', '.join(f'{t:.0f}' for t in totals[execution])} s, bare "
                        f"{', '.join(f'{b:.1f}' for b in bares)} s)",
                        "today's figure" if today else "<= 2",
                        None if today else below(2.0001),
                    )
                )
    for index, execution in enumerate(EXECUTIONS):
        today = execution == "pod"
        values = gaps[execution]
        spread = f"{min(values):.1f}-{max(values):.1f} s" if values else "-"
        rows.insert(
            index,
            Row(
                f"median overhead per step, {execution} steps (s)",
                statistics.median(values) if values else float("nan"),
                f"{len(values)} steps on the runs' paths but the first, range {spread}: node "
                "time and gap less the step's work as the bare recipe timed it",
                "today's figure" if today else "< 1 s",
                None if today else below(1.0),
            ),
        )
        rows.insert(
            index + 2,
            Row(
                f"the first step's overhead, {execution} steps (s)",
                statistics.median(firsts[execution]) if firsts[execution] else float("nan"),
                "runs "
                + ", ".join(f"{f:.1f}" for f in firsts[execution])
                + (" (the agent pod starts under it)" if not today else ""),
            ),
        )
    for execution in EXECUTIONS:
        figures = per_step[execution]
        rows.append(
            Row(
                f"(run - bare recipe) / steps on the path, {execution} steps (s)",
                statistics.median(figures) if figures else float("nan"),
                "3 environments, rounds "
                + ", ".join(f"{f:.2f}" for f in figures)
                + (" (includes the agent pod's start)" if execution == "plugin" else ""),
            )
        )
    spread = f"{min(pod_overheads):.0f}-{max(pod_overheads):.0f} s" if pod_overheads else "-"
    rows.append(
        Row(
            "median overhead per pod step, from its timeline (s)",
            statistics.median(pod_overheads) if pod_overheads else float("nan"),
            f"{len(pod_overheads)} pod nodes, range {spread} (queue, pod start, node end, gap)",
            "today's figure",
            None,
        )
    )
    finish("e2e_promotion", rows, Console(highlight=False, width=160))


if __name__ == "__main__":
    main()
