"""The schema checker the chart tests rely on: what it accepts, what it rejects and where."""

from __future__ import annotations

import copy
import importlib.util
import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.chart import schemas
from tests.chart.schemas import KUBERNETES_SCHEMAS, validate

ROOT = Path(__file__).resolve().parents[2]
LABELS = {"app.kubernetes.io/name": "promoflow", "app.kubernetes.io/component": "server"}
SELECTOR = {"matchLabels": LABELS}

POD_SPEC: dict[str, Any] = {
    "serviceAccountName": "promoflow",
    "securityContext": {"runAsNonRoot": True, "seccompProfile": {"type": "RuntimeDefault"}},
    "containers": [
        {
            "name": "server",
            "image": "ghcr.io/example/promoflow:1.2.3",
            "imagePullPolicy": "IfNotPresent",
            "args": ["serve", "--port", "8080"],
            "ports": [{"name": "http", "containerPort": 8080, "protocol": "TCP"}],
            "env": [
                {"name": "PROMOFLOW_LOG_LEVEL", "value": "info"},
                {
                    "name": "PROMOFLOW_GIT_TOKEN",
                    "valueFrom": {"secretKeyRef": {"name": "promoflow-git", "key": "token"}},
                },
            ],
            "envFrom": [{"configMapRef": {"name": "promoflow"}}],
            "readinessProbe": {"httpGet": {"path": "/healthz", "port": "http"}},
            "livenessProbe": {"httpGet": {"path": "/healthz", "port": 8080}, "periodSeconds": 20},
            "resources": {
                "requests": {"cpu": "100m", "memory": "128Mi"},
                "limits": {"cpu": 1, "memory": "512Mi"},
            },
            "securityContext": {
                "allowPrivilegeEscalation": False,
                "readOnlyRootFilesystem": True,
                "capabilities": {"drop": ["ALL"]},
            },
            "volumeMounts": [{"name": "config", "mountPath": "/etc/promoflow", "readOnly": True}],
        }
    ],
    "volumes": [{"name": "config", "configMap": {"name": "promoflow"}}],
}


def deployment() -> dict[str, Any]:
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "web", "namespace": "promoflow", "labels": LABELS},
        "spec": {
            "replicas": 2,
            "selector": SELECTOR,
            "strategy": {"type": "RollingUpdate", "rollingUpdate": {"maxSurge": "25%"}},
            "template": {
                "metadata": {"labels": LABELS, "annotations": {"checksum/config": "abc123"}},
                "spec": copy.deepcopy(POD_SPEC),
            },
        },
    }


def service(target_port: int | str = "http") -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": {"name": "web", "labels": LABELS},
        "spec": {
            "type": "ClusterIP",
            "selector": LABELS,
            "ports": [{"name": "http", "port": 80, "targetPort": target_port}],
        },
    }


VALID: list[dict[str, Any]] = [
    deployment(),
    service(),
    {
        "apiVersion": "apps/v1",
        "kind": "StatefulSet",
        "metadata": {"name": "store", "labels": LABELS},
        "spec": {
            "serviceName": "store",
            "replicas": 1,
            "selector": SELECTOR,
            "template": {"metadata": {"labels": LABELS}, "spec": copy.deepcopy(POD_SPEC)},
            "volumeClaimTemplates": [
                {
                    "metadata": {"name": "data"},
                    "spec": {
                        "accessModes": ["ReadWriteOnce"],
                        "resources": {"requests": {"storage": "1Gi"}},
                    },
                }
            ],
        },
    },
    {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {"name": "migrate", "annotations": {"helm.sh/hook": "pre-upgrade"}},
        "spec": {
            "backoffLimit": 2,
            "ttlSecondsAfterFinished": 600,
            "template": {
                "metadata": {"labels": LABELS},
                "spec": {**copy.deepcopy(POD_SPEC), "restartPolicy": "Never"},
            },
        },
    },
    {
        "apiVersion": "networking.k8s.io/v1",
        "kind": "Ingress",
        "metadata": {
            "name": "web",
            "annotations": {"nginx.ingress.kubernetes.io/proxy-body-size": "8m"},
        },
        "spec": {
            "ingressClassName": "nginx",
            "tls": [{"hosts": ["promoflow.example.com"], "secretName": "promoflow-tls"}],
            "rules": [
                {
                    "host": "promoflow.example.com",
                    "http": {
                        "paths": [
                            {
                                "path": "/",
                                "pathType": "Prefix",
                                "backend": {"service": {"name": "web", "port": {"name": "http"}}},
                            }
                        ]
                    },
                }
            ],
        },
    },
    {
        "apiVersion": "networking.k8s.io/v1",
        "kind": "NetworkPolicy",
        "metadata": {"name": "web"},
        "spec": {
            "podSelector": SELECTOR,
            "policyTypes": ["Ingress", "Egress"],
            "ingress": [
                {
                    "from": [
                        {"namespaceSelector": {"matchLabels": {"name": "ingress-nginx"}}},
                        {"podSelector": {}},
                    ],
                    "ports": [{"protocol": "TCP", "port": "http"}],
                }
            ],
            "egress": [{"to": [{"ipBlock": {"cidr": "0.0.0.0/0"}}], "ports": [{"port": 443}]}],
        },
    },
    {
        "apiVersion": "policy/v1",
        "kind": "PodDisruptionBudget",
        "metadata": {"name": "web"},
        "spec": {"minAvailable": "50%", "selector": SELECTOR},
    },
    {
        "apiVersion": "rbac.authorization.k8s.io/v1",
        "kind": "Role",
        "metadata": {"name": "promoflow"},
        "rules": [
            {
                "apiGroups": ["argoproj.io"],
                "resources": ["workflows", "workflowtemplates"],
                "verbs": ["get", "list", "watch", "create"],
            },
            {"apiGroups": [""], "resources": ["configmaps"], "verbs": ["get"]},
        ],
    },
    {
        "apiVersion": "rbac.authorization.k8s.io/v1",
        "kind": "RoleBinding",
        "metadata": {"name": "promoflow"},
        "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": "promoflow"},
        "subjects": [{"kind": "ServiceAccount", "name": "promoflow", "namespace": "promoflow"}],
    },
    {
        "apiVersion": "v1",
        "kind": "Secret",
        "metadata": {"name": "promoflow-git"},
        "type": "Opaque",
        "data": {"token": "c2VjcmV0"},
        "stringData": {"user": "promoflow"},
    },
]


@pytest.mark.parametrize("obj", VALID, ids=[obj["kind"] for obj in VALID])
def test_valid_objects_pass(obj: dict[str, Any]) -> None:
    assert validate(obj) == []


@pytest.mark.parametrize(
    "path", sorted((ROOT / "workflow_templates").glob("*.yaml")), ids=lambda p: p.stem
)
def test_library_workflow_templates_pass(path: Path) -> None:
    obj = yaml.safe_load(path.read_text())
    assert obj["kind"] == "WorkflowTemplate"
    assert validate(obj) == []


def test_unknown_field_is_rejected() -> None:
    obj = deployment()
    obj["spec"]["replica"] = 3
    obj["spec"]["template"]["spec"]["containers"][0]["imagePullPolicyy"] = "Always"
    obj["metadata"]["label"] = {}
    assert validate(obj) == [
        "Deployment/web: metadata.label: unknown field",
        "Deployment/web: spec.replica: unknown field",
        "Deployment/web: spec.template.spec.containers[0].imagePullPolicyy: unknown field",
    ]


def test_wrong_type_is_rejected() -> None:
    obj = deployment()
    obj["spec"]["replicas"] = "3"
    obj["metadata"]["labels"] = {"app.kubernetes.io/version": 1.0}
    assert validate(obj) == [
        'Deployment/web: metadata.labels["app.kubernetes.io/version"]: must be string, '
        "not number 1.0",
        'Deployment/web: spec.replicas: must be integer, not string "3"',
    ]


def test_integers_are_whole_and_in_range() -> None:
    obj = deployment()
    obj["spec"]["replicas"] = 2.0
    obj["spec"]["template"]["spec"]["containers"][0]["ports"][0]["containerPort"] = 2**31
    obj["spec"]["progressDeadlineSeconds"] = True
    assert validate(obj) == [
        "Deployment/web: spec.progressDeadlineSeconds: must be integer, not boolean true",
        "Deployment/web: spec.replicas: must be integer, not number 2.0",
        "Deployment/web: spec.template.spec.containers[0].ports[0].containerPort: "
        "out of the int32 range: integer 2147483648",
    ]


def test_null_is_a_type_error() -> None:
    obj = deployment()
    obj["metadata"]["annotations"] = None
    assert validate(obj) == ["Deployment/web: metadata.annotations: must be object, not null"]


def test_missing_required_field_is_rejected() -> None:
    obj = deployment()
    del obj["spec"]["template"]["spec"]["containers"][0]["name"]
    del obj["spec"]["selector"]
    assert validate(obj) == [
        "Deployment/web: spec.selector: required",
        "Deployment/web: spec.template.spec.containers[0].name: required",
    ]


def test_apply_needs_api_version_kind_and_name() -> None:
    obj = deployment()
    del obj["metadata"]["name"]
    assert validate(obj) == ["Deployment/?: metadata.name: required"]
    del obj["metadata"]
    assert validate(obj) == ["Deployment/?: metadata: required"]
    assert validate({"kind": "Deployment", "metadata": {"name": "web"}}) == [
        "Deployment/web: (root): apiVersion and kind are required strings"
    ]


def test_the_schemas_have_no_enum_so_values_are_left_to_the_api_server() -> None:
    # Kubernetes 1.34.2 publishes allowed values only in descriptions. When a refresh brings
    # `enum` in, this fails: turn it into a test that a misspelt value is rejected.
    assert '"enum"' not in KUBERNETES_SCHEMAS.read_text()
    obj = service()
    obj["spec"]["type"] = "Loadbalancer"
    assert validate(obj) == []


@pytest.mark.parametrize("target_port", [8080, "http"])
def test_int_or_string_takes_both(target_port: int | str) -> None:
    assert validate(service(target_port)) == []


def test_int_or_string_takes_nothing_else() -> None:
    obj = service(8080.5)  # type: ignore[arg-type]
    obj["spec"]["ports"].append({"port": 81, "targetPort": None})
    assert validate(obj) == [
        "Service/web: spec.ports[0].targetPort: must be integer or string, not number 8080.5",
        "Service/web: spec.ports[1].targetPort: must be integer or string, not null",
    ]


def test_quantities_are_strings_in_quantity_form_or_numbers() -> None:
    obj = deployment()
    resources = obj["spec"]["template"]["spec"]["containers"][0]["resources"]
    resources["requests"] = {"cpu": 0.5, "memory": "1.5Gi", "ephemeral-storage": "2e9"}
    assert validate(obj) == []
    resources["limits"] = {"cpu": "1 core", "memory": "512MB"}
    assert validate(obj) == [
        "Deployment/web: spec.template.spec.containers[0].resources.limits.cpu: "
        'not a quantity (such as 500m, 128Mi, 2): string "1 core"',
        "Deployment/web: spec.template.spec.containers[0].resources.limits.memory: "
        'not a quantity (such as 500m, 128Mi, 2): string "512MB"',
    ]


def test_secret_data_must_be_base64() -> None:
    obj = next(obj for obj in VALID if obj["kind"] == "Secret")
    obj = copy.deepcopy(obj)
    obj["data"]["password"] = "hunter2!"
    assert validate(obj) == [
        'Secret/promoflow-git: data.password: not base64 (format byte): string "hunter2!"'
    ]


def test_date_time_must_be_rfc3339() -> None:
    obj = service()
    obj["metadata"]["creationTimestamp"] = "2025-11-11T19:00:37Z"
    assert validate(obj) == []
    obj["metadata"]["creationTimestamp"] = "2025-11-11 19:00"
    assert validate(obj) == [
        "Service/web: metadata.creationTimestamp: not an RFC 3339 date-time "
        '(format date-time): string "2025-11-11 19:00"'
    ]


def test_unknown_kind_is_reported() -> None:
    obj = {"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w"}}
    assert validate(obj) == [
        "Widget/w: no schema is known for apiVersion 'example.com/v1' kind 'Widget'"
    ]


def test_known_kind_under_another_api_version_is_reported() -> None:
    obj = {"apiVersion": "policy/v1beta1", "kind": "PodDisruptionBudget", "metadata": {"name": "p"}}
    assert validate(obj) == [
        "PodDisruptionBudget/p: no schema is known for apiVersion 'policy/v1beta1' "
        "kind 'PodDisruptionBudget' (known: policy/v1/PodDisruptionBudget)"
    ]


def test_argo_objects_are_checked_strictly() -> None:
    obj = yaml.safe_load((ROOT / "workflow_templates" / "promote.yaml").read_text())
    obj["spec"]["entrypiont"] = "promote"
    obj["spec"]["templates"][0]["name"] = 3
    assert validate(obj) == [
        "WorkflowTemplate/promoflow-promote: spec.entrypiont: unknown field",
        "WorkflowTemplate/promoflow-promote: spec.templates[0].name: must be string, not integer 3",
    ]


def test_validators_are_loaded_once() -> None:
    validate(deployment())
    first = schemas._kubernetes_validator("apps/v1", "Deployment")
    assert schemas._kubernetes_validator("apps/v1", "Deployment") is first
    assert schemas._kubernetes.cache_info().currsize == 1


def _extract_module() -> Any:
    script = KUBERNETES_SCHEMAS.parent / "extract.py"
    spec = importlib.util.spec_from_file_location("kubernetes_extract", script)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_vendored_file_covers_the_kinds() -> None:
    document = json.loads(KUBERNETES_SCHEMAS.read_text())
    extract = _extract_module()
    wanted = {f"{api}/{kind}" for api, kinds in extract.KINDS.items() for kind in kinds}
    assert set(document["kinds"]) == wanted
    assert set(document["kinds"].values()) <= set(document["components"]["schemas"])
