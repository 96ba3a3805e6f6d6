"""``promoflow doctor`` against the real Argo Server, Argo CD, Kubernetes API and Git
server: healthy first, then each prerequisite broken in turn, each named with its fix.

Everything the test makes has its own name (``pfdoc-<id>``): an AppProject whose role gives
a token get but not sync (no shared ConfigMap is edited), its Applications, and in the
Argo namespace a ServiceAccount and the step Secrets, all removed afterwards.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
from kubernetes import client
from kubernetes.client.exceptions import ApiException

from tests.e2e.flows import argo_http, delete_templates
from tests.e2e.gitops import GitopsRepo
from tests.e2e.k8s import APPS, GROUP, VERSION, Apps, api_client, short_id, wait_until
from tests.e2e.settings import E2ESettings
from tests.e2e.steps import argo_env

pytestmark = pytest.mark.e2e

ROOT = Path(__file__).resolve().parents[2]
ENVIRONMENTS = ("dev", "staging")
HOOK_SECRET = "doctor-hook-s3cret"


@dataclass
class Setup:
    name: str
    config: Path
    repo: str
    env: dict[str, str]
    restricted_token: str


def _config(folder: Path, product: str, repo: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    envs = "".join(
        f"---\napiVersion: promoflow.dev/v1alpha1\nkind: Environment\nmetadata: {{name: {e}}}\n"
        for e in ENVIRONMENTS
    )
    (folder / "promoflow.yaml").write_text(f"""{envs}---
apiVersion: promoflow.dev/v1alpha1
kind: PromotionFlow
metadata: {{name: {product}}}
spec:
  trigger: dev
  steps:
    - {{environment: staging, dependsOn: [dev]}}
---
apiVersion: promoflow.dev/v1alpha1
kind: PromotionTemplate
metadata: {{name: {product}}}
spec:
  files:
    - {{file: values.yaml, paths: [image.tag]}}
---
apiVersion: promoflow.dev/v1alpha1
kind: Product
metadata: {{name: {product}}}
spec:
  repo: {{url: "{repo}"}}
  flow: {product}
  template: {product}
""")
    return folder


def _argocd_url(e2e: E2ESettings) -> str:
    scheme = "http" if "--plaintext" in e2e.argocd_opts else "https"
    return e2e.argocd_server if "://" in e2e.argocd_server else f"{scheme}://{e2e.argocd_server}"


def _project_token(e2e: E2ESettings, project: str) -> str:
    """A token of the project's ``reader`` role (get, no sync), issued by the suite's
    account once the API server has seen the new AppProject."""

    def issue() -> str | None:
        response = httpx.post(
            f"{_argocd_url(e2e)}/api/v1/projects/{project}/roles/reader/token",
            json={"project": project, "role": "reader", "expiresIn": 3600},
            headers={"Authorization": f"Bearer {e2e.argocd_token}"},
            verify="--insecure" not in e2e.argocd_opts,
            timeout=30,
        )
        return str(response.json()["token"]) if response.status_code == 200 else None

    return wait_until(f"a token of {project}'s reader role", issue, 60)


@pytest.fixture
def setup(e2e: E2ESettings, apps: Apps, tmp_path: Path) -> Iterator[Setup]:
    name = f"pfdoc-{short_id()}"
    base = api_client(e2e)
    core, custom = client.CoreV1Api(base), client.CustomObjectsApi(base)
    ns, argocd_ns = e2e.argo_namespace, e2e.argocd_namespace
    repo = GitopsRepo(e2e, tmp_path / "work", name)
    made: list[Callable[[], Any]] = []
    try:
        repo.commit({f"envs/{e}/{name}/values.yaml": "image: {tag: '1'}\n" for e in ENVIRONMENTS})
        custom.create_namespaced_custom_object(
            GROUP,
            VERSION,
            argocd_ns,
            "appprojects",
            {
                "apiVersion": f"{GROUP}/{VERSION}",
                "kind": "AppProject",
                "metadata": {"name": name},
                "spec": {
                    "sourceRepos": ["*"],
                    "destinations": [{"server": "*", "namespace": "*"}],
                    "roles": [
                        {
                            "name": "reader",
                            "policies": [
                                f"p, proj:{name}:reader, applications, get, {name}/*, allow"
                            ],
                        }
                    ],
                },
            },
        )
        made.append(
            lambda: custom.delete_namespaced_custom_object(
                GROUP, VERSION, argocd_ns, "appprojects", name
            )
        )
        for environment in ENVIRONMENTS:
            apps.create(
                f"{name}-{environment}",
                repo.url,
                f"envs/{environment}/{name}",
                "main",
                f"{name}-{environment}",
                automated=False,
                project=name,
            )
        core.create_namespaced_service_account(
            ns, client.V1ServiceAccount(metadata=client.V1ObjectMeta(name=name))
        )
        made.append(lambda: core.delete_namespaced_service_account(name, ns))
        for kind in ("git", "argocd", "report"):
            secret = f"{name}-{kind}"
            body = client.V1Secret(
                metadata=client.V1ObjectMeta(name=secret), string_data={"token": f"unused-{kind}"}
            )
            core.create_namespaced_secret(ns, body)
            made.append(lambda s=secret: core.delete_namespaced_secret(s, ns))  # type: ignore[misc]
        env = argo_env(
            e2e,
            KUBECONFIG=str(e2e.kubeconfig),
            ARGOCD_SERVER=e2e.argocd_server,
            ARGOCD_AUTH_TOKEN=e2e.argocd_token,
            ARGOCD_OPTS=e2e.argocd_opts,
            PROMOFLOW_SERVICE_ACCOUNT=name,
            PROMOFLOW_GIT_SECRET=f"{name}-git",
            PROMOFLOW_ARGOCD_SECRET=f"{name}-argocd",
            PROMOFLOW_REPORT_SECRET=f"{name}-report",
            PROMOFLOW_WEBHOOK_PROVIDERS="github",
            PROMOFLOW_WEBHOOK_GITHUB_SECRET=HOOK_SECRET,
            PROMOFLOW_TEMPLATE_PREFIX=name,  # the product's and step templates, its own
        )
        config = _config(tmp_path / "config", name, repo.url)
        applied = subprocess.run(
            [sys.executable, "-m", "orchestrator.cli", "apply", "-c", str(config)],
            env=env, cwd=ROOT, capture_output=True, text=True, timeout=120, check=False,
        )  # fmt: skip
        made.append(lambda: delete_templates(e2e, name))
        assert applied.returncode == 0, applied.stdout + applied.stderr
        yield Setup(
            name,
            config,
            repo.url,
            env,
            _project_token(e2e, name),
        )
    finally:
        apps.delete_all()  # before their project: Argo CD's finalizer needs it
        for undo in reversed(made):
            try:
                undo()
            except ApiException as exc:
                if exc.status != 404:
                    raise
        repo.remove()


@dataclass
class Report:
    code: int
    checks: dict[tuple[str, str], dict[str, str]]
    seconds: float
    output: str

    def failed(self) -> dict[tuple[str, str], dict[str, str]]:
        return {k: v for k, v in self.checks.items() if v["status"] == "fail"}


def doctor(setup: Setup, case: str, **env: str) -> Report:
    """The worktree's ``promoflow doctor -o json``, as a subprocess with only these settings."""
    started = time.monotonic()
    done = subprocess.run(
        [sys.executable, "-m", "orchestrator.cli", "doctor", "-c", str(setup.config), "-o", "json"],
        env={**setup.env, **env},
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    seconds = time.monotonic() - started
    print(f"promoflow doctor, {case}: exit {done.returncode} in {seconds:.1f}s")
    assert "Traceback" not in done.stderr, done.stderr
    report = json.loads(done.stdout)
    checks = {(c["family"], c["check"]): c for c in report["checks"]}
    return Report(done.returncode, checks, seconds, done.stdout + done.stderr)


def test_doctor_names_each_broken_prerequisite_with_its_fix(
    e2e: E2ESettings, apps: Apps, setup: Setup
) -> None:
    name = setup.name
    healthy = doctor(setup, "healthy")
    assert healthy.code == 0, healthy.output
    assert healthy.failed() == {}
    version = healthy.checks[("Argo Server", "version")]
    assert version["status"] == "ok" and "needs v3.6.0 or later" in version["detail"]
    assert healthy.checks[("Applications", f"{name}-staging rights")]["status"] == "ok"
    assert healthy.checks[("Git", f"{setup.repo} push")]["status"] == "ok"
    for secret in (e2e.argocd_token, e2e.argo_token.split()[-1], HOOK_SECRET):
        assert secret not in healthy.output

    assert healthy.checks[("Workflow templates", name)]["status"] == "ok"

    # a template the product runs deleted from the namespace
    with argo_http(e2e) as http:
        gone = http.delete(f"/workflow-templates/{e2e.argo_namespace}/{name}-wait-argocd")
        assert gone.status_code == 200, gone.text
    deleted = doctor(setup, "a step template missing")
    line = deleted.failed()[("Workflow templates", name)]
    assert line["detail"] == f"missing in {e2e.argo_namespace}: {name}-wait-argocd"
    assert line["fix"].startswith("install promoflow's with `promoflow apply`")
    again = subprocess.run(
        [sys.executable, "-m", "orchestrator.cli", "apply", "-c", str(setup.config)],
        env=setup.env, cwd=ROOT, capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert again.returncode == 0, again.stdout + again.stderr

    # a step Secret missing
    missing = doctor(setup, "a step Secret missing", PROMOFLOW_ARGOCD_SECRET=f"{name}-absent")
    assert missing.code == 1
    assert set(missing.failed()) == {("Workflows namespace", f"Secret {name}-absent")}
    fix = missing.failed()[("Workflows namespace", f"Secret {name}-absent")]["fix"]
    assert fix.startswith(f"kubectl -n {e2e.argo_namespace} create secret generic {name}-absent")

    # an Application absent
    custom = client.CustomObjectsApi(api_client(e2e))
    custom.delete_namespaced_custom_object(
        GROUP, VERSION, e2e.argocd_namespace, APPS, f"{name}-staging"
    )
    wait_until(f"{name}-staging deleted", lambda: apps.get(f"{name}-staging") is None, 60)
    absent = doctor(setup, "an Application absent")
    assert set(absent.failed()) == {("Applications", f"{name}-staging")}
    line = absent.failed()[("Applications", f"{name}-staging")]
    assert line["detail"] == "does not exist"
    assert f"path envs/staging/{name}" in line["fix"]

    # an Argo CD token that may get the apps but not sync them
    restricted = doctor(setup, "no sync right", ARGOCD_AUTH_TOKEN=setup.restricted_token)
    rights = restricted.failed()[("Applications", f"{name}-dev rights")]
    assert rights["detail"] == "the token may not sync it"
    assert f"p, role:promoflow, applications, sync, {name}/*, allow" in rights["fix"]
    assert restricted.checks[("Applications", f"{name}-dev")]["status"] == "ok"

    # an Argo token the server refuses: its /version and /userinfo answer anyone (userinfo
    # with {}), so the refusal shows only where the token is needed, named as the token's
    refused = doctor(setup, "a refused Argo token", ARGO_TOKEN="Bearer pfe2e-refused-argo")
    line = refused.failed()[("Argo Server", "token")]
    assert line["detail"] == "the Argo Server refused the token (401)", line
    assert ("Argo Server", "namespace") not in refused.checks, refused.output
    assert "pfe2e-refused-argo" not in refused.output

    # the Argo Server's TLS setting wrong: TLS spoken to its plain-HTTP port
    assert e2e.argo_secure == "false", "the local Argo Server serves plain HTTP"
    tls = doctor(setup, "TLS to a plain-HTTP Argo Server", ARGO_SECURE="true")
    line = tls.failed()[("Argo Server", "reachable")]
    assert "plain HTTP" in line["detail"] and line["fix"] == "set ARGO_SECURE=false"

    # and Argo CD's, the other way round from how it is served: TLS to its plain-HTTP port
    # (its API server resets the handshake), or plain HTTP to its TLS port
    plaintext = "--plaintext" in e2e.argocd_opts
    flipped = e2e.argocd_opts.replace("--plaintext", "") if plaintext else "--plaintext"
    cd_tls = doctor(setup, "Argo CD's TLS setting wrong", ARGOCD_OPTS=flipped.strip())
    line = cd_tls.failed()[("Argo CD", "reachable")]
    wanted = (
        "add --plaintext to ARGOCD_OPTS" if plaintext else "remove --plaintext from ARGOCD_OPTS"
    )
    assert line["fix"].startswith(wanted), line
    assert ("Applications", "all") in cd_tls.checks  # the apps not asked: said once


def _cluster(e2e: E2ESettings, folder: Path) -> tuple[str, Path]:
    """The API server's address and its CA, from the admin kubeconfig."""
    import base64

    import yaml

    cluster = yaml.safe_load(e2e.kubeconfig.read_text())["clusters"][0]["cluster"]
    ca = folder / "ca.pem"
    if "certificate-authority-data" in cluster:
        ca.write_bytes(base64.b64decode(cluster["certificate-authority-data"]))
    else:
        ca.write_text(Path(cluster["certificate-authority"]).read_text())
    return str(cluster["server"]), ca


def test_the_charts_test_account_may_read_all_the_doctor_checks(
    e2e: E2ESettings, setup: Setup, tmp_path: Path
) -> None:
    """``helm test`` runs the doctor as the chart's test account: with only its Role, every
    check still answers (no "cannot tell"), through the Argo Server and the Kubernetes API."""
    import yaml

    from tests.chart.readme import CHART
    from tests.chart.rendering import IMAGE
    from tests.tools.binaries import ensure

    name, argo_ns = setup.name, e2e.argo_namespace
    sets = {
        "config.configMap": "unused",
        "image.repository": IMAGE,
        "workflows.namespace": argo_ns,
        "workflows.serviceAccount.name": name,
        "secrets.git": f"{name}-git",
        "secrets.argocd": f"{name}-argocd",
        "secrets.reportToken": f"{name}-report",
    }
    args = [arg for key, value in sets.items() for arg in ("--set", f"{key}={value}")]
    rendered = subprocess.run(
        [str(ensure("helm")), "template", name, str(CHART), "-n", name, *args],
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    ).stdout
    hook = [
        o
        for o in yaml.safe_load_all(rendered)
        if o
        and o["kind"] in ("ServiceAccount", "Role", "RoleBinding")
        and o["metadata"]["labels"].get("app.kubernetes.io/component") == "doctor"
    ]
    assert {o["kind"] for o in hook} == {"ServiceAccount", "Role", "RoleBinding"}
    base = api_client(e2e)
    core, rbac = client.CoreV1Api(base), client.RbacAuthorizationV1Api(base)
    core.create_namespace(client.V1Namespace(metadata=client.V1ObjectMeta(name=name)))
    try:
        for obj in hook:
            where = obj["metadata"]["namespace"]
            if obj["kind"] == "ServiceAccount":
                core.create_namespaced_service_account(where, obj)
            elif obj["kind"] == "Role":
                rbac.create_namespaced_role(where, obj)
            else:
                rbac.create_namespaced_role_binding(where, obj)
        account = next(o["metadata"]["name"] for o in hook if o["kind"] == "ServiceAccount")
        request = client.AuthenticationV1TokenRequest(
            spec=client.V1TokenRequestSpec(audiences=[], expiration_seconds=600)
        )
        issued = core.create_namespaced_service_account_token(account, name, request).status
        assert issued is not None and issued.token
        token = str(issued.token)
        server, ca = _cluster(e2e, tmp_path)
        report = doctor(
            setup,
            "as the chart's test account",
            ARGO_TOKEN=f"Bearer {token}",
            KUBECONFIG="/nonexistent",
            PROMOFLOW_KUBE_API=server,
            PROMOFLOW_KUBE_TOKEN=token,
            PROMOFLOW_KUBE_CA=str(ca),
        )
        assert report.code == 0, report.output
        assert report.checks[("Argo Server", "token")]["detail"] == f"acts as {name}/{account}"
        assert report.checks[("Argo Server", "namespace")]["status"] == "ok"
        namespace_lines = {k: v for k, v in report.checks.items() if k[0] == "Workflows namespace"}
        assert len(namespace_lines) == 4
        assert {v["status"] for v in namespace_lines.values()} == {"ok"}, namespace_lines
    finally:
        for obj in hook:
            if obj["kind"] == "Role":
                rbac.delete_namespaced_role(obj["metadata"]["name"], obj["metadata"]["namespace"])
            elif obj["kind"] == "RoleBinding":
                rbac.delete_namespaced_role_binding(
                    obj["metadata"]["name"], obj["metadata"]["namespace"]
                )
        core.delete_namespace(name)
