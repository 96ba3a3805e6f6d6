"""Argo CD's notifications objects read through the real Kubernetes API server, as the
chart's Role allows it: a ServiceAccount granted ``get``, ``list`` and ``watch`` on one
ConfigMap and one Secret by ``resourceNames`` reads and follows them (the field selector
``metadata.name`` is what lets the API server authorize a list and a watch by name), and
is refused any other ConfigMap of the namespace.

The objects are made for the test, beside Argo CD's own (which the parity tests use).
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from kubernetes import client
from kubernetes.client.exceptions import ApiException

from orchestrator.adapters.informer import Refused
from reporters.watch.configsource import Loaded, NotificationsSource
from tests.e2e.k8s import api_client, short_id, wait_until
from tests.e2e.settings import E2ESettings

pytestmark = pytest.mark.e2e

DATA = {
    "service.slack": "token: $slack-token\n",
    "template.deployed": "message: 'deployed {{.app.metadata.name}}'\n",
    "subscriptions": "- recipients: [slack:deploys]\n  triggers: [on-deployed]\n",
}


@pytest.fixture
def granted(e2e: E2ESettings) -> Iterator[tuple[Any, Any, str, str]]:
    """(admin CoreV1Api, the ServiceAccount's CoreV1Api, ConfigMap name, Secret name)."""
    admin: Any = client.CoreV1Api(api_client(e2e))
    rbac: Any = client.RbacAuthorizationV1Api(api_client(e2e))
    namespace, suffix = e2e.argocd_namespace, short_id()
    cm, secret, account = f"e2e-notif-cm-{suffix}", f"e2e-notif-secret-{suffix}", f"e2e-{suffix}"
    admin.create_namespaced_config_map(namespace, {"metadata": {"name": cm}, "data": DATA})
    admin.create_namespaced_secret(
        namespace, {"metadata": {"name": secret}, "stringData": {"slack-token": "xoxb-one"}}
    )
    admin.create_namespaced_service_account(namespace, {"metadata": {"name": account}})
    rules = [
        {"apiGroups": [""], "resources": [kind], "resourceNames": [name],
         "verbs": ["get", "list", "watch"]}
        for kind, name in (("configmaps", cm), ("secrets", secret))
    ]  # fmt: skip
    rbac.create_namespaced_role(namespace, {"metadata": {"name": account}, "rules": rules})
    rbac.create_namespaced_role_binding(namespace, {
        "metadata": {"name": account},
        "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": account},
        "subjects": [{"kind": "ServiceAccount", "name": account, "namespace": namespace}],
    })  # fmt: skip
    as_account: Any = api_client(e2e)
    as_account.set_default_header(
        "Impersonate-User", f"system:serviceaccount:{namespace}:{account}"
    )
    try:
        yield admin, client.CoreV1Api(as_account), cm, secret
    finally:
        deletes: list[Callable[[], Any]] = [
            lambda: admin.delete_namespaced_config_map(cm, namespace),
            lambda: admin.delete_namespaced_secret(secret, namespace),
            lambda: admin.delete_namespaced_service_account(account, namespace),
            lambda: rbac.delete_namespaced_role(account, namespace),
            lambda: rbac.delete_namespaced_role_binding(account, namespace),
        ]
        for delete in deletes:
            with contextlib.suppress(ApiException):
                delete()


def test_a_role_by_resource_names_is_enough_to_read_and_follow_them(
    e2e: E2ESettings, granted: tuple[Any, Any, str, str]
) -> None:
    admin, api, cm, secret = granted
    namespace = e2e.argocd_namespace
    source = NotificationsSource(api, (namespace, cm), (namespace, secret), watch_seconds=20)
    first = source.load()
    assert first.config.services["slack"].options.token == "xoxb-one"  # type: ignore[attr-defined]

    loaded: list[Loaded] = []
    refused: list[list[str]] = []
    logs: list[str] = []
    source.log = logs.append
    stopping = threading.Event()
    threads = source.follow(loaded.append, refused.append, stopping.is_set)
    try:
        admin.patch_namespaced_secret(
            secret, namespace, {"stringData": {"slack-token": "xoxb-two"}}
        )
        wait_until("the rotated token", lambda: loaded or None, e2e.timeout)
        assert loaded[0].config.services["slack"].options.token == "xoxb-two"  # type: ignore[attr-defined]
        admin.patch_namespaced_config_map(
            cm, namespace, {"data": {"template.deployed": "message: '{{.app.metadata.name'\n"}}
        )
        wait_until("the broken template refused", lambda: refused or None, e2e.timeout)
        assert refused[0][0].startswith(f"{namespace}/{cm}/template.deployed:1:")
    finally:
        stopping.set()
        for thread in threads:
            thread.join(30)
    assert not [line for line in logs if "failed" in line]  # never refused by the API server

    other = NotificationsSource(api, (namespace, "argocd-notifications-cm"))
    with pytest.raises(Refused) as forbidden:  # any other object of the namespace
        other.load()
    assert forbidden.value.status == 403
