"""The Helm chart against the real API server: every object it renders passes a
server-side dry run (the API server's own validation and defaulting, the installed Argo
CRDs), and the accounts it makes can do what they need and nothing more, asked as
SubjectAccessReviews of the real authorizer.

(A ServiceMonitor needs the prometheus-operator CRD, which the local cluster does not
install: its schema is checked offline, in tests/chart.)
"""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from typing import Any

import pytest
import yaml
from kubernetes import client

from tests.chart.readme import CHART
from tests.chart.rendering import IMAGE
from tests.e2e.k8s import api_client, short_id
from tests.e2e.settings import E2ESettings
from tests.tools.binaries import ensure

pytestmark = pytest.mark.e2e


def _render(namespace: str, *values: str) -> list[dict[str, Any]]:
    sets = [
        arg
        for value in ("config.configMap=promoflow-config", f"image.repository={IMAGE}", *values)
        for arg in ("--set", value)
    ]
    out = subprocess.run(
        [str(ensure("helm")), "template", "promoflow", str(CHART), "-n", namespace, *sets],
        capture_output=True, text=True, check=True, timeout=120,
    ).stdout  # fmt: skip
    return [d for d in yaml.safe_load_all(out) if d]


def _kubectl(e2e: E2ESettings, *args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(ensure("kubectl")), f"--kubeconfig={e2e.kubeconfig}", *args],
        input=stdin, capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip


@pytest.fixture
def namespace(e2e: E2ESettings) -> Iterator[str]:
    core = client.CoreV1Api(api_client(e2e))
    name = f"pfchart-{short_id()}"
    core.create_namespace({"metadata": {"name": name}})
    yield name
    core.delete_namespace(name)


@pytest.mark.parametrize(
    "values",
    [
        (),
        ("webhooks.ingress.enabled=true", "webhooks.ingress.tls.enabled=true",
         "networkPolicy.enabled=true", "reporters.replicas=1"),
        ("reporters.watch={workflows,replicasets}", "reporters.workloadNamespaces={default}",
         "secrets.reportToken=report", "config.files.promoflow\\.yaml=kind: Product"),
    ],
    ids=["defaults", "ingress-policies", "replicasets-files"],
)  # fmt: skip
def test_every_object_passes_a_server_side_dry_run(
    e2e: E2ESettings, namespace: str, values: tuple[str, ...]
) -> None:
    rendered = _render(namespace, f"workflows.namespace={namespace}", *values)
    # helm creates the test hook's ServiceAccount before its Pod (hook weights); a Pod's
    # admission looks its account up, so the accounts exist before the dry run
    accounts = [o for o in rendered if o["kind"] == "ServiceAccount"]
    made = _kubectl(e2e, "apply", "-f", "-", stdin=yaml.safe_dump_all(accounts))
    assert made.returncode == 0, made.stderr
    manifest = yaml.safe_dump_all(rendered)
    result = _kubectl(
        e2e, "apply", "--dry-run=server", "--validate=strict", "-f", "-", stdin=manifest
    )
    assert result.returncode == 0, result.stderr
    applied = [line for line in result.stdout.splitlines() if "(server dry run)" in line]
    assert len(applied) == len(rendered)


def _can(e2e: E2ESettings, account: str, verb: str, resource: str, namespace: str = "") -> bool:
    """``resource`` is ``workflows.argoproj.io``, ``secrets`` or ``secrets/NAME`` (one
    object, for a Role that names its objects)."""
    resource, _, name = resource.partition("/")
    plural, _, group = resource.partition(".")
    review = client.V1SubjectAccessReview(
        spec=client.V1SubjectAccessReviewSpec(
            user=f"system:serviceaccount:{account}",
            groups=["system:serviceaccounts", f"system:serviceaccounts:{account.split(':')[0]}"],
            resource_attributes=client.V1ResourceAttributes(
                verb=verb,
                group=group,
                resource=plural,
                namespace=namespace or None,
                name=name or None,
            ),
        )
    )
    answer = client.AuthorizationV1Api(api_client(e2e)).create_subject_access_review(review)
    return bool(answer.status.allowed)


def test_each_account_can_do_what_it_needs_and_no_more(e2e: E2ESettings, namespace: str) -> None:
    # approvers' account in the test's namespace (as if the Argo Server ran there), so the
    # test touches no namespace but its own and Argo CD's
    rendered = _render(
        namespace,
        "workflows.approvals.groups={release-managers}",
        f"workflows.approvals.serverNamespace={namespace}",
    )
    rbac = [o for o in rendered if o["kind"] in ("ServiceAccount", "Role", "RoleBinding", "Secret")]
    assert all(o["metadata"].get("namespace") in (namespace, e2e.argocd_namespace) for o in rbac)
    applied = _kubectl(e2e, "apply", "-f", "-", stdin=yaml.safe_dump_all(rbac))
    try:
        assert applied.returncode == 0, applied.stderr
        ns, argocd = namespace, e2e.argocd_namespace
        webhooks, reporters = f"{ns}:promoflow-webhooks", f"{ns}:promoflow-reporters"
        apply, workflow = f"{ns}:promoflow-apply", f"{ns}:promoflow-workflow"
        approver, doctor = f"{ns}:promoflow-approver", f"{ns}:promoflow-doctor"
        allowed = [
            (webhooks, "create", "workflows.argoproj.io", ns),
            (webhooks, "patch", "workflows.argoproj.io", ns),
            (webhooks, "get", "workflowtemplates.argoproj.io", ns),
            (reporters, "watch", "applications.argoproj.io", argocd),
            (reporters, "list", "workflows.argoproj.io", ns),
            (apply, "update", "workflowtemplates.argoproj.io", ns),
            (workflow, "create", "workflowtaskresults.argoproj.io", ns),
            (workflow, "patch", "workflowtaskresults.argoproj.io", ns),
            (approver, "update", "workflows.argoproj.io", ns),  # set an approval's outputs
            (approver, "watch", "workflows.argoproj.io", ns),
            (doctor, "list", "workflows.argoproj.io", ns),  # helm test: through the Argo Server
            (doctor, "list", "workflowtemplates.argoproj.io", ns),
            (doctor, "get", "secrets/promoflow-git", ns),
            (doctor, "get", "secrets/promoflow-argocd", ns),
            (doctor, "get", "serviceaccounts/promoflow-workflow", ns),
        ]
        denied = [
            (webhooks, "delete", "workflows.argoproj.io", ns),
            (webhooks, "create", "workflows.argoproj.io", "default"),
            (webhooks, "get", "secrets", ns),
            (webhooks, "create", "workflowtemplates.argoproj.io", ns),
            (reporters, "patch", "applications.argoproj.io", argocd),
            (reporters, "list", "applications.argoproj.io", ""),  # not cluster-wide
            (reporters, "list", "secrets", ns),
            (apply, "delete", "workflowtemplates.argoproj.io", ns),
            (apply, "create", "workflows.argoproj.io", ns),
            (workflow, "get", "secrets", ns),
            (workflow, "get", "workflows.argoproj.io", ns),
            (workflow, "create", "pods", ns),
            (approver, "create", "workflows.argoproj.io", ns),
            (approver, "delete", "workflows.argoproj.io", ns),
            (approver, "update", "workflowtemplates.argoproj.io", ns),
            (approver, "get", "secrets", ns),
            (doctor, "get", "secrets/promoflow-webhooks", ns),
            (doctor, "list", "secrets", ns),
            (doctor, "get", "workflows.argoproj.io", ns),
            (doctor, "create", "workflows.argoproj.io", ns),
        ]
        wrong = [a for a in allowed if not _can(e2e, *a)] + [d for d in denied if _can(e2e, *d)]
        assert wrong == []
    finally:
        _kubectl(e2e, "delete", "--ignore-not-found", "-f", "-", stdin=yaml.safe_dump_all(rbac))
