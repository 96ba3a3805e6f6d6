"""Running, verified, on the real cluster: real pods, real Argo CD, real Argo Workflows.

Promoted means running: once Argo CD reports an environment Synced at the promoted commit
and Healthy, its pods must run the promoted image. Two tags of one image
(``PROMOFLOW_E2E_APP_IMAGE`` and ``..._NEXT``: on the local cluster busybox httpd as
``promoflow.local/httpd:v1`` and ``:v2``, two different images) are promoted from one to
the other:

- an app whose manifests ignore the promoted value (its Deployment names the image itself,
  as a chart that reads another value does) is Synced and Healthy at the commit, and the
  gate fails it with the reason, in the README's words;
- a Kustomize app whose ``images:`` entry is promoted runs the new image in its pods, and
  the gate passes, in every environment of the flow.

Then the gate's two ways of reading what workloads run (Argo CD's managed resources, the
Kubernetes API) against the same real app.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
import yaml
from kubernetes import client

from orchestrator.adapters.argocd import ArgoCDClient
from orchestrator.gates.sources import ApiSource, KubeSource
from orchestrator.settings import ArgoCDSettings
from tests.e2e.conftest import DeployedApp
from tests.e2e.flows import Flow, argo_client, node_output, nodes, summary, wait_for_end
from tests.e2e.gitops import GitopsRepo
from tests.e2e.k8s import Apps, api_client, configmap, deployment, wait_until
from tests.e2e.runs import submit
from tests.e2e.settings import E2ESettings

pytestmark = pytest.mark.e2e

WAIT = [{"priority": 0, "policy": {"gates": [{"sync": {"timeout": "3m"}},
                                              {"health": {"timeout": "3m"}}]}}]  # fmt: skip


def two_tags(e2e: E2ESettings) -> tuple[str, str, str]:
    """The app image's repository, its first tag and the next one."""
    assert e2e.app_image and e2e.app_image_next, (
        "set PROMOFLOW_E2E_APP_IMAGE and PROMOFLOW_E2E_APP_IMAGE_NEXT: two tags of one image "
        "with busybox sh and httpd (the local cluster's `env` sets them)"
    )
    repository, _, first = e2e.app_image.rpartition(":")
    same, _, second = e2e.app_image_next.rpartition(":")
    assert repository == same, (e2e.app_image, e2e.app_image_next)
    return repository, first, second


def pods(e2e: E2ESettings, namespace: str, app: str) -> list[Any]:
    core = client.CoreV1Api(api_client(e2e))
    found = core.list_namespaced_pod(namespace, label_selector=f"app={app}").items
    return [p for p in found if p.metadata.deletion_timestamp is None]


def running_images(e2e: E2ESettings, namespace: str, app: str) -> list[tuple[str, str]]:
    """(image, imageID) of every container of the app's Ready pods, as the kubelet says."""
    out = []
    for pod in pods(e2e, namespace, app):
        ready = any(c.type == "Ready" and c.status == "True" for c in pod.status.conditions or [])
        if ready:
            out += [(s.image, s.image_id) for s in pod.status.container_statuses or []]
    return sorted(out)


def attempt_message(workflow: dict[str, Any], task: str) -> str:
    """The message of a task's (only) attempt: its pod, where the step's reason is."""
    return str(nodes(workflow)[f"{task}(0)"].get("message") or "")


def test_a_chart_that_ignores_the_promoted_value_fails_verification(
    e2e: E2ESettings,
    apps: Apps,
    new_repo: Callable[[], GitopsRepo],
    flows: Callable[..., Flow],
) -> None:
    repository, first, second = two_tags(e2e)
    repo = new_repo()
    template = {
        "versionSource": {"file": "values.yaml", "path": "image.tag"},
        "files": [{"file": "values.yaml", "paths": ["image.tag"]}],
        "image": {"repositoryField": "image.repository"},
    }
    flow = flows(WAIT, repo, environments=("dev",), template=template)
    name, path = flow.app("dev"), flow.path("dev")
    values = {"image": {"repository": repository, "tag": first}}
    commit = repo.commit(
        {
            # the values the promotion writes, which these manifests never read
            f"{path}/values.yaml": yaml.safe_dump(values, sort_keys=False),
            f"{path}/configmap.yaml": configmap(name, first),
            f"{path}/deployment.yaml": deployment(
                name, first, image=e2e.app_image, node_selector=e2e.app_node_selector
            ),
        }
    )
    apps.create(name, repo.url, path, repo.branch, name,
                source={"directory": {"exclude": "values.yaml"}})  # fmt: skip
    apps.wait_deployed(name, commit, e2e.timeout)
    before = running_images(e2e, name, name)
    assert [image for image, _ in before] == [e2e.app_image], before

    run = submit(flow, second)
    workflow = wait_for_end(argo_client(e2e), run, e2e.timeout * 2)

    assert workflow["status"]["phase"] == "Failed", summary(workflow)
    done = nodes(workflow)
    assert node_output(done["deploy-dev"], "image") == f"{repository}:{second}"
    assert node_output(done["deploy-dev"], "image-source") == "values.yaml image.tag"
    assert done["sync-dev"]["phase"] == "Failed", summary(workflow)
    expected = (
        f"{name} reports Healthy but runs {e2e.app_image}, not :{second} (values.yaml image.tag)"
    )
    assert attempt_message(workflow, "sync-dev") == flow.step_message(expected), summary(workflow)
    # Argo CD did deploy the promotion: Synced at its commit and Healthy, the old image
    promoted = node_output(done["deploy-dev"], "commit") or ""
    status = apps.status(name)
    assert status["sync"]["revision"] == promoted and status["sync"]["status"] == "Synced"
    assert status["health"]["status"] == "Healthy"
    assert status["summary"]["images"] == [e2e.app_image]
    assert f"tag: {second}" in repo.show(promoted, f"{path}/values.yaml")
    assert running_images(e2e, name, name) == before


def test_a_kustomize_app_promoted_by_image_name_runs_the_new_image(
    e2e: E2ESettings,
    apps: Apps,
    new_repo: Callable[[], GitopsRepo],
    flows: Callable[..., Flow],
) -> None:
    repository, first, second = two_tags(e2e)
    repo = new_repo()
    by_name = {"name": repository}
    template = {  # no image: block: the Kustomize image rule names the image to check
        "versionSource": {"file": "kustomization.yaml", "kustomizeImage": by_name},
        "files": [{"file": "kustomization.yaml", "kustomizeImage": by_name}],
    }
    # staging lists another image first: promoting by name must not touch it
    unused = {"name": "example.invalid/unused", "newTag": "0.0.1"}
    flow = flows(WAIT, repo, environments=("dev", "staging"), template=template)
    files: dict[str, str | None] = {}
    for env in ("dev", "staging"):
        name, path = flow.app(env), flow.path(env)
        kustomization = {
            "apiVersion": "kustomize.config.k8s.io/v1beta1",
            "kind": "Kustomization",
            "resources": ["configmap.yaml", "deployment.yaml"],
            "images": ([unused] if env == "staging" else [])
            + [{"name": repository, "newTag": first}],
        }
        files[f"{path}/kustomization.yaml"] = yaml.safe_dump(kustomization, sort_keys=False)
        files[f"{path}/configmap.yaml"] = configmap(name, env)
        # the manifest names the repository; the kustomization's entry sets its tag
        files[f"{path}/deployment.yaml"] = deployment(
            name, env, image=repository, node_selector=e2e.app_node_selector
        )
    commit = repo.commit(files)
    for env in ("dev", "staging"):
        apps.create(flow.app(env), repo.url, flow.path(env), repo.branch, flow.app(env))
    old: dict[str, list[tuple[str, str]]] = {}
    for env in ("dev", "staging"):
        apps.wait_deployed(flow.app(env), commit, e2e.timeout)
        old[env] = running_images(e2e, flow.app(env), flow.app(env))
        assert [image for image, _ in old[env]] == [e2e.app_image], old

    run = submit(flow, second)
    workflow = wait_for_end(argo_client(e2e), run, e2e.timeout * 3)

    assert workflow["status"]["phase"] == "Succeeded", summary(workflow)
    done = nodes(workflow)
    for env in ("dev", "staging"):
        name = flow.app(env)
        assert node_output(done[f"deploy-{env}"], "image") == e2e.app_image_next
        # the wait was given the image to check, and passed
        waited = {p["name"]: p.get("value") for p in done[f"sync-{env}"]["inputs"]["parameters"]}
        assert waited["image"] == e2e.app_image_next, waited
        entry = f"images[name={repository}]"
        assert waited["image-source"] == f"kustomization.yaml {entry}.newTag", waited
        assert done[f"sync-{env}"]["phase"] == "Succeeded", summary(workflow)
        now = running_images(e2e, name, name)
        assert [image for image, _ in now] == [e2e.app_image_next], now
        # another image, not another name for the same one
        assert {i for _, i in now}.isdisjoint({i for _, i in old[env]}), (now, old[env])
        assert e2e.app_image_next in apps.status(name)["summary"]["images"]
        promoted = node_output(done[f"deploy-{env}"], "commit") or ""
        written = yaml.safe_load(repo.show(promoted, f"{flow.path(env)}/kustomization.yaml"))
        listed = [unused] if env == "staging" else []
        assert written["images"] == [*listed, {"name": repository, "newTag": second}]


@pytest.fixture
def running_app(e2e: E2ESettings, deployed: Callable[..., DeployedApp], apps: Apps) -> DeployedApp:
    """An app whose Deployment runs ``PROMOFLOW_E2E_APP_IMAGE`` in real pods."""
    two_tags(e2e)
    app = deployed(with_deployment=False)
    new = app.commit(
        {
            "deployment.yaml": deployment(
                app.name, "1", image=e2e.app_image, node_selector=e2e.app_node_selector
            )
        }
    )
    apps.wait_deployed(app.name, new, e2e.timeout)
    wait_until("its pod Ready", lambda: running_images(e2e, app.name, app.name), e2e.timeout)
    return app


def test_the_workloads_are_read_both_ways(
    e2e: E2ESettings, apps: Apps, running_app: DeployedApp
) -> None:
    """Where the summary lacks the image the gate reads the workloads' pod templates:
    from Argo CD's managed resources, or from the Kubernetes API. Both read the same."""
    status = apps.get(running_app.name) or {}
    assert e2e.app_image in status["status"]["summary"]["images"]
    settings = ArgoCDSettings(
        server=e2e.argocd_server, auth_token=e2e.argocd_token, opts=e2e.argocd_opts
    )
    with ArgoCDClient(settings) as argocd:
        through_api = ApiSource(argocd).workloads(running_app.name, status)
        items = argocd.managed_resources(running_app.name)
    through_kube = KubeSource(client.CustomObjectsApi(api_client(e2e)), e2e.argocd_namespace)
    read = through_kube.workloads(running_app.name, status)
    assert through_api.images == read.images == (e2e.app_image,)
    assert through_api.unread == read.unread == ""
    [workload] = [i for i in items if i.get("kind") == "Deployment"]
    assert json.loads(workload["liveState"])["kind"] == "Deployment"


@pytest.mark.parametrize("access", ["api", "kubernetes"])
def test_the_gate_checks_the_image_through_either_access(
    e2e: E2ESettings, running_app: DeployedApp, access: str
) -> None:
    """``promoflow step wait-argocd --image`` as the workflow runs it, through the Argo CD
    API and through the Kubernetes API: a commit that leaves the image alone is deployed,
    Healthy, and runs the first tag, not the next."""
    from tests.e2e.steps import api_env, kube_env, run

    env = api_env(e2e) if access == "api" else kube_env(e2e)
    new = running_app.commit({"configmap.yaml": configmap(running_app.name, "2")})
    source = ("--image-source", "values.yaml image.tag")

    def wait(image: str) -> Any:
        return run(
            "step", "wait-argocd", "--app", running_app.name, "--revision", new,
            "--timeout", "3m", "--image", image, *source, env=env, timeout=e2e.timeout + 60,
        )  # fmt: skip

    wrong = wait(e2e.app_image_next)
    assert wrong.code == 1, wrong
    _, _, second = e2e.app_image_next.rpartition(":")
    message = (
        f"{running_app.name} reports Healthy but runs {e2e.app_image}, not :{second} "
        "(values.yaml image.tag)"
    )
    assert f"error: {message}" in wrong.stderr, wrong
    assert wrong.json()["state"] == "failed"

    right = wait(e2e.app_image)
    assert right.code == 0, right
    assert right.json()["apps"][0]["reason"].endswith(f"runs {e2e.app_image}")
