"""The engine runs the golden workflows as Argo would schedule them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from orchestrator.engine.depends import task_depends
from orchestrator.engine.model import Phase, ProgressEvent
from orchestrator.engine.runner import Engine, EngineOptions
from orchestrator.engine.suspend import Answer, AutoApprover, Question
from tests.engine.scripted import Scripted, dag_tasks, golden

GOLDEN_RUNS = ["example-shop", "example-checkout", "fan-out", "diamond", "chain-10", "no-gates"]


def run(
    name: str, tmp_path: Path, executor: Scripted, approver: AutoApprover | None = None
) -> tuple[Engine, list[ProgressEvent]]:
    workflow, templates = golden(name)
    events: list[ProgressEvent] = []
    engine = Engine(
        workflow,
        templates,
        workdir=tmp_path,
        executor=executor,
        approver=approver or AutoApprover(),
        options=EngineOptions(soak_scale=0.0, backoff_scale=0.0),
        on_event=events.append,
    )
    engine.run()
    return engine, events


@pytest.mark.parametrize("name", GOLDEN_RUNS)
def test_every_task_runs_after_what_it_depends_on(name: str, tmp_path: Path) -> None:
    executor = Scripted()
    engine, _ = run(name, tmp_path, executor)
    record = engine.record
    assert record.phase is Phase.SUCCEEDED, record.message
    tasks = dag_tasks(*reversed(golden(name)))
    assert set(record.nodes) == set(tasks)
    order = list(record.nodes)  # nodes are recorded when they start
    for task, body in tasks.items():
        for dep in task_depends(body):
            dep_node = record.nodes[dep]
            assert order.index(dep) < order.index(task), f"{task} started before {dep}"
            assert dep_node.finished_at is not None
            assert record.nodes[task].started_at is not None
            assert dep_node.finished_at <= record.nodes[task].started_at
    for node, finished in executor.finished_before.items():
        if node not in tasks:
            assert node.startswith("onExit.")
            assert set(finished) >= {n for n in tasks if record.nodes[n].kind == "container"}
            continue
        for dep in task_depends(tasks[node]):
            if record.nodes[dep].kind == "container":
                assert dep in finished, f"{node} ran before {dep} had finished"


def test_outputs_flow_into_the_next_task(tmp_path: Path) -> None:
    executor = Scripted()
    run("example-shop", tmp_path, executor)
    staging = executor.argv("deploy-staging")
    assert staging[staging.index("--source-commit") + 1] == "deploy-dev:commit"
    sync = executor.argv("sync-staging")
    assert sync[sync.index("--revision") + 1] == "deploy-staging:commit"
    assert sync[sync.index("--app") + 1] == "shop-staging"
    # the output directory of the pod is mapped to the node's own directory
    promote = executor.argv("deploy-dev")
    outputs = Path(promote[promote.index("--outputs") + 1])
    assert outputs.is_relative_to(tmp_path) and outputs.name == "outputs"


def test_the_workflow_parameters_reach_the_steps(tmp_path: Path) -> None:
    executor = Scripted()
    engine, _ = run("example-shop", tmp_path, executor)
    dev = executor.argv("deploy-dev")
    assert dev[dev.index("--version") + 1] == "1.4.2"
    assert dev[dev.index("--run") + 1] == engine.record.name
    assert engine.record.parameters["requested-by"] == "alice"


def test_a_failing_node_stops_exactly_its_dependants(tmp_path: Path) -> None:
    executor = Scripted(codes={"sync-prod-us": [1]})
    engine, _ = run("example-shop", tmp_path, executor)
    nodes = engine.record.nodes
    assert nodes["sync-prod-us"].phase is Phase.FAILED
    # a retried step is a Retry node in Argo: when its expression declines another attempt
    # the node says so (processNodeRetries); the pod keeps the step's own message
    assert nodes["sync-prod-us"].message == "retryStrategy.expression evaluated to false"
    assert nodes["sync-prod-us"].attempts[-1].message == "sync-prod-us exited 1"
    for task in ("soak-prod-us", "check-prod-us", "post-prod-us"):
        assert nodes[task].phase is Phase.OMITTED
    for task in ("deploy-prod-eu", "sync-prod-eu", "soak-prod-eu", "check-prod-eu", "post-prod-eu"):
        assert nodes[task].phase is Phase.SUCCEEDED
    assert engine.record.phase is Phase.FAILED
    assert "sync-prod-us" in engine.record.message


def test_transient_failures_are_retried_terminal_ones_are_not(tmp_path: Path) -> None:
    executor = Scripted(codes={"deploy-dev": [75, 75], "deploy-staging": [1]})
    engine, _ = run("example-shop", tmp_path, executor)
    nodes = engine.record.nodes
    assert [a.exit_code for a in nodes["deploy-dev"].attempts] == [75, 75, 0]
    assert nodes["deploy-dev"].phase is Phase.SUCCEEDED
    assert [a.exit_code for a in nodes["deploy-staging"].attempts] == [1]
    assert nodes["deploy-staging"].phase is Phase.FAILED
    assert nodes["sync-staging"].phase is Phase.OMITTED


@pytest.mark.parametrize(
    ("node", "codes", "attempts"),
    [
        ("deploy-dev", [1], 1),  # a wrong token, a missing file: exit 1
        ("deploy-dev", [2], 1),  # bad input
        ("approver-prod-eu", [1], 1),  # someone not listed answered
        ("deploy-dev", [75], 2),  # transient: the step waited itself, then the retry
    ],
)
def test_no_failure_waits_for_a_backoff(
    node: str, codes: list[int], attempts: int, tmp_path: Path
) -> None:
    """Argo waits a retryStrategy's backoff before it asks whether to retry at all
    (processNodeRetries), so with one a failure no retry can fix would wait it out (10 s
    was measured for a wrong token). The templates have none: such a failure ends after
    its first attempt with its reason, and nothing sleeps."""
    workflow, templates = golden("example-shop")
    slept: list[float] = []
    engine = Engine(
        workflow,
        templates,
        workdir=tmp_path,
        executor=Scripted(codes={node: list(codes)}),
        approver=AutoApprover(),
        options=EngineOptions(soak_scale=0.0),
        sleep=slept.append,
    )
    engine.run()
    record = engine.record.nodes[node]
    assert [a.exit_code for a in record.attempts] == [*codes, 0][:attempts]
    assert [s for s in slept if s] == []  # soaks are scaled to 0; no backoff at all
    if attempts == 1:
        assert record.phase is Phase.FAILED
        assert record.attempts[0].message == f"{node} exited {codes[0]}"  # the reason
    else:
        assert record.phase is Phase.SUCCEEDED


def test_retries_stop_at_the_limit(tmp_path: Path) -> None:
    executor = Scripted(codes={"deploy-dev": [75] * 10})
    engine, _ = run("no-gates", tmp_path, executor)
    attempts = engine.record.nodes["deploy-dev"].attempts
    assert len(attempts) == 4  # the first try and retryStrategy.limit = 3 retries
    assert engine.record.phase is Phase.FAILED


@pytest.mark.parametrize(("codes", "status"), [({}, "Succeeded"), ({"sync-dev": [1]}, "Failed")])
def test_on_exit_runs_with_the_workflow_status(
    codes: dict[str, list[int]], status: str, tmp_path: Path
) -> None:
    executor = Scripted(codes=codes)
    engine, events = run("example-shop", tmp_path, executor)
    assert list(engine.record.exit_nodes) == ["onExit.notify"]
    argv = executor.argv("onExit.notify")
    assert argv[argv.index("--status") + 1] == status
    failures = argv[argv.index("--failures") + 1]
    if status == "Failed":
        entries = json.loads(failures)
        # Argo lists every failed node: the Retry node and the pod of its attempt
        assert [e["displayName"] for e in entries] == ["sync-dev", "sync-dev(0)"]
        assert entries[0]["message"] == "retryStrategy.expression evaluated to false"
        assert entries[1]["message"] == "sync-dev exited 1"
    else:
        assert failures == ""
    assert executor.started[-1] == "onExit.notify"
    assert events[-1].workflow and events[-1].phase == Phase(status)


def test_a_rejected_approval_stops_the_environment_and_fails_the_run(tmp_path: Path) -> None:
    """The approval node is answered (Succeeded, ``approve=NO``, the reason its message), and the
    approver step that judges it fails (scripted here as the real one exits on a NO): the
    environment's chain stops there and the run ends Failed, not green."""
    executor = Scripted(codes={"approver-prod-eu": [1]})
    engine, _ = run("example-shop", tmp_path, executor, AutoApprover({"prod-eu": "not today"}))
    nodes = engine.record.nodes
    assert nodes["approve-prod-eu"].phase is Phase.SUCCEEDED
    assert nodes["approve-prod-eu"].outputs == {"approve": "NO"}
    assert "not today" in nodes["approve-prod-eu"].message
    assert "approver-prod-eu" in executor.started  # every answer is judged
    assert nodes["approver-prod-eu"].phase is Phase.FAILED
    assert "deploy-prod-eu" not in executor.started
    assert nodes["deploy-prod-eu"].phase is Phase.OMITTED
    assert nodes["post-prod-us"].phase is Phase.SUCCEEDED
    assert nodes["approve-prod-us"].outputs == {"approve": "YES"}
    assert engine.record.phase is Phase.FAILED


def test_progress_events_follow_each_node(tmp_path: Path) -> None:
    engine, events = run("chain-10", tmp_path, Scripted())
    for name, node in engine.record.nodes.items():
        phases = [e.phase for e in events if e.node == name]
        assert phases[0] is Phase.RUNNING and phases[-1] is node.phase is Phase.SUCCEEDED


def test_an_unchanged_environment_skips_its_approval_and_still_verifies(tmp_path: Path) -> None:
    """plan-prod-eu says nothing would change: approve-prod-eu is Skipped (its ``when``),
    approver-prod-eu Omitted (it depends on the approval's success), and the chain goes on
    through ``approver.Succeeded || approve.Skipped``: the deploy is told the plan's answer
    and the wait for Argo CD runs. prod-us, which changes, is asked as before."""
    executor = Scripted(
        outputs={"plan-prod-eu": {"changed": "false"}, "deploy-prod-eu": {"changed": "false"}}
    )
    asked: list[str] = []

    class Recording(AutoApprover):
        def answer(self, question: Question) -> Answer:
            asked.append(question.environment)
            return super().answer(question)

    engine, _ = run("example-shop", tmp_path, executor, Recording())
    nodes = engine.record.nodes
    assert engine.record.phase is Phase.SUCCEEDED, engine.record.message
    assert asked == ["prod-us"]
    assert nodes["approve-prod-eu"].phase is Phase.SKIPPED
    assert nodes["approve-prod-eu"].message == (
        "when 'false == true' evaluated false"  # Argo's words for a skipped task
    )
    assert nodes["approver-prod-eu"].phase is Phase.OMITTED
    for task in ("pre", "deploy", "sync", "soak", "check", "post"):
        assert nodes[f"{task}-prod-eu"].phase is Phase.SUCCEEDED, task
    deploy = executor.argv("deploy-prod-eu")
    assert deploy[deploy.index("--planned") + 1] == "false"
    assert "approver-prod-eu" not in executor.started
    assert nodes["approver-prod-us"].phase is Phase.SUCCEEDED
    us = executor.argv("deploy-prod-us")
    assert us[us.index("--planned") + 1] == "true"


class TimedOut(AutoApprover):
    """Nobody answered: the suspend node resumes at its timeout with the empty default."""

    def answer(self, question: Question) -> Answer:
        if question.environment == "prod-eu":
            values = {s.name: s.default or "" for s in question.supplied}
            return Answer(True, "", values)
        return super().answer(question)


def test_an_unanswered_approval_is_judged_and_stops_the_environment(tmp_path: Path) -> None:
    """The timeout resumes the node with an empty answer: the approver step gets it (and
    fails, scripted here), nothing of prod-eu runs, and the run ends Failed."""
    executor = Scripted(codes={"approver-prod-eu": [1]})
    engine, _ = run("example-shop", tmp_path, executor, TimedOut())
    nodes = engine.record.nodes
    assert nodes["approve-prod-eu"].phase is Phase.SUCCEEDED
    assert nodes["approve-prod-eu"].outputs == {"approve": ""}
    assert nodes["approver-prod-eu"].phase is Phase.FAILED
    for task in ("pre", "deploy", "sync", "post"):
        assert nodes[f"{task}-prod-eu"].phase is Phase.OMITTED, task
    assert "deploy-prod-eu" not in executor.started
    assert nodes["post-prod-us"].phase is Phase.SUCCEEDED
    assert engine.record.phase is Phase.FAILED


def test_a_failed_plan_asks_nothing(tmp_path: Path) -> None:
    """A plan that cannot be made (a missing file) fails before the approval is asked."""
    executor = Scripted(codes={"plan-prod-eu": [1]})
    asked: list[str] = []

    class Recording(AutoApprover):
        def answer(self, question: Question) -> Answer:
            asked.append(question.environment)
            return super().answer(question)

    engine, _ = run("example-shop", tmp_path, executor, Recording())
    nodes = engine.record.nodes
    assert asked == ["prod-us"]
    assert nodes["plan-prod-eu"].phase is Phase.FAILED
    for task in ("approve", "approver", "deploy"):
        assert nodes[f"{task}-prod-eu"].phase is Phase.OMITTED, task
    assert engine.record.phase is Phase.FAILED
