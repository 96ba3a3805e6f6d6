"""``promoflow status --watch``, ``logs`` and ``version`` as a user runs them, against the real
Argo Workflows and Argo CD.

tests/cli checks these commands against the fake Argo Server; here the console script runs
as a subprocess with the suite's settings against a real promotion (dev -> staging ->
prod: each ``deploy-ENV`` commits, each ``sync-ENV`` waits for Argo CD), a run rejected at
prod's approval, and the real servers' version endpoints.

Logs: the Argo Server reads each pod's log through the Kubernetes API, which fetches it
from the kubelet of the pod's node (``/containerLogs/...``). When the API server cannot
reach that kubelet, the Argo Server logs ``Failed to get pod logs`` for itself and answers
``200`` with an empty stream: a client cannot tell that from a step that printed nothing.
``promoflow`` steps always print (each ends with its JSON result line), so ``promoflow
logs`` names the steps that ran but whose output the server did not send, says where the
logs come from, and exits 1. The test asks the Kubernetes API for one step pod's log
itself to know which of the two the cluster gives, and checks ``promoflow logs`` against
exactly what the Argo Server streamed.
"""

from __future__ import annotations

import json
import subprocess
import time
import tomllib
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from kubernetes import client
from kubernetes.client.exceptions import ApiException

from tests.e2e.flows import Flow, argo_client, argo_http, summary, wait_for_node
from tests.e2e.gitops import GitopsRepo
from tests.e2e.k8s import Apps, api_client
from tests.e2e.promotions import gitops_for
from tests.e2e.runs import SUSPEND_ONLY, submit
from tests.e2e.settings import E2ESettings
from tests.e2e.steps import PROMOFLOW, Ran, api_env, argo_env, finish, run

pytestmark = pytest.mark.e2e

VERSIONS = Path(__file__).resolve().parent / "cluster" / "versions.toml"
ENVIRONMENTS = ("dev", "staging", "prod")
WRONG = "pfe2e-wrong-token-do-not-print"

GATES_ONLY = [
    {
        "priority": 0,
        "policy": {
            "action": "commit",
            "gates": [{"sync": {"timeout": "3m"}}, {"health": {"timeout": "3m"}}],
        },
    }
]
"""Every environment: commit, then wait until Argo CD runs it (no approval, no soak): the
cheapest promotion whose every step is a pod that prints."""


@dataclass
class Watched:
    """A promotion run, and ``status --watch`` started while it ran."""

    flow: Flow
    name: str
    watch: Ran
    running_when_watched: str


def start_watch(flow: Flow, name: str) -> tuple[subprocess.Popen[str], float, str]:
    """``promoflow status RUN --watch`` in the background, once the run is seen running
    (its phase then, for the assertion that the watch did follow a live run)."""
    phase = str(argo_client(flow.e2e).get_workflow(name).get("status", {}).get("phase") or "")
    proc = subprocess.Popen(
        [str(PROMOFLOW), "status", name, "--watch"],
        env=flow.env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    return proc, time.monotonic(), phase


@pytest.fixture(scope="module")
def promotion(
    e2e: E2ESettings,
    tmp_path_factory: pytest.TempPathFactory,
    workflow_identity: dict[str, str],
    pod_runner: None,
) -> Iterator[Watched]:
    """One real promotion of 1.0.0, dev -> staging -> prod, watched to its end."""
    from tests.e2e.flows import delete_templates, delete_workflow, write_flow

    base = tmp_path_factory.mktemp("cli")
    repo = GitopsRepo(e2e, base / "repo")
    apps = Apps.connect(e2e)
    flow = write_flow(e2e, base / "config", repo=repo.url, branch=repo.branch, policies=GATES_ONLY)
    flow.secrets = dict(workflow_identity)
    try:
        gitops_for(flow, repo, apps, e2e)
        name = submit(flow)
        proc, started, phase = start_watch(flow, name)
        watched = finish(proc, started, timeout=e2e.timeout * 3)
        yield Watched(flow, name, watched, phase)
    finally:
        for wf in argo_client(e2e).list_workflows(f"promoflow.dev/product={flow.product}"):
            delete_workflow(e2e, wf["metadata"]["name"])
        delete_templates(e2e, flow.prefix)
        apps.delete_all()
        repo.remove()


# --- status --watch ---------------------------------------------------------------------


def test_watch_of_a_real_promotion_returns_when_it_succeeds(
    e2e: E2ESettings, promotion: Watched
) -> None:
    """Started while the run runs; returns (exit 0) once the real controller has finished
    it, its final table naming every environment with its steps Succeeded."""
    workflow = argo_client(e2e).get_workflow(promotion.name)
    assert promotion.running_when_watched in ("", "Pending", "Running"), promotion
    assert workflow["status"]["phase"] == "Succeeded", summary(workflow)
    assert promotion.watch.code == 0, promotion.watch
    lines = promotion.watch.stdout.splitlines()
    head = f"{promotion.name}: {promotion.flow.product} 1.0.0 — Succeeded"
    assert lines[0] == head, promotion.watch
    rows = [line.split() for line in lines[1:]]
    for env in ENVIRONMENTS:
        steps = {row[1]: row[2] for row in rows if row and row[0] == env}
        assert steps.get("deploy") == "Succeeded", (env, promotion.watch.stdout)
        assert steps.get("sync") == "Succeeded", (env, promotion.watch.stdout)
    assert promotion.name in lines[-1], lines[-1]  # where to look further: the Argo UI
    assert "Traceback" not in promotion.watch.stderr


def test_watch_of_a_rejected_run_exits_1(e2e: E2ESettings, flows: Callable[..., Flow]) -> None:
    """A run that fails (prod's approval rejected): the watch returns with exit 1 and the
    run's final state."""
    flow = flows(SUSPEND_ONLY)
    name = submit(flow)
    wait_for_node(argo_client(e2e), name, "approve-prod", ("Running",), e2e.timeout)
    proc, started, _ = start_watch(flow, name)
    time.sleep(3)  # the watch reads the run at least once while it waits
    assert proc.poll() is None, "the watch returned while the run was waiting"

    rejected = flow.promoflow("reject", name, "--env", "prod", "-m", "e2e says no")
    watched = finish(proc, started, timeout=e2e.timeout)

    assert rejected.code == 0, rejected
    assert watched.code == 1, watched
    lines = watched.stdout.splitlines()
    assert lines[0].startswith(f"{name}: {flow.product} 1.0.0 — Failed"), watched
    envs = {line.split()[0] for line in lines[1:-1] if line.strip()}
    assert set(ENVIRONMENTS) <= envs, watched.stdout
    assert "Traceback" not in watched.stderr


# --- logs --------------------------------------------------------------------------------


def streamed(e2e: E2ESettings, name: str) -> tuple[int, list[dict[str, Any]]]:
    """What the Argo Server streams of the run's main containers: its status and lines."""
    with argo_http(e2e) as http:
        answer = http.get(
            f"/workflows/{e2e.argo_namespace}/{name}/log",
            params={"logOptions.container": "main"},
            timeout=60,
        )
    lines = [json.loads(line) for line in answer.text.splitlines() if line.strip()]
    return answer.status_code, lines


def step_pods(e2e: E2ESettings, name: str) -> dict[str, str]:
    """Each Pod node's display name (``deploy-dev(0)``), by its pod's name (the
    Kubernetes API's listing)."""
    core = client.CoreV1Api(api_client(e2e))
    listed = core.list_namespaced_pod(
        e2e.argo_namespace, label_selector=f"workflows.argoproj.io/workflow={name}"
    ).items
    workflow = argo_client(e2e).get_workflow(name)
    by_id = {n["id"]: n for n in (workflow["status"].get("nodes") or {}).values()}
    pods = {}
    for pod in listed:
        meta = pod.metadata
        assert meta is not None
        node = by_id.get((meta.annotations or {}).get("workflows.argoproj.io/node-id"))
        if node is not None:
            pods[str(meta.name)] = str(node["displayName"])
    return pods


def base(task: str) -> str:
    """``deploy-dev(0)`` -> ``deploy-dev``: the compiled steps retry, so each pod is an
    attempt."""
    return task.split("(", 1)[0]


def kubelet_log(e2e: E2ESettings, pod: str) -> str | None:
    """The pod's main container log through the Kubernetes API (``kubectl logs``), or
    ``None`` when the API server cannot get it from the node."""
    core = client.CoreV1Api(api_client(e2e))
    try:
        return str(core.read_namespaced_pod_log(pod, e2e.argo_namespace, container="main"))
    except ApiException as exc:
        print(f"\nkubectl logs {pod}: {exc.status} {exc.body}")
        return None


def test_logs_prints_what_the_argo_server_streams(e2e: E2ESettings, promotion: Watched) -> None:
    """``promoflow logs RUN`` (and ``-f`` of the ended run): every line the real Argo
    Server streams, each after its task; when it streams nothing for steps that ran, the
    command says so and exits 1."""
    flow, name = promotion.flow, promotion.name
    pods = step_pods(e2e, name)
    assert {f"deploy-{env}" for env in ENVIRONMENTS} <= {base(t) for t in pods.values()}, pods
    status, lines = streamed(e2e, name)
    assert status == 200, lines
    readable = kubelet_log(e2e, next(iter(pods))) is not None

    shown = flow.promoflow("logs", name)
    followed = flow.promoflow("logs", name, "-f", timeout=60)  # the run has ended: returns

    assert (followed.code, followed.stdout, followed.stderr) == (
        shown.code,
        shown.stdout,
        shown.stderr,
    ), followed
    assert "Traceback" not in shown.stderr and e2e.argo_token not in shown.stdout + shown.stderr
    print(f"\npromoflow logs {name}: exit {shown.code}\n{shown.stdout}{shown.stderr}")
    expected = [f"{pods[e['result']['podName']]}: {e['result']['content']}" for e in lines]
    assert shown.stdout.splitlines() == expected, shown
    if readable:  # the API server reaches the node: every step's output, its result last
        assert shown.code == 0, shown
        for task in pods.values():
            assert any(line.startswith(f"{task}: {{") for line in expected), (task, shown)
    else:  # the server's empty 200: said, with where the logs come from
        assert lines == [], lines
        assert shown.code == 1, shown
        assert "the Argo Server sent no log lines" in shown.stderr, shown
        for env in ENVIRONMENTS:
            assert f"deploy-{env}" in shown.stderr, shown
        assert "kubectl logs" in shown.stderr, shown


def test_logs_of_one_node_and_a_mistyped_one(e2e: E2ESettings, promotion: Watched) -> None:
    """``promoflow logs RUN deploy-staging``: that step's lines only, without the task
    before them; ``deploy-stagin``: exit 2 with the step meant."""
    flow, name = promotion.flow, promotion.name
    pods = step_pods(e2e, name)
    _, lines = streamed(e2e, name)

    one = flow.promoflow("logs", name, "deploy-staging")
    typo = flow.promoflow("logs", name, "deploy-stagin")

    expected = [
        e["result"]["content"]
        for e in lines
        if base(pods[e["result"]["podName"]]) == "deploy-staging"
    ]
    assert one.stdout.splitlines() == expected, one
    assert "Traceback" not in one.stderr
    if expected:
        assert one.code == 0, one
    else:
        assert one.code == 1, one
        assert "deploy-staging" in one.stderr and "deploy-dev" not in one.stderr, one
    assert typo.code == 2, typo
    assert "did you mean deploy-staging?" in typo.stderr, typo
    assert "Traceback" not in typo.stderr


# --- version -----------------------------------------------------------------------------


def pinned(component: str) -> str:
    return str(tomllib.loads(VERSIONS.read_text())[component]["version"])


def version_env(e2e: E2ESettings, **extra: str) -> dict[str, str]:
    return (
        argo_env(e2e) | {k: v for k, v in api_env(e2e).items() if k.startswith("ARGOCD_")} | extra
    )


def test_version_names_the_real_servers_versions(e2e: E2ESettings) -> None:
    """The versions the servers answer, as built from versions.toml's pins."""
    with argo_http(e2e) as http:
        argo = http.get("/version").json()

    text = run("version", env=version_env(e2e))
    data = run("version", "-o", "json", env=version_env(e2e))

    assert text.code == 0 and data.code == 0, (text, data)
    answered = json.loads(data.stdout)
    assert answered["argoServer"] == argo
    assert answered["argoServer"]["version"].startswith(pinned("argo_workflows"))
    assert answered["argocdServer"]["Version"].startswith(pinned("argocd"))
    assert answered["argocdServer"].get("BuildDate"), answered  # details: the token is good
    lines = text.stdout.splitlines()
    assert f"argo-server: {argo['version']}" in lines, text
    assert f"argocd-server: {answered['argocdServer']['Version']}" in lines, text
    assert "refused" not in text.stdout, text


def test_version_with_wrong_tokens_says_so_and_never_prints_them(e2e: E2ESettings) -> None:
    """Both version endpoints answer without credentials (Argo CD then leaves out its
    build details), so the version alone cannot show a wrong token: ``version`` says the
    servers refused the tokens, naming the settings, and prints neither token."""
    env = version_env(e2e, ARGO_TOKEN=f"Bearer {WRONG}-argo", ARGOCD_AUTH_TOKEN=f"{WRONG}-cd")

    text = run("version", env=env)
    data = run("version", "-o", "json", env=env)

    assert text.code == 0 and data.code == 0, (text, data)
    for shown in (text, data):
        assert WRONG not in shown.stdout + shown.stderr, shown
        assert "Traceback" not in shown.stderr
    lines = text.stdout.splitlines()
    argo_line = next(i for i, line in enumerate(lines) if line.startswith("argo-server: "))
    assert lines[argo_line].startswith(f"argo-server: {pinned('argo_workflows')}"), text
    assert "  Credentials: refused (check ARGO_TOKEN)" in lines, text
    assert "  Credentials: refused (check ARGOCD_AUTH_TOKEN)" in lines, text
    answered = json.loads(data.stdout)
    assert answered["argoServer"]["credentials"] == "refused (check ARGO_TOKEN)"
    assert answered["argocdServer"]["credentials"] == "refused (check ARGOCD_AUTH_TOKEN)"
