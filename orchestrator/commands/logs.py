"""``promoflow logs RUN [NODE]``: what a run's steps printed, as ``argo logs`` shows it.

A cluster run's logs come from the Argo Server (the main container of each pod, the
``WorkflowLogs`` stream), a local run's from the files it keeps beside its record (each
step's stdout, then stderr). Every line is scrubbed of credentials before it is printed;
with all steps shown, each line starts with its task (``deploy-dev: ...``).

The Argo Server reads pod logs through the Kubernetes API, which asks each node's kubelet;
when that fails it logs the error for itself and still answers ``200`` with an empty
stream. Every promoflow step prints (its JSON result line, at least), so a finished step
with no line is a log the server could not read: the command names those steps and where
the logs come from, and exits 1, instead of printing nothing as if all were well.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Annotated

import typer

from orchestrator.commands.argo import ArgoServerOption, NamespaceOption
from orchestrator.commands.common import RUNS_DIR, RunsDirOption, out

if TYPE_CHECKING:
    from collections.abc import Iterable
    from pathlib import Path

    from orchestrator.commands.runsource import RunSource
    from orchestrator.manifest import Manifest

POLL_SECONDS = 0.5
"""How often ``-f`` reads a local run's log files again."""


def logs_cmd(
    run: Annotated[str, typer.Argument(help="Run name, as `promoflow runs` lists it.")],
    node: Annotated[
        str | None,
        typer.Argument(help="One step's task, as `promoflow status` lists them (deploy-dev)."),
    ] = None,
    follow: Annotated[
        bool, typer.Option("--follow", "-f", help="Keep printing new lines until the run ends.")
    ] = False,
    argo_server: ArgoServerOption = None,
    namespace: NamespaceOption = None,
    runs_dir: RunsDirOption = RUNS_DIR,
) -> None:
    """Print what a run's steps printed, local or on the Argo Server.

    Examples:
      $ promoflow logs shop-1-4-2-3f9a1c2e
      $ promoflow logs shop-1-4-2-3f9a1c2e deploy-prod-eu
      $ promoflow logs shop-1-4-2-3f9a1c2e -f
    """
    from orchestrator.commands.runsource import locate
    from orchestrator.runs import summarize

    source = locate(run, runs_dir, argo_server, namespace)
    workflow = source.workflow()
    tasks = [n.task for n in summarize(workflow).nodes]
    if node is not None and node not in tasks:
        from orchestrator.commands.choices import closest

        guess = closest(node, tasks)
        raise typer.BadParameter(
            f"{run} has no step {node!r}"
            + (f"; did you mean {guess}?" if guess else f" (steps: {', '.join(tasks) or 'none'})"),
            param_hint="NODE",
        )
    if source.local is not None:
        _local(source, node, follow)
    else:
        _cluster(source, workflow, node, follow)


def _say(task: str, line: str, node: str | None) -> None:
    from orchestrator.urls import scrub

    out.print(scrub(line if node else f"{task}: {line}"), markup=False, highlight=False)


def _cluster(source: RunSource, workflow: Manifest, node: str | None, follow: bool) -> None:
    from orchestrator.runs import base_task, pod_tasks, task_of_pod

    assert source.client is not None
    tasks = pod_tasks(workflow)
    heard: set[str] = set()
    for pod, line in source.client.workflow_logs(source.name, follow=follow):
        task = task_of_pod(pod, tasks)
        if task is None and follow:  # a pod started after the run was read
            tasks = pod_tasks(source.workflow())
            task = task_of_pod(pod, tasks)
        task = task or pod
        heard.add(task)
        if node is None or base_task(task) == node:
            _say(task, line, node)
    if follow:  # the steps as they ended, not as they were when the stream began
        workflow = source.workflow()
    from orchestrator.runs import silent_steps

    silent = [t for t in silent_steps(workflow, heard) if node is None or base_task(t) == node]
    if silent:
        from orchestrator.commands.common import fail

        namespace = source.client.namespace
        fail(
            f"the Argo Server sent no log lines for {', '.join(silent)}, which ran: it reads "
            "pod logs from each node's kubelet through the Kubernetes API, and answers "
            "with nothing when it cannot (its own log says why; `kubectl logs -n "
            f"{namespace} POD -c main` shows whether the API server can reach the node)"
        )


def _local(source: RunSource, node: str | None, follow: bool) -> None:
    from orchestrator.localruns import node_logs, read

    assert source.local is not None
    read_to: dict[Path, int] = {}
    while True:
        current = read(source.local.path) or source.local
        done = current.done  # read before the logs: their last lines are in the pass below
        for task, path in node_logs(current, node):
            _print_new(task, path, read_to, node, final=done or not follow)
        if done or not follow:
            return
        time.sleep(POLL_SECONDS)


def _print_new(
    task: str, path: Path, read_to: dict[Path, int], node: str | None, *, final: bool
) -> None:
    """The lines of ``path`` after what was printed of it; an unfinished last line waits
    for the next pass unless this one is the last."""
    try:
        data = path.read_bytes()
    except OSError:
        return
    start = read_to.get(path, 0)
    end = len(data) if final else data.rfind(b"\n", start) + 1
    if end <= start:
        return
    read_to[path] = end
    for line in _lines(data[start:end].decode(errors="replace")):
        _say(task, line, node)


def _lines(text: str) -> Iterable[str]:
    return text.rstrip("\n").split("\n") if text.strip() else []
