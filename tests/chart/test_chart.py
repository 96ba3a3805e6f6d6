"""The Helm chart, with the real ``helm``: lint, a matrix of values rendered and every
object checked against the Kubernetes and Argo schemas, the exact rights each account
gets, the security contexts, Secrets only by name, the values schema's refusals, the
step WorkflowTemplates as generated, and a README that lists every value."""

from __future__ import annotations

import json
import shlex
import tarfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from orchestrator.loading import load_config
from tests.chart.readme import CHART, readme, undocumented
from tests.chart.rendering import BASE, CASES, IMAGE, NAMESPACE, RELEASE, helm, objects, render
from tests.chart.schema_enums import ENUMS, SCHEMA, generated
from tests.chart.schema_enums import render as render_schema
from tests.chart.schemas import validate
from workflow_templates import HERE as STEP_TEMPLATES


def test_lint_passes_and_a_missing_configuration_is_named() -> None:
    linted = helm("lint", "--strict", str(CHART), "--set", BASE[0], check=False)
    assert linted.returncode == 0, linted.stdout + linted.stderr
    bare = helm("template", RELEASE, str(CHART), check=False)
    assert bare.returncode != 0
    assert "config.configMap or config.files" in bare.stderr


def test_an_install_without_an_image_is_refused_naming_what_to_build() -> None:
    """No image of promoflow is published: a default would only wait in ImagePullBackOff."""
    bare = helm(
        "template", RELEASE, str(CHART), "--set", BASE[0], "--set", "image.repository=", check=False
    )
    assert bare.returncode != 0
    assert "image.repository: set it to your build of the repository's Dockerfile" in bare.stderr


@pytest.mark.parametrize("case", sorted(CASES))
def test_every_rendered_object_is_valid(case: str) -> None:
    problems = [p for obj in render(case) for p in validate(obj)]
    assert problems == []
    names = [
        (o["kind"], o["metadata"].get("namespace"), o["metadata"]["name"]) for o in render(case)
    ]
    assert len(names) == len(set(names))  # nothing rendered twice


def _pods(case: str) -> Iterator[tuple[str, dict[str, Any]]]:
    for obj in render(case):
        if obj["kind"] in ("Deployment", "StatefulSet", "Job"):
            yield f"{obj['kind']}/{obj['metadata']['name']}", obj["spec"]["template"]["spec"]
        elif obj["kind"] == "Pod":  # the test hook's
            yield f"Pod/{obj['metadata']['name']}", obj["spec"]


@pytest.mark.parametrize("case", sorted(CASES))
def test_every_pod_is_locked_down(case: str) -> None:
    for where, pod in _pods(case):
        assert pod["securityContext"]["runAsNonRoot"] is True, where
        assert pod["securityContext"]["seccompProfile"] == {"type": "RuntimeDefault"}, where
        for container in pod["containers"]:
            context = container["securityContext"]
            assert context["readOnlyRootFilesystem"] is True, where
            assert context["allowPrivilegeEscalation"] is False, where
            assert context["capabilities"] == {"drop": ["ALL"]}, where
            assert container["resources"]["requests"], where
            if not where.startswith(("Job/", "Pod/")):  # run to completion
                assert container["readinessProbe"] and container["livenessProbe"], where
            mounted = {m["mountPath"] for m in container.get("volumeMounts", [])}
            assert "/tmp" in mounted, where  # the root filesystem is read-only


@pytest.mark.parametrize("case", sorted(CASES))
def test_secrets_are_referenced_by_name_and_only_tokens_are_made(case: str) -> None:
    for secret in objects(case, "Secret"):
        assert secret["type"] == "kubernetes.io/service-account-token"
        assert "data" not in secret and "stringData" not in secret
    referenced = {
        ref["name"]
        for _, pod in _pods(case)
        for container in pod["containers"]
        for variable in container.get("env", [])
        if (ref := (variable.get("valueFrom") or {}).get("secretKeyRef"))
    }
    if case == "existing-secrets":
        assert {"team-git", "team-report", "team-jira"} <= referenced


def grants(case: str) -> set[tuple[str, str, str, str, str]]:
    """(account, namespace or "*", apiGroup, resource, verb) for every right given."""
    rules: dict[tuple[str, str], list[dict[str, Any]]] = {
        ("ClusterRole", "*/system:auth-delegator"): AUTH_DELEGATOR
    }
    for role in objects(case, "Role") + objects(case, "ClusterRole"):
        scope = role["metadata"].get("namespace", "*")
        rules[(role["kind"], f"{scope}/{role['metadata']['name']}")] = role["rules"]
    out = set()
    for binding in objects(case, "RoleBinding") + objects(case, "ClusterRoleBinding"):
        scope = binding["metadata"].get("namespace", "*")
        ref = binding["roleRef"]
        key = (ref["kind"], f"{scope if ref['kind'] == 'Role' else '*'}/{ref['name']}")
        for subject in binding["subjects"]:
            account = f"{subject.get('namespace', subject['kind'])}/{subject['name']}"
            for rule in rules[key]:
                for group in rule["apiGroups"]:
                    for resource in rule["resources"]:
                        out |= {(account, scope, group, resource, v) for v in rule["verbs"]}
    return out


AUTH_DELEGATOR = [
    {"apiGroups": ["authentication.k8s.io"], "resources": ["tokenreviews"], "verbs": ["create"]},
    {"apiGroups": ["authorization.k8s.io"], "resources": ["subjectaccessreviews"],
     "verbs": ["create"]},
]  # fmt: skip
"""Kubernetes' own ClusterRole that lets a server check the tokens it is sent."""


def table(*rows: tuple[str, str, str, str, str]) -> set[tuple[str, str, str, str, str]]:
    out = set()
    for account, scope, group, resource, verbs in rows:
        out |= {(account, scope, group, resource, v) for v in verbs.split()}
    return out


WEBHOOKS = "promoflow/promoflow-webhooks"
REPORTERS = "promoflow/promoflow-reporters"
APPLY = "promoflow/promoflow-apply"
WORKFLOW = "promoflow/promoflow-workflow"
DOCTOR = "promoflow/promoflow-doctor"


def test_each_account_gets_exactly_what_it_needs() -> None:
    assert grants("defaults") == table(
        (WEBHOOKS, "promoflow", "argoproj.io", "workflows", "create get list watch update patch"),
        (WEBHOOKS, "promoflow", "argoproj.io", "workflowtemplates", "get list"),
        (REPORTERS, "argocd", "argoproj.io", "applications", "get list watch"),
        (REPORTERS, "promoflow", "argoproj.io", "workflows", "get list watch patch"),
        (APPLY, "promoflow", "argoproj.io", "workflowtemplates", "get list create update"),
        (WORKFLOW, "promoflow", "argoproj.io", "workflowtaskresults", "create patch"),
        *REVIEWS,
        (WORKFLOW, "promoflow", "promoflow.dev", "reporters/reports", "create"),
        # helm test: list through the Argo Server, get the named Secrets and account
        (DOCTOR, "promoflow", "argoproj.io", "workflows", "list"),
        (DOCTOR, "promoflow", "argoproj.io", "workflowtemplates", "list"),
        (DOCTOR, "promoflow", "", "secrets", "get"),
        (DOCTOR, "promoflow", "", "serviceaccounts", "get"),
    )


REVIEWS = [
    (account, "*", group, resource, "create")
    for account in (WEBHOOKS, REPORTERS)
    for group, resource in (
        ("authentication.k8s.io", "tokenreviews"),
        ("authorization.k8s.io", "subjectaccessreviews"),
    )
]
"""Both servers check the tokens of /stream, /reports, /shards and /metrics."""


def test_argocds_notifications_objects_are_read_by_name_through_the_api() -> None:
    """``fromArgoCD``: the reporters are pointed at Argo CD's ConfigMap and Secret, and may
    read those two and nothing else of Argo CD's namespace; nothing is mounted."""
    added = grants("argocd-notifications") - grants("defaults")
    assert added == table(
        (REPORTERS, "cd", "argoproj.io", "applications", "get list watch"),
        (REPORTERS, "cd", "argoproj.io", "appprojects", "get list watch"),
        (REPORTERS, "cd", "", "configmaps", "get list watch"),
        (REPORTERS, "cd", "", "secrets", "get list watch"),
    ) - grants("defaults")
    [role] = [
        r
        for r in objects("argocd-notifications", "Role")
        if "notifications" in r["metadata"]["name"]
    ]
    assert role["metadata"]["namespace"] == "cd"
    assert {r["resources"][0]: r["resourceNames"] for r in role["rules"]} == {
        "configmaps": ["argocd-notifications-cm"],
        "secrets": ["argocd-notifications-secret"],
    }
    [reporter] = objects("argocd-notifications", "StatefulSet")
    [container] = reporter["spec"]["template"]["spec"]["containers"]
    args = container["args"]
    assert "--notifications-from=cd/argocd-notifications-cm" in args
    assert "--secrets-from=cd/argocd-notifications-secret" in args
    assert not any(a.startswith(("--notifications=", "--secrets=")) for a in args)
    assert not any("notifications" in m["name"] for m in container.get("volumeMounts", []))
    assert not any("notifications" in o["metadata"]["name"] for o in objects("defaults", "Role"))


def test_with_notifications_the_reporters_read_the_appprojects_beside_the_apps() -> None:
    """An AppProject's annotations subscribe its apps (as Argo CD reads them): with
    notifications, mounted or read from Argo CD, the reporters may read the AppProjects
    where they read Applications; without, not."""
    projects = {g for g in grants("existing-secrets") if g[3] == "appprojects"}
    assert projects == table((REPORTERS, "argocd", "argoproj.io", "appprojects", "get list watch"))
    assert not [g for g in grants("defaults") if g[3] == "appprojects"]
    assert not [g for g in grants("all-namespaces") if g[3] == "appprojects"]
    sets = ("reporters.allNamespaces=true", "reporters.notifications.configMap=team-cm")
    rendered = helm(
        "template", RELEASE, str(CHART), "-n", NAMESPACE,
        *(a for value in (*BASE, *sets) for a in ("--set", value)),
    ).stdout  # fmt: skip
    roles = [d for d in yaml.safe_load_all(rendered) if d and d["kind"] == "ClusterRole"]
    [role] = [r for r in roles if r["rules"][0]["resources"] == ["appprojects"]]
    assert role["rules"] == [
        {"apiGroups": ["argoproj.io"], "resources": ["appprojects"],
         "verbs": ["get", "list", "watch"]}
    ]  # fmt: skip
    name = role["metadata"]["name"]
    [binding] = [
        d for d in yaml.safe_load_all(rendered)
        if d and d["kind"] == "ClusterRoleBinding" and d["roleRef"]["name"] == name
    ]  # fmt: skip
    assert binding["subjects"] == [
        {"kind": "ServiceAccount", "name": "promoflow-reporters", "namespace": NAMESPACE}
    ]


def test_a_mounted_and_an_argocd_notifications_configmap_together_are_refused() -> None:
    both = helm(
        "template", RELEASE, str(CHART), "--set", BASE[0],
        "--set", "reporters.notifications.configMap=team-notifications",
        "--set", "reporters.notifications.fromArgoCD.enabled=true", check=False,
    )  # fmt: skip
    assert both.returncode != 0
    assert "give configMap (mounted) or fromArgoCD (read through the API), not both" in both.stderr


def test_who_may_read_the_stream_and_the_metrics_is_what_the_values_name() -> None:
    granted = grants("access")
    assert {g for g in granted if g[2] == "promoflow.dev"} == table(
        ("tools/dashboard", "promoflow", "promoflow.dev", "reporters/stream", "get"),
        ("tools/dashboard", "promoflow", "promoflow.dev", "reporters/shards", "get"),
        ("Group/sre", "promoflow", "promoflow.dev", "reporters/stream", "get"),
        ("Group/sre", "promoflow", "promoflow.dev", "reporters/shards", "get"),
        ("monitoring/prometheus", "promoflow", "promoflow.dev", "reporters/metrics", "get"),
        ("monitoring/prometheus", "promoflow", "promoflow.dev", "webhooks/metrics", "get"),
        (WORKFLOW, "promoflow", "promoflow.dev", "reporters/reports", "create"),
    )
    [reporters] = objects("access", "StatefulSet")
    args = reporters["spec"]["template"]["spec"]["containers"][0]["args"]
    assert "--auth-name=promoflow-reporters" in args
    assert "--share=author-emails" in args
    [default] = objects("defaults", "StatefulSet")
    assert not [a for a in default["spec"]["template"]["spec"]["containers"][0]["args"]
                if a.startswith("--share")]  # fmt: skip


def test_a_network_policy_admits_only_what_each_component_needs_by_default() -> None:
    policies = {p["metadata"]["name"]: p["spec"] for p in objects("defaults", "NetworkPolicy")}
    assert set(policies) == {"promoflow-webhooks", "promoflow-reporters"}
    reporters = policies["promoflow-reporters"]
    assert reporters["policyTypes"] == ["Ingress"]
    [rule] = reporters["ingress"]
    sources = {f["namespaceSelector"]["matchLabels"]["kubernetes.io/metadata.name"]
               for f in rule["from"]}  # fmt: skip
    assert sources == {"promoflow", "monitoring"}  # workflows run in the release's namespace
    [extra] = [
        p for p in objects("access", "NetworkPolicy") if p["metadata"]["name"].endswith("reporters")
    ]
    named = {f["namespaceSelector"]["matchLabels"]["kubernetes.io/metadata.name"]
             for f in extra["spec"]["ingress"][0]["from"]}  # fmt: skip
    assert "tools" in named


def test_the_shared_token_is_optional_and_sent_by_scrapes_and_reports() -> None:
    for case in ("defaults", "access"):
        for _, pod in _pods(case):
            for container in pod["containers"]:
                for variable in container.get("env", []):
                    ref = (variable.get("valueFrom") or {}).get("secretKeyRef") or {}
                    if variable["name"] in ("PROMOFLOW_REPORT_TOKEN", "PROMOFLOW_METRICS_TOKEN"):
                        assert ref == {"name": "promoflow-report", "key": "token",
                                       "optional": True}  # fmt: skip
    for monitor in objects("access", "ServiceMonitor"):
        [endpoint] = monitor["spec"]["endpoints"]
        assert endpoint["authorization"] == {
            "type": "Bearer", "credentials": {"name": "promoflow-report", "key": "token"}
        }  # fmt: skip


def test_rights_follow_the_namespaces_values_name() -> None:
    listed = grants("listed-namespaces")
    workflow = "argo/promoflow-workflow"
    assert {g for g in listed if g[0] == REPORTERS and g not in REVIEWS} == table(
        (REPORTERS, "argocd", "argoproj.io", "applications", "get list watch"),
        (REPORTERS, "team-a", "argoproj.io", "applications", "get list watch"),
        (REPORTERS, "argo", "argoproj.io", "workflows", "get list watch patch"),
        (REPORTERS, "shop-dev", "apps", "replicasets", "get list watch"),
        (REPORTERS, "shop-prod", "apps", "replicasets", "get list watch"),
    )
    assert {g for g in listed if g[0] == workflow} == table(
        (workflow, "argo", "argoproj.io", "workflowtaskresults", "create patch"),
        (workflow, "promoflow", "promoflow.dev", "reporters/reports", "create"),
    )
    assert objects("listed-namespaces", "ClusterRole") == []
    everywhere = {g for g in grants("all-namespaces") if g[0] == REPORTERS and g not in REVIEWS}
    assert everywhere == table(
        (REPORTERS, "*", "argoproj.io", "applications", "get list watch"),
        (REPORTERS, "promoflow", "argoproj.io", "workflows", "get list watch patch"),
        (REPORTERS, "*", "argoproj.io", "rollouts", "get list watch"),
        (REPORTERS, "*", "apps", "replicasets", "get list watch"),
    )
    for case in CASES:
        if case != "all-namespaces":
            assert objects(case, "ClusterRole") == [], case


def test_run_messages_are_the_reporters_only_write_and_can_be_turned_off() -> None:
    """The reporters may patch Workflows (to write each run's message) and nothing else;
    the step pods' account never may. Off, the right and the flag go together."""
    for case in CASES:
        writes = {g for g in grants(case) if g[4] not in ("get", "list", "watch")}
        assert not {g for g in writes if g[0].endswith("/promoflow-workflow") and
                    g[3] == "workflows"}, case  # fmt: skip
    assert (REPORTERS, "promoflow", "argoproj.io", "workflows", "patch") in grants("defaults")
    off = {g for g in grants("no-run-messages") if g[0] == REPORTERS and g not in REVIEWS}
    assert all(g[4] in ("get", "list", "watch") for g in off)
    [reporters] = objects("no-run-messages", "StatefulSet")
    assert "--no-run-messages" in reporters["spec"]["template"]["spec"]["containers"][0]["args"]
    [default] = objects("defaults", "StatefulSet")
    assert "--no-run-messages" not in default["spec"]["template"]["spec"]["containers"][0]["args"]


def _config_python(case: str) -> dict[str, str]:
    """``PROMOFLOW_CONFIG_PYTHON`` of each process that loads the configuration."""
    found = {}
    for where, pod in _pods(case):
        for container in pod["containers"]:
            for env in container.get("env", []):
                if env["name"] == "PROMOFLOW_CONFIG_PYTHON":
                    found[where.split("/")[0]] = env["value"]
    return found


def test_python_configuration_is_off_unless_config_python_turns_it_on() -> None:
    """Python configuration files run as code in the webhook service and the apply job:
    off by default, and every process that loads it (the test's doctor too) is told the same."""
    assert _config_python("defaults") == {"Deployment": "false", "Job": "false", "Pod": "false"}
    assert _config_python("python-config") == {"Deployment": "true", "Job": "true", "Pod": "true"}


def test_a_python_file_with_python_configuration_off_is_refused_when_rendering() -> None:
    refused = helm(
        "template", RELEASE, str(CHART), "--set", "config.files.flows\\.py=import orchestrator",
        "--set", "config.files.envs\\.yaml=kind: Environment", check=False,
    )  # fmt: skip
    assert refused.returncode != 0
    assert (
        "config.files.flows.py: a Python configuration file, and config.python is false"
        in refused.stderr
    )


def test_approvers_are_bound_to_their_groups_through_argo_sso_rbac() -> None:
    [approver] = [
        a for a in objects("approvals", "ServiceAccount") if a["metadata"]["namespace"] == "argo"
    ]
    annotations = approver["metadata"]["annotations"]
    assert annotations["workflows.argoproj.io/rbac-rule"] == (
        "'platform' in groups || 'release-managers' in groups"
    )
    account = f"argo/{approver['metadata']['name']}"
    assert {g for g in grants("approvals") if g[0] == account} == table(
        (account, "promoflow", "argoproj.io", "workflows", "get list watch update"),
        (account, "promoflow", "argoproj.io", "workflowtemplates", "get list"),
    )
    [token] = [s for s in objects("approvals", "Secret") if s["metadata"]["namespace"] == "argo"]
    assert token["metadata"]["name"] == f"{approver['metadata']['name']}.service-account-token"


@pytest.mark.parametrize(("case", "replicas"), [("one-replica", 1), ("five-replicas", 5)])
def test_reporters_shard_by_ordinal_over_their_replicas(case: str, replicas: int) -> None:
    [reporters] = objects(case, "StatefulSet")
    assert reporters["spec"]["replicas"] == replicas
    args = reporters["spec"]["template"]["spec"]["containers"][0]["args"]
    assert f"--replicas={replicas}" in args and not any(a.startswith("--shard") for a in args)
    assert reporters["spec"]["volumeClaimTemplates"][0]["metadata"]["name"] == "state"
    [budget] = objects(case, "PodDisruptionBudget")
    assert budget["spec"]["maxUnavailable"] == 1


def test_numbers_reach_the_commands_as_integers() -> None:
    """Helm reads numbers as floats: 1048576 renders as 1.048576e+06 unless made an int,
    and the webhook service then refuses to start."""
    big = (*BASE, "webhooks.maxBody=4194304", "reporters.queue=1000000")
    sets = [arg for value in big for arg in ("--set", value)]
    out = helm("template", RELEASE, str(CHART), "-n", NAMESPACE, *sets).stdout
    text = "\n".join(yaml.safe_dump(d) for d in yaml.safe_load_all(out) if d)
    assert "e+0" not in text
    [webhooks] = [
        d for d in yaml.safe_load_all(out) if d and d["kind"] == "Deployment"
    ]  # fmt: skip
    env = {
        e["name"]: e.get("value")
        for e in webhooks["spec"]["template"]["spec"]["containers"][0]["env"]
    }
    assert env["PROMOFLOW_WEBHOOK_MAX_BODY"] == "4194304"
    defaults = {
        e["name"]: e.get("value")
        for e in objects("defaults", "Deployment")[0]["spec"]["template"]["spec"]["containers"][0][
            "env"
        ]
    }
    assert defaults["PROMOFLOW_WEBHOOK_MAX_BODY"] == "1048576"


def test_on_the_nodes_network_pods_take_their_ports_and_steps_report_there() -> None:
    for where, pod in _pods("host-network"):
        assert pod["hostNetwork"] is True and pod["dnsPolicy"] == "ClusterFirstWithHostNet", where
    ports = {
        o["metadata"]["name"]: o["spec"]["template"]["spec"]["containers"][0]["ports"][0]
        for o in render("host-network")
        if o["kind"] in ("Deployment", "StatefulSet")
    }
    assert ports["promoflow-webhooks"]["containerPort"] == 28080
    assert ports["promoflow-reporters"]["containerPort"] == 28081
    [reporters] = objects("host-network", "StatefulSet")
    env = {
        e["name"]: e.get("value")
        for e in reporters["spec"]["template"]["spec"]["containers"][0]["env"]
    }
    assert env["KUBERNETES_SERVICE_HOST"] == "127.0.0.1"
    [notify] = [
        t for t in objects("host-network", "WorkflowTemplate")
        if t["metadata"]["name"] == "promoflow-notify"
    ]  # fmt: skip
    env = {e["name"]: e.get("value") for e in notify["spec"]["templates"][0]["container"]["env"]}
    assert env["PROMOFLOW_REPORT_URL"] == "http://127.0.0.1:28081/reports"
    for template in objects("host-network", "WorkflowTemplate"):
        for step in template["spec"]["templates"]:
            found = {
                e["name"]: e.get("value") for e in (step.get("container") or {}).get("env", [])
            }
            if "ARGOCD_SERVER" in found:
                assert found["ARGOCD_SERVER"] == "127.0.0.1:26080"
                assert found["ARGOCD_OPTS"] == "--plaintext"
    for _, pod in _pods("defaults"):
        assert "hostNetwork" not in pod


def test_service_monitors_scrape_both_services() -> None:
    monitors = objects("monitoring", "ServiceMonitor")
    assert sorted(m["metadata"]["name"] for m in monitors) == [
        "promoflow-reporters", "promoflow-webhooks"
    ]  # fmt: skip
    services = {s["metadata"]["name"]: s for s in objects("monitoring", "Service")}
    for monitor in monitors:
        assert monitor["metadata"]["labels"]["release"] == "kube-prom"
        selector = monitor["spec"]["selector"]["matchLabels"]
        service = services[monitor["metadata"]["name"]]
        assert selector.items() <= service["metadata"]["labels"].items()
        bearer = {"type": "Bearer", "credentials": {"name": "promoflow-report", "key": "token"}}
        endpoint = {"port": "http", "path": "/metrics", "interval": "30s"}
        assert monitor["spec"]["endpoints"] == [{**endpoint, "authorization": bearer}]


def test_the_ingress_serves_the_webhooks_over_tls() -> None:
    [ingress] = objects("ingress", "Ingress")
    assert ingress["spec"]["ingressClassName"] == "nginx"
    assert ingress["spec"]["tls"] == [
        {"hosts": ["promoflow.example.com"], "secretName": "promoflow-tls"}
    ]
    [path] = ingress["spec"]["rules"][0]["http"]["paths"]
    assert (
        path["path"] == "/webhooks" and path["backend"]["service"]["name"] == "promoflow-webhooks"
    )
    assert objects("defaults", "Ingress") == []


def test_step_templates_are_the_generated_ones_with_the_releases_settings() -> None:
    rendered = {o["metadata"]["name"]: o for o in objects("existing-secrets", "WorkflowTemplate")}
    generated = {
        d["metadata"]["name"]: d
        for path in sorted(STEP_TEMPLATES.glob("*.yaml"))
        for d in [yaml.safe_load(path.read_text())]
    }
    assert sorted(rendered) == sorted(generated)
    for name, template in rendered.items():
        expected = generated[name]
        assert template["metadata"]["namespace"] == NAMESPACE
        pairs = zip(template["spec"]["templates"], expected["spec"]["templates"], strict=True)
        for ours, theirs in pairs:
            if "container" not in theirs:
                assert ours == theirs, name
                continue
            assert ours["container"]["image"] == f"{IMAGE}:0.1.0"  # the release's image
            rest = {k: v for k, v in ours["container"].items() if k not in ("image", "env")}
            assert rest == {
                k: v for k, v in theirs["container"].items() if k not in ("image", "env")
            }
    wait = rendered["promoflow-wait-argocd"]["spec"]["templates"][0]["container"]["env"]
    by_name = {e["name"]: e for e in wait}
    assert by_name["ARGOCD_SERVER"]["value"] == "argocd-server.argocd.svc:443"
    refs = {e["valueFrom"]["secretKeyRef"]["name"] for e in wait if "valueFrom" in e}
    assert refs == {"team-git", "team-argocd"}  # the release's Secrets, not the defaults
    generated_wait = generated["promoflow-wait-argocd"]["spec"]["templates"][0]["container"]
    assert [e["name"] for e in wait] == [e["name"] for e in generated_wait["env"]]
    notify_env = {
        e["name"]: e
        for e in rendered["promoflow-notify"]["spec"]["templates"][0]["container"]["env"]
    }
    assert notify_env["PROMOFLOW_REPORT_URL"]["value"] == (
        "http://promoflow-reporters.promoflow.svc:8081/reports"
    )
    assert notify_env["PROMOFLOW_REPORT_TOKEN"]["valueFrom"] == {
        "secretKeyRef": {"name": "team-report", "key": "token", "optional": True}
    }


@pytest.mark.parametrize(
    ("value", "said"),
    [
        ("reporters.replicas=0", "/reporters/replicas"),
        ("webhooks.replicas=two", "/webhooks/replicas"),
        ("webhooks.replica=3", "additional properties 'replica'"),
        ("reporters.watch={deployments}", "/reporters/watch/0"),
        ("webhooks.providers={githb}", "/webhooks/providers/0"),
        ("reporters.sinks={ftp://x}", "/reporters/sinks/0"),
        ("argo.server=https://user:pw@argo", "/argo/server"),
        ("image.pullPolicy=Sometimes", "/image/pullPolicy"),
        ("workflows.approvals.groups={it's}", "/workflows/approvals/groups/0"),
    ],
)
def test_the_values_schema_refuses_wrong_types_and_ranges(value: str, said: str) -> None:
    result = helm("template", RELEASE, str(CHART), "--set", BASE[0], "--set", value, check=False)
    assert result.returncode != 0
    assert said in result.stderr


def test_the_readme_lists_every_value_as_values_yaml_says() -> None:
    assert undocumented() == []
    current = (CHART / "README.md").read_text()
    assert current == readme(), "charts/promoflow/README.md is stale: python -m tests.chart.readme"


def test_every_step_container_gets_the_environment_the_compiler_defines() -> None:
    """The chart renders each step's environment as generated, only the values and Secret
    names in place: the same variables, in the same order, for every step."""
    rendered = {d["metadata"]["name"]: d for d in render("defaults")}
    for path in sorted(Path(STEP_TEMPLATES).glob("*.yaml")):
        generated_template = yaml.safe_load(path.read_text())
        name = generated_template["metadata"]["name"]
        for ours, theirs in zip(
            generated_template["spec"]["templates"],
            rendered[name]["spec"]["templates"],
            strict=True,
        ):
            if "container" not in ours:
                continue
            names = [e["name"] for e in ours["container"].get("env", [])]
            assert [e["name"] for e in theirs["container"].get("env", [])] == names, name


def test_the_schema_lists_what_the_registries_define() -> None:
    """Generated from the registries (``python -m tests.chart.schema_enums``)."""
    committed = SCHEMA.read_text()
    assert committed == render_schema(generated(json.loads(committed))), (
        "values.schema.json is stale: python -m tests.chart.schema_enums"
    )


def test_helm_accepts_every_provider_share_and_watch_promoflow_has() -> None:
    sets = [f"{'.'.join(path)}={{{','.join(names)}}}" for path, names in ENUMS.items()]
    args = [a for value in sets for a in ("--set", value)]
    result = helm("template", RELEASE, str(CHART), "--set", BASE[0], *args, check=False)
    assert result.returncode == 0, result.stderr


def test_the_packaged_chart_carries_the_step_templates_themselves(tmp_path: Path) -> None:
    """One copy is committed (``workflow_templates/``, which the chart links to): the
    package ``helm package`` makes holds the files themselves, and nothing else of that
    directory (its Python is ignored)."""
    helm("package", str(CHART), "-d", str(tmp_path))
    [package] = tmp_path.glob("*.tgz")
    prefix = "promoflow/files/workflow-templates/"
    with tarfile.open(package) as archive:
        shipped = {
            member.name.removeprefix(prefix): archive.extractfile(member).read().decode()  # type: ignore[union-attr]
            for member in archive.getmembers()
            if member.name.startswith(prefix) and member.isfile()
        }
    root = Path(STEP_TEMPLATES)
    expected = {str(p.relative_to(root)): p.read_text() for p in root.rglob("*.yaml")}
    assert shipped == expected and len(expected) >= 15
    # the pod steps, the plugin steps and the plugin's ConfigMap
    assert "plugin/promote.yaml" in shipped and "plugin/executor-plugin/configmap.yaml" in shipped


def test_the_kind_workflow_installs_the_chart_with_values_it_accepts() -> None:
    """The hosted-CI workflow cannot run here; what it gives the chart is checked here."""
    workflow = CHART.parents[1] / ".github" / "workflows" / "e2e-kind.yaml"
    steps = yaml.safe_load(workflow.read_text())["jobs"]["e2e"]["steps"]
    [install] = [s["run"] for s in steps if 'helm" install' in s.get("run", "")]
    image = yaml.safe_load(workflow.read_text())["env"]["IMAGE"]
    repository, _, tag = image.rpartition(":")
    command = install.replace("\\\n", " ")
    command = command.replace("${IMAGE%:*}", repository).replace("${IMAGE##*:}", tag)
    [line] = [line for line in command.splitlines() if "install promoflow" in line]
    words = shlex.split(line)
    sets = [words[i + 1] for i, word in enumerate(words) if word == "--set"]
    assert "config.configMap=promoflow-config" in sets
    args = [arg for value in sets for arg in ("--set", value)]
    rendered = helm("template", RELEASE, str(CHART), "-n", NAMESPACE, *args).stdout
    images = {
        c["image"]
        for d in yaml.safe_load_all(rendered)
        if d and d["kind"] in ("Deployment", "StatefulSet")
        for c in d["spec"]["template"]["spec"]["containers"]
    }
    assert images == {image}


def test_the_reporters_reach_argo_cds_api_for_the_repo_functions() -> None:
    """``repo.GetCommitMetadata`` and ``repo.GetAppDetails`` ask the Argo CD API server the
    gate steps ask, with the same token Secret (a configuration calling them without an
    address is refused at start)."""
    [reporters] = objects("defaults", "StatefulSet")
    env = {e["name"]: e for e in reporters["spec"]["template"]["spec"]["containers"][0]["env"]}
    assert env["ARGOCD_SERVER"]["value"] == "argocd-server.argocd.svc:443"
    ref = env["ARGOCD_AUTH_TOKEN"]["valueFrom"]["secretKeyRef"]
    assert (ref["name"], ref["key"], ref["optional"]) == ("promoflow-argocd", "token", True)


# --- config.git: the webhook service follows the configuration in Git, applies the
# templates itself (no apply job, no ConfigMap) with the rights that takes; config.files'
# ConfigMap carries the manifest the loader checks
def _webhooks(case: str) -> dict[str, Any]:
    (deployment,) = [d for d in objects(case, "Deployment") if "webhooks" in d["metadata"]["name"]]
    spec: dict[str, Any] = deployment["spec"]["template"]["spec"]
    return spec


def test_the_service_follows_git_and_applies_the_templates_itself() -> None:
    assert objects("config-git", "Job") == []
    spec = _webhooks("config-git")
    (container,) = spec["containers"]
    assert not [a for a in container["args"] if a.startswith("--config")]
    env = {e["name"]: e.get("value", e.get("valueFrom")) for e in container["env"]}
    assert env["PROMOFLOW_CONFIG_GIT_URL"] == "https://git.example.com/acme/gitops.git"
    assert env["PROMOFLOW_CONFIG_GIT_BRANCH"] == "main"
    assert env["PROMOFLOW_CONFIG_GIT_PATH"] == "promoflow"
    assert env["PROMOFLOW_CONFIG_GIT_INTERVAL"] == "15"
    assert env["PROMOFLOW_CONFIG_GIT_TOKEN"] == {
        "secretKeyRef": {"name": "gitops-reader", "key": "token"}
    }
    assert env["POD_NAME"] == {"fieldRef": {"fieldPath": "metadata.name"}}
    volumes = {v["name"]: v for v in spec["volumes"]}
    assert "config" not in volumes
    assert volumes["kube-ca"]["configMap"]["name"] == "kube-root-ca.crt"
    mounted = {m["mountPath"] for m in container["volumeMounts"]}
    assert Path(env["PROMOFLOW_KUBE_CA_FILE"]).parent.as_posix() in mounted
    assert Path(env["PROMOFLOW_KUBE_TOKEN_FILE"]).parent.as_posix() in mounted
    # each result told to the reporters, with their token, as the notify step tells them
    assert env["PROMOFLOW_REPORT_URL"].endswith("/reports")
    assert env["PROMOFLOW_REPORT_TOKEN"] == {
        "secretKeyRef": {"name": "promoflow-report", "key": "token", "optional": True}
    }


def test_with_git_the_service_may_apply_templates_and_record_events_and_no_more() -> None:
    assert grants("config-git") == table(
        (WEBHOOKS, "promoflow", "argoproj.io", "workflows", "create get list watch update patch"),
        (WEBHOOKS, "promoflow", "argoproj.io", "workflowtemplates", "get list create update"),
        (WEBHOOKS, "promoflow", "", "events", "create"),
        (REPORTERS, "argocd", "argoproj.io", "applications", "get list watch"),
        (REPORTERS, "promoflow", "argoproj.io", "workflows", "get list watch patch"),
        (WORKFLOW, "promoflow", "argoproj.io", "workflowtaskresults", "create patch"),
        *REVIEWS,
        (WORKFLOW, "promoflow", "promoflow.dev", "reporters/reports", "create"),
        (DOCTOR, "promoflow", "argoproj.io", "workflows", "list"),
        (DOCTOR, "promoflow", "argoproj.io", "workflowtemplates", "list"),
        (DOCTOR, "promoflow", "", "secrets", "get"),
        (DOCTOR, "promoflow", "", "serviceaccounts", "get"),
    )
    assert not any(account == APPLY for account, *_ in grants("config-git"))


def test_the_configmap_of_config_files_carries_the_manifest_the_loader_checks(
    tmp_path: Path,
) -> None:
    (configmap,) = [c for c in render("config-files") if c["kind"] == "ConfigMap"]
    data = configmap["data"]
    assert set(data) == {"promoflow.yaml", "promoflow-manifest.json"}
    for key, text in data.items():
        (tmp_path / key).write_text(text)
    _, problems = load_config(tmp_path)
    assert not [p for p in problems if "manifest" in p.message], problems
    (tmp_path / "promoflow.yaml").write_text("kind: Product\n# changed\n")
    _, problems = load_config(tmp_path)
    assert any("changed since it was packed" in p.message for p in problems)
