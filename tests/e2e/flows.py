"""promoflow configurations for the e2e suite, and the Argo side of running them.

Each test writes its own small configuration (dev -> staging -> prod, one product) into a
temporary directory: the example ``environments/`` is shared with the rest of the team and
changes under them, and a test must know which gates its flow has. Each test also gets its
own template prefix (``PROMOFLOW_TEMPLATE_PREFIX``), so the WorkflowTemplates it applies
never collide with another test's or a person's ``promoflow-*`` templates.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from itertools import pairwise
from pathlib import Path
from typing import Any

import httpx
import yaml

from tests.e2e.k8s import short_id, wait_until
from tests.e2e.settings import E2ESettings
from tests.e2e.steps import Ran, argo_env, run

ENVIRONMENTS = ("dev", "staging", "prod")
DONE = ("Succeeded", "Failed", "Error")
WORKFLOW_ACCOUNT = "promoflow-e2e-workflow"
"""The ServiceAccount the e2e workflows run as (``PROMOFLOW_SERVICE_ACCOUNT``)."""


@dataclass
class Flow:
    """One product's configuration, and the settings its workflows are compiled with."""

    e2e: E2ESettings
    directory: Path
    product: str
    prefix: str
    secrets: dict[str, str] = field(default_factory=dict)
    """``PROMOFLOW_*_SECRET`` names the compiled steps read their tokens from."""
    execution: str = ""
    """How the steps run (``PROMOFLOW_EXECUTION``): the suite's setting unless set."""

    @property
    def template(self) -> str:
        return f"{self.prefix}-{self.product}"

    def app(self, environment: str) -> str:
        return f"{self.product}-{environment}"

    def path(self, environment: str) -> str:
        return f"envs/{environment}/{self.product}"

    @property
    def node_type(self) -> str:
        """The type of a step's node: a pod's, or the executor plugin's."""
        return "Plugin" if (self.execution or self.e2e.execution) == "plugin" else "Pod"

    def step_message(self, said: str) -> str:
        """What a failed step's node says when the step said ``said``: a pod's message
        puts the container before it (``main: Error (exit code 1): ``), the plugin's is the
        step's own."""
        return said if self.node_type == "Plugin" else f"main: Error (exit code 1): {said}"

    def env(self, **extra: str) -> dict[str, str]:
        """``promoflow`` against the Argo Server, compiling with this flow's settings."""
        step = {
            "PROMOFLOW_TEMPLATE_PREFIX": self.prefix,
            "PROMOFLOW_SERVICE_ACCOUNT": WORKFLOW_ACCOUNT,
            "PROMOFLOW_ARGOCD_SERVER": self.e2e.step_argocd_server,
            "PROMOFLOW_ARGOCD_OPTS": self.e2e.step_argocd_opts,
            "PROMOFLOW_REQUESTED_BY": "e2e",
            **self.secrets,
        }
        if self.e2e.step_image:
            step["PROMOFLOW_STEP_IMAGE"] = self.e2e.step_image
        execution = self.execution or self.e2e.execution
        if execution:
            step["PROMOFLOW_EXECUTION"] = execution
        return argo_env(self.e2e, **step, **extra)

    def promoflow(self, *args: str, timeout: float = 120, **extra: str) -> Ran:
        return run(*args, env=self.env(**extra), timeout=timeout)


def write_flow(
    e2e: E2ESettings,
    directory: Path,
    *,
    repo: str,
    branch: str,
    policies: list[dict[str, Any]],
    product: str | None = None,
    environments: tuple[str, ...] = ENVIRONMENTS,
    template: dict[str, Any] | None = None,
) -> Flow:
    """dev -> staging -> prod for one product whose files are ``configmap.yaml`` (the
    version in ``data.version``) and ``deployment.yaml`` (the version in a pod template
    annotation, so a promotion rolls the Deployment); ``policies`` are PromotionPolicy
    specs (``{"priority": ..., "selector": ..., "policy": ...}``). ``environments``: the
    chain's environments instead (the first is the trigger); ``template``: the
    PromotionTemplate's spec instead."""
    product = product or f"e2e{short_id()}"
    documents: list[dict[str, Any]] = []
    for name in environments:
        documents.append(
            {
                "apiVersion": "promoflow.dev/v1alpha1",
                "kind": "Environment",
                "metadata": {"name": name},
                "spec": {"production": name == "prod"},
            }
        )
    documents += [
        {
            "apiVersion": "promoflow.dev/v1alpha1",
            "kind": "Product",
            "metadata": {"name": product},
            "spec": {
                "repo": {"url": repo, "branch": branch},
                "flow": f"{product}-flow",
                "template": f"{product}-files",
            },
        },
        {
            "apiVersion": "promoflow.dev/v1alpha1",
            "kind": "PromotionTemplate",
            "metadata": {"name": f"{product}-files"},
            "spec": template
            or {
                "versionSource": {"file": "configmap.yaml", "path": "data.version"},
                "files": [
                    {"file": "configmap.yaml", "paths": ["data.version"]},
                    {
                        "file": "deployment.yaml",
                        "paths": ["spec.template.metadata.annotations.version"],
                    },
                ],
            },
        },
        {
            "apiVersion": "promoflow.dev/v1alpha1",
            "kind": "PromotionFlow",
            "metadata": {"name": f"{product}-flow"},
            "spec": {
                "trigger": environments[0],
                "steps": [
                    {"environment": env, "dependsOn": [before]}
                    for before, env in pairwise(environments)
                ],
            },
        },
    ]
    for i, spec in enumerate(policies):
        documents.append(
            {
                "apiVersion": "promoflow.dev/v1alpha1",
                "kind": "PromotionPolicy",
                "metadata": {"name": f"{product}-policy-{i}"},
                "spec": spec,
            }
        )
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "promoflow.yaml").write_text(yaml.safe_dump_all(documents, sort_keys=False))
    return Flow(e2e, directory, product, f"pfe2e{short_id()}")


class ArgoRest:
    """Reads of workflows through the Argo Server's REST API, as the suite's identity:
    independent of promoflow's own client (the code under test)."""

    def __init__(self, e2e: E2ESettings) -> None:
        self.e2e = e2e

    def get_workflow(self, name: str) -> dict[str, Any]:
        with argo_http(self.e2e) as http:
            response = http.get(f"/workflows/{self.e2e.argo_namespace}/{name}")
        assert response.status_code == 200, response.text
        data: dict[str, Any] = response.json()
        return data

    def list_workflows(self, selector: str) -> list[dict[str, Any]]:
        with argo_http(self.e2e) as http:
            response = http.get(
                f"/workflows/{self.e2e.argo_namespace}",
                params={"listOptions.labelSelector": selector},
            )
        assert response.status_code == 200, response.text
        return list(response.json().get("items") or [])


def argo_client(e2e: E2ESettings) -> ArgoRest:
    return ArgoRest(e2e)


def nodes(workflow: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """The workflow's nodes by display name (the task names: ``approve-prod``...)."""
    found = (workflow.get("status") or {}).get("nodes") or {}
    return {str(n.get("displayName")): n for n in found.values()}


def node_output(node: dict[str, Any], name: str) -> str | None:
    for param in (node.get("outputs") or {}).get("parameters") or []:
        if param.get("name") == name:
            return str(param.get("value"))
    return None


def wait_for_node(
    client: ArgoRest,
    workflow: str,
    task: str,
    phases: tuple[str, ...],
    timeout: float,
) -> dict[str, Any]:
    """Until the node of ``task`` is in one of ``phases``; the node."""

    def reached() -> dict[str, Any] | None:
        wf = client.get_workflow(workflow)
        phase = (wf.get("status") or {}).get("phase")
        node = nodes(wf).get(task)
        if node is not None and node.get("phase") in phases:
            return node
        if phase in DONE:
            raise AssertionError(
                f"{workflow} ended {phase} ({wf['status'].get('message')}) before {task} "
                f"was {'/'.join(phases)}: {summary(wf)}"
            )
        return None

    return wait_until(f"{workflow}: {task} {'/'.join(phases)}", reached, timeout)


def wait_for_end(client: ArgoRest, workflow: str, timeout: float) -> dict[str, Any]:
    def ended() -> dict[str, Any] | None:
        wf = client.get_workflow(workflow)
        return wf if (wf.get("status") or {}).get("phase") in DONE else None

    return wait_until(f"{workflow} finished", ended, timeout, interval=1)


def summary(workflow: dict[str, Any]) -> str:
    """``task: phase (message)`` per node, for assertion messages."""
    return "; ".join(
        f"{name}: {node.get('phase')}" + (f" ({node['message']})" if node.get("message") else "")
        for name, node in sorted(nodes(workflow).items())
    )


def argo_http(e2e: E2ESettings) -> httpx.Client:
    """The Argo Server's REST API as the suite's identity (for reads and clean-up that
    must not go through the code under test)."""
    scheme = "https" if e2e.argo_secure.lower() not in ("false", "0", "no") else "http"
    server = e2e.argo_server if "://" in e2e.argo_server else f"{scheme}://{e2e.argo_server}"
    token = e2e.argo_token if e2e.argo_token.startswith("Bearer ") else f"Bearer {e2e.argo_token}"
    return httpx.Client(
        base_url=f"{server}/api/v1", headers={"Authorization": token}, verify=False, timeout=30
    )


def delete_workflow(e2e: E2ESettings, name: str) -> None:
    with argo_http(e2e) as http:
        http.delete(f"/workflows/{e2e.argo_namespace}/{name}")


def delete_templates(e2e: E2ESettings, prefix: str) -> None:
    """Every WorkflowTemplate named ``PREFIX-*`` (what a test's ``apply`` made)."""
    with argo_http(e2e) as http:
        listed = http.get(f"/workflow-templates/{e2e.argo_namespace}").json().get("items") or []
        for item in listed:
            name = item["metadata"]["name"]
            if name.startswith(f"{prefix}-"):
                http.delete(f"/workflow-templates/{e2e.argo_namespace}/{name}")
