"""What the compiled DAG means: edges, gates, parameters and reliability settings."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from orchestrator.compiler import CompileError, compile_product, plan_product
from orchestrator.compiler.names import workflow_name
from orchestrator.graph.build import EnvironmentGraph
from orchestrator.runs import split_task
from tests.compiler.helpers import CONFIGS, SCENARIOS, SETTINGS, compiled, dag_tasks, load

ROOT = Path(__file__).resolve().parents[2]


def _env_of(task: str) -> str:
    parsed = split_task(task)
    assert parsed is not None, task
    kind, env = parsed
    return re.sub(r"-\d+$", "", env) if kind == "check" else env


@pytest.mark.parametrize(("scenario", "path", "product"), SCENARIOS, ids=[s[0] for s in SCENARIOS])
def test_dag_depends_equal_flow_edges(scenario: str, path: Path, product: str) -> None:
    config = load(path)
    flow = config.flows[config.products[product].spec.flow]
    expected = set(EnvironmentGraph.from_flow(flow).edges)
    edges = set()
    for task in dag_tasks(compiled(path, product)[0]):
        for term in re.findall(r"([\w-]+)\.Succeeded", task.get("depends", "")):
            src, dst = _env_of(term), _env_of(task["name"])
            if src != dst:
                edges.add((src, dst))
    assert edges == expected


@pytest.mark.parametrize(("scenario", "path", "product"), SCENARIOS, ids=[s[0] for s in SCENARIOS])
def test_every_link_requires_success(scenario: str, path: Path, product: str) -> None:
    """Every link is a success, except the one past an approval that was not asked: an
    unchanged environment skips it (``approve.Skipped``) and goes on to verify."""
    template = compiled(path, product)[0]
    dag = next(t for t in template["spec"]["templates"] if t["name"] == "promote")["dag"]
    assert dag["failFast"] is False  # one failing environment must not stop the others
    for task in dag["tasks"]:
        if "depends" not in task:
            continue
        env = _env_of(task["name"])
        skipped = f"approver-{env}.Succeeded || approve-{env}.Skipped"
        if task["depends"] == skipped:
            continue
        terms = task["depends"].split(" && ")
        assert all(t.endswith(".Succeeded") for t in terms), task["depends"]


@pytest.mark.parametrize(("scenario", "path", "product"), SCENARIOS, ids=[s[0] for s in SCENARIOS])
def test_no_when_reads_a_task_that_may_be_skipped(scenario: str, path: Path, product: str) -> None:
    """A ``when`` may read only tasks its own ``depends`` requires to have Succeeded: Argo
    versions differ on what a skipped task's outputs resolve to (an empty string, or a
    requeue for ever), so no ``when`` may depend on that."""
    tasks = {t["name"]: t for t in dag_tasks(compiled(path, product)[0])}
    for name, task in tasks.items():
        read = set(re.findall(r"\{\{tasks\.([\w-]+)\.outputs", task.get("when", "")))
        required = set(re.findall(r"([\w-]+)\.Succeeded", task.get("depends", "")))
        if not read:
            continue
        assert read <= required and "||" not in task["depends"], (name, task)
        for above in read:
            assert "when" not in tasks[above] or above.startswith("approve-"), above


def test_approval_nodes_exactly_where_policies_demand() -> None:
    _, path, _ = SCENARIOS[0]
    config = load(path)
    for product in ("shop", "checkout"):
        tasks = [t["name"] for t in dag_tasks(compiled(path, product)[0])]
        approvals = {_env_of(t) for t in tasks if t.startswith("approve-")}
        production = {n for n, e in config.environments.items() if e.spec.production}
        assert approvals == production == {"prod-eu", "prod-us"}


def test_an_approval_is_asked_only_for_a_change_and_checked_when_answered() -> None:
    """plan -> approve (when it changes something) -> approver (judges every answer) ->
    the rest of the chain (approved, or nothing to approve); the deploy commits only what
    was planned."""
    tasks = {t["name"]: t for t in dag_tasks(compiled(CONFIGS / "pull-request", "app")[0])}
    names = list(tasks)
    prod = [n for n in names if n.endswith("-prod") or n.startswith("check-prod")]
    assert prod[:4] == ["plan-prod", "approve-prod", "approver-prod", "deploy-prod"]
    assert tasks["plan-prod"]["depends"] == "record-dev.Succeeded"
    assert tasks["approve-prod"]["depends"] == "plan-prod.Succeeded"
    assert tasks["approve-prod"]["when"] == (
        "{{tasks.plan-prod.outputs.parameters.changed}} == true"
    )
    assert tasks["approver-prod"]["depends"] == "approve-prod.Succeeded"
    assert "when" not in tasks["approver-prod"]  # a NO or no answer fails it, visibly
    assert tasks["deploy-prod"]["depends"] == "approver-prod.Succeeded || approve-prod.Skipped"
    assert "when" not in tasks["deploy-prod"]
    deploy = {p["name"]: p["value"] for p in tasks["deploy-prod"]["arguments"]["parameters"]}
    assert deploy["planned"] == "{{tasks.plan-prod.outputs.parameters.changed}}"
    # the approval's values are compiled into its own template: the node has no inputs
    # but the answer (tests/compiler/test_pause_templates.py)
    assert "arguments" not in tasks["approve-prod"]
    wt = compiled(CONFIGS / "pull-request", "app")[0]
    approval = next(t for t in wt["spec"]["templates"] if t["name"] == "approval-prod")
    assert approval["suspend"] == {"duration": "2h"}
    assert approval["metadata"]["annotations"]["promoflow.dev/approvers"] == "group:release"
    # group approvers are Argo's RBAC's to check: the approver step only takes a timely YES
    approver = {p["name"]: p["value"] for p in tasks["approver-prod"]["arguments"]["parameters"]}
    assert approver["approvers"] == ""
    assert tasks["plan-prod"]["templateRef"] == {"name": "promoflow-plan", "template": "plan"}


def test_an_approval_of_an_environment_that_commits_nothing_has_no_plan(tmp_path: Path) -> None:
    config = tmp_path / "config"
    shutil.copytree(CONFIGS / "no-gates", config)
    (config / "approve.yaml").write_text(
        "apiVersion: promoflow.dev/v1alpha1\nkind: PromotionPolicy\nmetadata: {name: ask}\n"
        "spec:\n  policy: {action: none, gates: [{approval: {}}, {soak: {duration: 1m}}]}\n"
    )
    tasks = {t["name"]: t for t in dag_tasks(compiled(config, "app")[0])}
    assert list(tasks)[:3] == ["approve-dev", "approver-dev", "soak-dev"]
    assert "when" not in tasks["approve-dev"]
    assert tasks["soak-dev"]["depends"] == "approver-dev.Succeeded"


def test_pull_request_waits_for_merge_commit() -> None:
    tasks = {t["name"]: t for t in dag_tasks(compiled(CONFIGS / "pull-request", "app")[0])}
    sync = {p["name"]: p["value"] for p in tasks["sync-prod"]["arguments"]["parameters"]}
    assert sync["revision"] == "{{tasks.merge-prod.outputs.parameters.commit}}"
    assert sync["deadline-seconds"] == str(20 * 60 + 10 * 60 + 60)
    assert [t for t in tasks if t.startswith("check-prod")] == ["check-prod-1", "check-prod-2"]


def test_no_gates_written_still_means_waiting_for_argo_cd() -> None:
    """Verification is the default: every deploy is followed by its sync/health wait."""
    tasks = {t["name"]: t for t in dag_tasks(compiled(CONFIGS / "no-gates", "app")[0])}
    assert list(tasks) == [
        "deploy-dev", "sync-dev", "record-dev", "deploy-staging", "sync-staging",
        "record-staging",
    ]  # fmt: skip
    params = {p["name"]: p["value"] for p in tasks["sync-staging"]["arguments"]["parameters"]}
    assert params["health"] == "true"
    assert params["revision"] == "{{tasks.deploy-staging.outputs.parameters.commit}}"
    # the promotion commit is noted verified once the wait passed, and only then
    recorded = {p["name"]: p["value"] for p in tasks["record-staging"]["arguments"]["parameters"]}
    assert tasks["record-staging"]["depends"] == "sync-staging.Succeeded"
    assert recorded["commit"] == "{{tasks.deploy-staging.outputs.parameters.commit}}"
    assert recorded["changed"] == "{{tasks.deploy-staging.outputs.parameters.changed}}"
    assert recorded["gates"] == "sync,health"


def test_verify_false_turns_the_wait_off(tmp_path: Path) -> None:
    config = tmp_path / "config"
    shutil.copytree(CONFIGS / "no-gates", config)
    (config / "no-verify.yaml").write_text(
        "apiVersion: promoflow.dev/v1alpha1\nkind: PromotionPolicy\nmetadata: {name: no-verify}\n"
        "spec:\n  policy: {verify: false}\n"
    )
    names = [t["name"] for t in dag_tasks(compiled(config, "app")[0])]
    assert names == ["deploy-dev", "deploy-staging"]


def test_promote_parameters_are_resolved_for_the_run() -> None:
    _, path, _ = SCENARIOS[0]
    tasks = {t["name"]: t for t in dag_tasks(compiled(path, "shop")[0])}
    params = {p["name"]: p["value"] for p in tasks["deploy-prod-eu"]["arguments"]["parameters"]}
    assert params["source-environment"] == "staging"
    assert params["source-path"] == "envs/staging/shop"
    assert params["target-path"] == "regions/eu/shop"  # the product's override
    assert params["source-commit"] == "{{tasks.deploy-staging.outputs.parameters.commit}}"
    assert params["repo"] == "https://git.example.com/acme/gitops.git"
    trigger = {p["name"]: p["value"] for p in tasks["deploy-dev"]["arguments"]["parameters"]}
    assert trigger["source-environment"] == ""
    assert trigger["version-path"] == "image.tag"


def test_no_deploy_waits_for_another_on_a_mutex() -> None:
    """Two products pushing to one branch, and a fan-out's environments, deploy side by
    side: concurrent pushes rebase and retry (tests/git/test_concurrency.py), and a branch
    mutex held a step's whole life made them take turns."""
    _, path, _ = SCENARIOS[0]
    for product in ("shop", "checkout"):
        template = compiled(path, product)[0]
        for task in dag_tasks(template):
            if task["name"].startswith("deploy-"):
                params = {p["name"] for p in task["arguments"]["parameters"]}
                assert "lock" not in params
        for step in template["spec"]["templates"]:
            mutexes = (step.get("synchronization") or {}).get("mutexes") or []
            assert not any("git" in m["name"] for m in mutexes), step["name"]


def test_exit_handler_reports_status() -> None:
    template = compiled(CONFIGS / "no-gates", "app")[0]
    assert template["spec"]["onExit"] == "report"
    report = next(t for t in template["spec"]["templates"] if t["name"] == "report")
    step = report["steps"][0][0]
    values = {p["name"]: p["value"] for p in step["arguments"]["parameters"]}
    assert values["status"] == "{{workflow.status}}"
    assert step["templateRef"] == {"name": "promoflow-notify", "template": "notify"}


def test_workflow_labels_title_and_reference() -> None:
    workflow = compiled(SCENARIOS[0][1], "shop")[1]
    meta = workflow["metadata"]
    assert meta["labels"]["promoflow.dev/product"] == "shop"
    assert meta["labels"]["promoflow.dev/version"] == "1.4.2"
    assert meta["labels"]["promoflow.dev/flow"] == "standard"
    assert meta["annotations"]["workflows.argoproj.io/title"] == "shop 1.4.2"
    assert (
        "dev → staging → prod-eu, prod-us"
        in meta["annotations"]["workflows.argoproj.io/description"]
    )
    assert workflow["spec"]["workflowTemplateRef"] == {"name": "promoflow-shop"}


def test_workflow_names_identify_the_request() -> None:
    a = workflow_name("shop", "1.4.2", "r1")
    assert a == workflow_name("shop", "1.4.2", "r1")
    assert a != workflow_name("shop", "1.4.2", "r2")
    assert a != workflow_name("shop", "1.4.3", "r1")
    long = workflow_name("a-very-long-product-name", "2026.11.22-build.123456789+sha.deadbeef", "")
    assert len(long) <= 63 and re.fullmatch(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?", long)


def test_version_label_is_sanitised_but_annotation_exact() -> None:
    config = load(CONFIGS / "no-gates")
    from orchestrator.compiler import PromotionRequest

    req = PromotionRequest("app", "1.0.0+build/7", "", "", "")
    workflow = compile_product(config, "app", SETTINGS, req).workflow
    assert workflow is not None
    assert workflow["metadata"]["labels"]["promoflow.dev/version"] == "1.0.0_build_7"
    assert workflow["metadata"]["annotations"]["promoflow.dev/version"] == "1.0.0+build/7"


def test_plan_orders_environments_topologically() -> None:
    plan = plan_product(load(CONFIGS / "diamond"), "app")
    order = [e.environment for e in plan.environments]
    assert order.index("prod") > order.index("qa") and order.index("prod") > order.index("perf")
    assert plan.environment("prod").source == "qa"  # first dependency is the copy source


def test_unknown_product_is_a_compile_error() -> None:
    with pytest.raises(CompileError, match="unknown product 'nope'"):
        plan_product(load(CONFIGS / "diamond"), "nope")


def test_a_window_holds_the_deploy_of_the_environments_it_selects(tmp_path: Path) -> None:
    """The window task runs right before the deploy (after the approval and the
    preAction), only where a PromotionWindow selects the environment, with those windows
    compiled in; the graph shows it in the same place."""
    config = tmp_path / "config"
    shutil.copytree(ROOT / "environments", config, ignore=shutil.ignore_patterns("__pycache__"))
    window = config / "windows.yaml"
    window.write_text(
        window.read_text().replace("matchLabels: {promotion-window: year-end}", "production: true")
    )
    tasks = {t["name"]: t for t in dag_tasks(compiled(config, "shop")[0])}
    assert [n for n in tasks if n.startswith("window-")] == ["window-prod-eu", "window-prod-us"]
    assert tasks["window-prod-eu"]["depends"] == "pre-prod-eu.Succeeded"
    assert tasks["deploy-prod-eu"]["depends"] == "window-prod-eu.Succeeded"
    params = {p["name"]: p["value"] for p in tasks["window-prod-eu"]["arguments"]["parameters"]}
    [compiled_window] = json.loads(params["windows"])
    assert compiled_window["metadata"]["name"] == "year-end-freeze"
    assert compiled_window["spec"]["deny"][0]["schedule"] == "0 0 24 DEC *"
    from orchestrator.graph.views import views
    from orchestrator.loading import load_config

    [view] = views(load_config(config)[0], "shop")
    details = view.info["prod-eu"].details
    assert details.index("pre smoke-tests") + 1 == details.index("window year-end-freeze")
    assert not any(d.startswith("window") for d in view.info["staging"].details)
