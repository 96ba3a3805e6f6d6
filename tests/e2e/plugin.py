"""promoflow's executor plugin in the e2e namespace: the ConfigMap the chart installs.

Made from the same settings the flows compile with (the step image, the Argo CD server the
steps use, the Secret names), so a flow compiled with ``PROMOFLOW_EXECUTION=plugin`` runs
its steps in the sidecar this describes. A ConfigMap left by an earlier session is
replaced: the controller reads its latest version.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from tests.e2e.settings import E2ESettings


def plugin_settings(e2e: E2ESettings, secrets: Mapping[str, str]) -> object:
    from orchestrator.settings import StepSettings

    values: dict[str, str] = {
        "argocd_server": e2e.step_argocd_server,
        "argocd_opts": e2e.step_argocd_opts,
        "git_secret": secrets["PROMOFLOW_GIT_SECRET"],
        "argocd_secret": secrets["PROMOFLOW_ARGOCD_SECRET"],
        "execution": "plugin",
    }
    if e2e.step_image:
        values["step_image"] = e2e.step_image
    return StepSettings(**values)


def install_plugin(e2e: E2ESettings, secrets: Mapping[str, str]) -> Callable[[], None]:
    """Create (or replace) the plugin's ConfigMap; returns what deletes it."""
    from kubernetes import client
    from kubernetes.client.exceptions import ApiException

    from orchestrator.compiler.executor_plugin import CONFIGMAP, configmap
    from orchestrator.settings import StepSettings
    from tests.e2e.k8s import api_client

    settings = plugin_settings(e2e, secrets)
    assert isinstance(settings, StepSettings)
    core = client.CoreV1Api(api_client(e2e))
    body = configmap(settings)
    ns = e2e.argo_namespace
    try:
        core.replace_namespaced_config_map(CONFIGMAP, ns, body)
    except ApiException as exc:
        if exc.status != 404:
            raise
        core.create_namespaced_config_map(ns, body)

    def remove() -> None:
        try:
            core.delete_namespaced_config_map(CONFIGMAP, ns)
        except ApiException as exc:
            if exc.status != 404:
                raise

    return remove
