"""Each family of checks judged on set answers: what passes, what fails, and the fix said."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from orchestrator.adapters.probes import Reply
from orchestrator.compat import MIN_ARGO_WORKFLOWS, parse_version, version_text
from orchestrator.doctor.families import examine, families
from orchestrator.doctor.report import Line, exit_code
from orchestrator.loading import load_config
from tests.doctor.scripted import (
    ADVERT,
    TEMPLATES,
    config_dir,
    context,
    healthy,
    template_list,
)


def only(lines: list[Line], family: str, check: str) -> Line:
    found = [line for line in lines if line.family == family and line.check == check]
    assert len(found) == 1, (family, check, lines)
    return found[0]


def test_a_healthy_installation_has_no_failure_and_every_family_speaks(tmp_path: Path) -> None:
    lines = examine(context(tmp_path, healthy(tmp_path)))
    assert [line for line in lines if line.status != "ok"] == []
    assert exit_code(lines) == 0
    assert {line.family for line in lines} == {f.TITLE for f in families()} - {"Reporters"}
    assert only(lines, "Argo Server", "token").detail == "acts as argo/promoflow"


def test_the_minimum_argo_version_is_the_first_with_mutexes() -> None:
    assert version_text(MIN_ARGO_WORKFLOWS) == "v3.6.0"
    assert parse_version("v4.0.5+unknown") == (4, 0, 5)
    assert parse_version("v3.5") == (3, 5, 0)
    assert parse_version("latest") is None


@pytest.mark.parametrize(
    ("version", "status"),
    [
        ("v3.5.14", "fail"),
        ("v3.6.0-rc1", "fail"),
        ("v3.6.0", "ok"),
        ("v4.0.5", "ok"),
        ("untagged", "warn"),
    ],
)
def test_the_argo_version_is_held_against_the_minimum(
    tmp_path: Path, version: str, status: str
) -> None:
    probes = healthy(tmp_path)
    probes.argo_replies["api/v1/version"] = Reply(200, {"version": version})
    line = only(examine(context(tmp_path, probes)), "Argo Server", "version")
    assert line.status == status
    if status == "fail":
        assert "synchronization.mutexes" in line.detail
        assert line.fix == "upgrade Argo Workflows to v3.6.0 or later"


def test_an_argo_server_in_server_auth_mode_is_a_warning_with_the_fix(tmp_path: Path) -> None:
    probes = healthy(tmp_path)
    probes.argo_replies["api/v1/userinfo"] = Reply(200, {})
    line = only(examine(context(tmp_path, probes)), "Argo Server", "token")
    assert line.status == "warn" and "--auth-mode=client" in line.fix


def test_an_unreachable_argo_server_says_why_and_stops_there(tmp_path: Path) -> None:
    probes = healthy(tmp_path)
    probes.argo_replies["api/v1/version"] = Reply(problem="no TLS", fix="set ARGO_SECURE=false")
    lines = examine(context(tmp_path, probes))
    argo = [line for line in lines if line.family == "Argo Server"]
    assert [(a.check, a.status, a.fix) for a in argo] == [
        ("reachable", "fail", "set ARGO_SECURE=false")
    ]
    assert exit_code(lines) == 1


def test_a_token_without_rights_in_the_namespace_fails_naming_the_role(tmp_path: Path) -> None:
    probes = healthy(tmp_path)
    probes.argo_replies["api/v1/workflows/argo?listOptions.limit=1"] = Reply(403)
    line = only(examine(context(tmp_path, probes)), "Argo Server", "namespace")
    assert line.status == "fail" and "may not list workflows in argo" in line.detail
    assert "Role in argo" in line.fix


def test_a_missing_application_fails_with_what_to_create(tmp_path: Path) -> None:
    probes = healthy(tmp_path)
    probes.argocd_replies["api/v1/applications/shop-staging"] = Reply(404)
    line = only(examine(context(tmp_path, probes)), "Applications", "shop-staging")
    assert line.status == "fail" and line.detail == "does not exist"
    assert "path envs/staging/shop" in line.fix and "targetRevision main" in line.fix


def test_an_application_of_another_repository_or_path_fails(tmp_path: Path) -> None:
    probes = healthy(tmp_path)
    other = {"repoURL": "https://git.example.com/other.git", "path": "envs/dev/shop"}
    probes.argocd_replies["api/v1/applications/shop-dev"] = Reply(200, {"spec": {"source": other}})
    moved = {"repoURL": "https://GIT.example.com/gitops", "path": "envs/dev/shop-old"}
    probes.argocd_replies["api/v1/applications/shop-prod"] = Reply(200, {"spec": {"source": moved}})
    lines = examine(context(tmp_path, probes))
    assert only(lines, "Applications", "shop-dev").fix == (
        "set spec.source.repoURL of shop-dev to https://git.example.com/gitops.git"
    )
    assert only(lines, "Applications", "shop-prod").fix == (
        "set spec.source.path of shop-prod to envs/prod/shop"
    )


def test_a_token_that_may_not_sync_fails_with_the_policy_line(tmp_path: Path) -> None:
    probes = healthy(tmp_path)
    path = "api/v1/account/can-i/applications/sync/default/shop-prod"
    probes.argocd_replies[path] = Reply(200, {"value": "no"})
    line = only(examine(context(tmp_path, probes)), "Applications", "shop-prod rights")
    assert line.status == "fail" and line.detail == "the token may not sync it"
    assert "p, role:promoflow, applications, sync, default/*, allow" in line.fix


def test_apps_are_not_asked_about_when_argo_cd_refuses_the_token(tmp_path: Path) -> None:
    probes = healthy(tmp_path)
    probes.argocd_replies["api/v1/session/userinfo"] = Reply(200, {})
    lines = examine(context(tmp_path, probes))
    assert only(lines, "Argo CD", "token").status == "fail"
    assert only(lines, "Applications", "all").status == "warn"
    assert not [a for a in probes.asked if "applications/" in a]


@pytest.mark.parametrize("status", [401, 403])
def test_credentials_that_may_read_but_not_push_fail(tmp_path: Path, status: int) -> None:
    probes = healthy(tmp_path)
    probes.git_replies["git-receive-pack"] = Reply(status)
    lines = examine(context(tmp_path, probes))
    url = "https://git.example.com/gitops.git"
    assert only(lines, "Git", f"{url} read").status == "ok"
    push = only(lines, "Git", f"{url} push")
    assert push.status == "fail" and "GIT_TOKEN" in push.fix


def test_a_login_page_is_not_a_push_advertisement(tmp_path: Path) -> None:
    probes = healthy(tmp_path)
    probes.git_replies["git-receive-pack"] = Reply(200, content_type="text/html")
    lines = examine(context(tmp_path, probes))
    assert only(lines, "Git", "https://git.example.com/gitops.git push").status == "fail"
    probes.git_replies["git-receive-pack"] = Reply(
        200, content_type=ADVERT.format("git-receive-pack")
    )
    lines = examine(context(tmp_path, probes))
    assert only(lines, "Git", "https://git.example.com/gitops.git push").status == "ok"


def test_a_missing_step_secret_fails_and_a_missing_report_secret_warns(tmp_path: Path) -> None:
    probes = healthy(tmp_path)
    del probes.secrets["argo/promoflow-argocd"], probes.secrets["argo/promoflow-report"]
    probes.secrets["argo/promoflow-git"] = ["password"]
    lines = examine(context(tmp_path, probes))
    argocd = only(lines, "Workflows namespace", "Secret promoflow-argocd")
    assert argocd.status == "fail"
    assert argocd.fix.startswith("kubectl -n argo create secret generic promoflow-argocd")
    git = only(lines, "Workflows namespace", "Secret promoflow-git")
    assert git.status == "fail" and "no key 'token' (keys: password)" in git.detail
    assert only(lines, "Workflows namespace", "Secret promoflow-report").status == "warn"


def test_no_kubernetes_credentials_is_a_warning_not_a_failure(tmp_path: Path) -> None:
    lines = examine(context(tmp_path, healthy(tmp_path), kube="no Kubernetes credentials"))
    assert only(lines, "Workflows namespace", "argo").status == "warn"
    assert exit_code(lines) == 0


def test_webhook_providers_need_their_secret(tmp_path: Path) -> None:
    ctx = context(tmp_path, healthy(tmp_path), providers=("github", "gitlab", "gthub"))
    lines = examine(ctx)
    assert only(lines, "Webhooks", "github").status == "ok"
    gitlab = only(lines, "Webhooks", "gitlab")
    assert gitlab.status == "fail" and "PROMOFLOW_WEBHOOK_GITLAB_SECRET" in gitlab.fix
    assert "did you mean 'github'" in only(lines, "Webhooks", "gthub").detail


def test_an_empty_webhook_secret_file_fails(tmp_path: Path) -> None:
    empty = tmp_path / "github"
    empty.write_text("")
    env = {"PROMOFLOW_WEBHOOK_GITHUB_SECRET_FILE": str(empty)}
    line = only(examine(context(tmp_path, healthy(tmp_path), env=env)), "Webhooks", "github")
    assert line.status == "fail" and "is empty" in line.detail


def test_the_reporters_store_is_checked_when_given(tmp_path: Path) -> None:
    probes = healthy(tmp_path)
    probes.unwritable = "cannot write in /var/lib/promoflow (Read-only file system)"
    ctx = context(tmp_path, probes, reporter_state="/var/lib/promoflow/state.db")
    line = only(examine(ctx), "Reporters", "store")
    assert line.status == "fail" and "reporters.persistence" in line.fix


def test_an_invalid_configuration_fails_with_the_validate_command(tmp_path: Path) -> None:
    ctx = context(
        tmp_path,
        healthy(tmp_path),
        config=None,
        config_problems=("a.yaml:3:5: error: x", "a.yaml:9:1: error: y"),
    )
    lines = examine(ctx)
    line = only(lines, "Configuration", "valid")
    assert line.detail == "a.yaml:3:5: error: x (and 1 more)"
    assert line.fix == f"run: promoflow validate -c {tmp_path}"
    assert not [line for line in lines if line.family in ("Applications", "Git")]


def test_a_403_for_an_app_is_absent_when_the_token_may_get_it_anywhere(tmp_path: Path) -> None:
    probes = healthy(tmp_path)
    probes.argocd_replies["api/v1/applications/shop-dev"] = Reply(403)
    line = only(examine(context(tmp_path, probes)), "Applications", "shop-dev")
    assert line.detail.startswith("absent, or the token may not get it")
    probes.argocd_replies["api/v1/account/can-i/applications/get/*/shop-dev"] = Reply(
        200, {"value": "yes"}
    )
    line = only(examine(context(tmp_path, probes)), "Applications", "shop-dev")
    assert line.detail == "does not exist" and "create Application shop-dev" in line.fix


def test_an_empty_report_secret_name_is_not_checked_but_an_empty_git_one_fails(
    tmp_path: Path,
) -> None:
    from orchestrator.settings import StepSettings

    steps = StepSettings(report_secret="", git_secret="")
    lines = examine(context(tmp_path, healthy(tmp_path), steps=steps))
    checks = {line.check for line in lines if line.family == "Workflows namespace"}
    assert not {c for c in checks if "report" in c}
    assert only(lines, "Workflows namespace", "PROMOFLOW_GIT_SECRET").status == "fail"


POLICY = """\
apiVersion: promoflow.dev/v1alpha1
kind: PromotionPolicy
metadata: {name: production}
spec:
  selector: {environments: {production: true}}
  policy:
    preAction: {workflowTemplate: smoke-tests}
"""


def test_every_template_a_product_runs_is_there(tmp_path: Path) -> None:
    line = only(examine(context(tmp_path, healthy(tmp_path))), "Workflow templates", "shop")
    assert line.status == "ok" and "promoflow-shop and every template it runs" in line.detail


def test_a_team_template_a_policy_names_is_missing_with_what_to_create(tmp_path: Path) -> None:
    probes = healthy(tmp_path)
    found = context(tmp_path, probes)
    config_dir(tmp_path).joinpath("policy.yaml").write_text(POLICY)
    loaded, _ = load_config(tmp_path)
    lines = examine(replace(found, config=loaded))
    line = only(lines, "Workflow templates", "shop")
    assert line.status == "fail" and line.detail == "missing in argo: smoke-tests"
    assert "create your own (smoke-tests) in argo: the policy's gates run them" in line.fix
    assert "promoflow apply" not in line.fix and exit_code(lines) == 1


def test_promoflows_own_templates_missing_say_apply_and_the_list_is_paged(
    tmp_path: Path,
) -> None:
    probes = healthy(tmp_path)
    probes.argo_replies[TEMPLATES] = template_list(["promoflow-notify"], after="p2")
    probes.argo_replies[f"{TEMPLATES}&listOptions.continue=p2"] = template_list(
        ["promoflow-promote"]
    )
    line = only(examine(context(tmp_path, probes)), "Workflow templates", "shop")
    assert line.detail == (
        "missing in argo: promoflow-shop, promoflow-record, promoflow-wait-argocd"
    )
    assert line.fix.startswith("install promoflow's with `promoflow apply`")


def test_templates_are_not_asked_for_when_the_namespace_cannot_be_listed(tmp_path: Path) -> None:
    probes = healthy(tmp_path)
    probes.argo_replies["api/v1/workflow-templates/argo?listOptions.limit=1"] = Reply(403)
    lines = examine(context(tmp_path, probes))
    assert only(lines, "Workflow templates", "all").status == "warn"
    assert f"argo {TEMPLATES}" not in probes.asked
