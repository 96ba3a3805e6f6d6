"""The run's message in the Argo list (``status.message``), written by the reporter, on the
real controller and Argo Server.

The controller writes the message only when a run's phase changes (empty while it runs and
when it succeeds), so the reporter writes it: where the run is (``waiting for approval of
prod (approvers: ...)``), then how it ended (``promoted to dev, prod``, ``prod rejected by
USER: REASON``). These tests check each stage as the Argo Server returns the Workflow, that
the controller leaves the message in place while it keeps updating the run, and that the
run goes on to the same end as without the reporter.
"""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from kubernetes import client

from reporters.runstatus import RunMessages
from reporters.runtime import Reporter
from reporters.state.store import Store
from reporters.watch.watcher import Watcher
from tests.e2e.flows import (
    Flow,
    argo_client,
    argo_http,
    nodes,
    summary,
    wait_for_end,
    wait_for_node,
)
from tests.e2e.k8s import api_client, wait_until
from tests.e2e.runs import argo_cli, flow_with_approvers, own_subject, submit
from tests.e2e.settings import E2ESettings

pytestmark = pytest.mark.e2e
CAPTURE = os.environ.get("PROMOFLOW_CAPTURE_RUNS", "")
"""A directory to write the Workflows seen at each stage to (the unit tests' fixtures in
tests/reporters/runs/ were captured so)."""


class Nowhere:
    name = "nowhere"

    def send(self, event: dict[str, Any]) -> None:
        pass


@contextmanager
def reporting(e2e: E2ESettings, state: Path) -> Iterator[RunMessages]:
    api = client.CustomObjectsApi(api_client(e2e))
    workflows = Watcher(
        api, e2e.argo_namespace, ("argoproj.io", "v1alpha1", "workflows"), "workflows:",
        watch_seconds=30,
    )  # fmt: skip
    apps = Watcher(api, e2e.argocd_namespace, watch_seconds=30)
    messages = RunMessages(api)
    reporter = Reporter(apps, Store(state), sinks=[Nowhere()], others=[workflows],  # type: ignore[list-item]
                        run_messages=messages)  # fmt: skip
    runner = threading.Thread(target=reporter.run)
    runner.start()
    try:
        yield messages
    finally:
        reporter.stop()
        runner.join(30)


def message_of(e2e: E2ESettings, name: str) -> str:
    """As the list gets it: the Argo Server's Workflow."""
    with argo_http(e2e) as http:
        answer = http.get(f"/workflows/{e2e.argo_namespace}/{name}")
        answer.raise_for_status()
        workflow = answer.json()
    if CAPTURE:
        stage = (
            workflow["status"].get("phase", "")
            + "-"
            + str(len(workflow["status"].get("nodes") or {}))
        )
        Path(CAPTURE, f"{name}-{stage}.json").write_text(json.dumps(workflow, indent=1))
    return str(workflow["status"].get("message") or "")


def wait_for_message(e2e: E2ESettings, name: str, test: Callable[[str], bool], what: str) -> str:
    seen: list[str] = []

    def matches() -> str | None:
        text = message_of(e2e, name)
        seen.append(text)
        return text if test(text) else None

    try:
        return wait_until(f"{name}'s message {what}", matches, e2e.timeout)
    except AssertionError as exc:
        raise AssertionError(f"{exc}; messages seen: {sorted(set(seen))}") from None


def test_the_message_says_who_may_approve_then_who_rejected_and_why(
    e2e: E2ESettings, flows: Callable[..., Flow], tmp_path: Path
) -> None:
    me = own_subject(e2e)
    flow = flow_with_approvers(flows, [f"user:{me}"])
    with reporting(e2e, tmp_path / "state.db") as written:
        name = submit(flow)
        waiting = wait_for_message(
            e2e, name, lambda m: m.startswith("waiting for approval"), "says it waits"
        )
        assert (
            waiting
            == f"waiting for approval of prod (approvers: user:{me}); promoted to dev, staging"
        )

        answered = flow.promoflow("reject", name, "--env", "prod", "-m", "change freeze")
        assert answered.code == 0, answered
        workflow = wait_for_end(argo_client(e2e), name, e2e.timeout)
        assert workflow["status"]["phase"] == "Failed", summary(workflow)
        ended = wait_for_message(e2e, name, lambda m: "rejected" in m, "says who rejected")
    assert ended == f"prod rejected by {me}: change freeze; promoted to dev, staging"
    assert written.written >= 2 and written.failed == 0


def test_the_message_of_a_promotion_that_ran_to_the_end(
    e2e: E2ESettings, flows: Callable[..., Flow], tmp_path: Path
) -> None:
    """The controller clears the message when the run succeeds; the reporter writes it
    again, and the controller, done with the run, leaves it."""
    flow = flow_with_approvers(flows, [])
    with reporting(e2e, tmp_path / "state.db"):
        name = submit(flow)
        wait_for_message(e2e, name, lambda m: m.startswith("waiting for approval of prod"), "waits")
        answered = flow.promoflow("approve", name, "--env", "prod")
        assert answered.code == 0, answered
        workflow = wait_for_end(argo_client(e2e), name, e2e.timeout)
        assert workflow["status"]["phase"] == "Succeeded", summary(workflow)
        ended = wait_for_message(e2e, name, lambda m: m.startswith("promoted"), "says it ended")
    assert ended == "promoted to dev, staging, prod"
    assert nodes(workflow)["soak-prod"]["phase"] == "Succeeded"


def test_the_message_of_a_run_resumed_without_an_answer(
    e2e: E2ESettings, flows: Callable[..., Flow], tmp_path: Path
) -> None:
    """The workflow's RESUME button, as the UI sends it: the run fails, and the list says
    why and how to answer."""
    flow = flow_with_approvers(flows, [])
    with reporting(e2e, tmp_path / "state.db"):
        name = submit(flow)
        wait_for_node(argo_client(e2e), name, "approve-prod", ("Running",), 60)
        with argo_http(e2e) as http:
            path = f"/workflows/{e2e.argo_namespace}/{name}/resume"
            assert http.put(path, json={"nodeFieldSelector": None}).status_code == 200
        wait_for_end(argo_client(e2e), name, e2e.timeout)
        ended = wait_for_message(e2e, name, lambda m: "resumed" in m, "says it was resumed")
    assert ended.startswith("resumed without an answer by "), ended
    assert ended.endswith(": answer approve-prod with YES or NO; promoted to dev, staging"), ended


def test_an_approval_resumed_by_node_without_a_value_is_said_not_left_hanging(
    e2e: E2ESettings, flows: Callable[..., Flow], tmp_path: Path
) -> None:
    """``argo resume --node-field-selector`` without ``argo node set``: Argo gives the
    output no default on that path, the approver cannot start, and the run would sit in
    Running until its deadline with nothing to say why. The list says it."""
    flow = flow_with_approvers(flows, [])
    with reporting(e2e, tmp_path / "state.db"):
        name = submit(flow)
        wait_for_node(argo_client(e2e), name, "approve-prod", ("Running",), 60)
        try:
            selector = ("--node-field-selector", "displayName=approve-prod")
            resumed = argo_cli(e2e, "resume", name, *selector)
            assert resumed.returncode == 0, resumed.stdout + resumed.stderr
            said = wait_for_message(e2e, name, lambda m: "cannot go on" in m, "says it is stuck")
        finally:
            argo_cli(e2e, "stop", name)
    assert said.startswith("approve-prod was resumed without an answer (`argo resume` without"), (
        said
    )
    assert said.endswith("stop this run and promote again; promoted to dev, staging"), said
