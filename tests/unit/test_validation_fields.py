"""Validation of single documents: fields, names, file paths, YAML paths, kinds, versions."""

from __future__ import annotations

import pytest

from tests.unit.conftest import Workspace

RFC1123 = (
    "is not a valid name: use lowercase letters, digits and '-', starting and ending with "
    "a letter or digit (RFC 1123 label)"
)


def test_unknown_field_suggests_the_field_meant(ws: Workspace) -> None:
    ws.write(
        "env.yaml",
        """
        apiVersion: promoflow.dev/v1alpha1
        kind: Environment
        metadata: {name: dev}
        spec:
          prodution: true
          clusters:
            - name: in-cluster
              namespace: [shop]
        """,
    )
    assert ws.problems() == [
        "env.yaml:5:3: error: unknown field 'spec.prodution' (did you mean 'production'?)",
        "env.yaml:8:7: error: unknown field 'spec.clusters[0].namespace' "
        "(did you mean 'namespaces'?)",
    ]


def test_unknown_field_in_a_policy_gate_and_snake_case_key(ws: Workspace) -> None:
    ws.write(
        "policy.yaml",
        """
        apiVersion: promoflow.dev/v1alpha1
        kind: PromotionPolicy
        metadata: {name: p}
        spec:
          policy:
            pre_action: {workflowTemplate: smoke}
            gates:
              - http: {url: "https://example.com", expect_status: 204}
        """,
    )
    assert ws.problems() == [
        "policy.yaml:6:5: error: unknown field 'spec.policy.pre_action' "
        "(did you mean 'preAction'?)",
        "policy.yaml:8:44: error: unknown field 'spec.policy.gates[0].http.expect_status' "
        "(did you mean 'expectStatus'?)",
    ]


def test_unknown_field_without_a_close_match(ws: Workspace) -> None:
    ws.write(
        "env.yaml",
        """
        apiVersion: promoflow.dev/v1alpha1
        kind: Environment
        metadata: {name: dev, owner: me}
        """,
    )
    assert ws.problems() == ["env.yaml:3:23: error: unknown field 'metadata.owner'"]


def test_missing_required_fields(ws: Workspace) -> None:
    ws.write(
        "flow.yaml",
        """
        apiVersion: promoflow.dev/v1alpha1
        kind: PromotionFlow
        metadata: {name: f}
        spec:
          steps: []
        """,
    )
    assert ws.problems() == ["flow.yaml:4:1: error: missing required field 'spec.trigger'"]


@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("Dev", f"'Dev' {RFC1123}"),
        ("my_env", f"'my_env' {RFC1123}"),
        ("-dev", f"'-dev' {RFC1123}"),
        ("dev-", f"'dev-' {RFC1123}"),
        ("a" * 64, f"'{'a' * 64}' is not a valid name: at most 63 characters (has 64)"),
    ],
)
def test_invalid_kubernetes_names(ws: Workspace, name: str, message: str) -> None:
    ws.write(
        "env.yaml",
        f"""
        apiVersion: promoflow.dev/v1alpha1
        kind: Environment
        metadata:
          name: {name}
        """,
    )
    assert ws.problems() == [f"env.yaml:4:3: error: metadata.name: {message}"]


def test_longest_valid_name_is_accepted(ws: Workspace) -> None:
    ws.write(
        "env.yaml",
        f"""
        apiVersion: promoflow.dev/v1alpha1
        kind: Environment
        metadata: {{name: {"a" * 62}9}}
        """,
    )
    assert ws.problems() == []


def test_names_inside_specs_are_checked_too(ws: Workspace) -> None:
    ws.write(
        "flow.yaml",
        """
        apiVersion: promoflow.dev/v1alpha1
        kind: PromotionFlow
        metadata: {name: f}
        spec:
          trigger: Dev
          steps:
            - {environment: staging, dependsOn: [dev_1]}
        """,
    )
    assert ws.problems() == [
        f"flow.yaml:5:3: error: spec.trigger: 'Dev' {RFC1123}",
        f"flow.yaml:7:42: error: spec.steps[0].dependsOn[0]: 'dev_1' {RFC1123}",
    ]


TEMPLATE_HEAD = """\
apiVersion: promoflow.dev/v1alpha1
kind: PromotionTemplate
metadata: {name: t}
spec:
  files:
"""


@pytest.mark.parametrize(
    ("file", "message"),
    [
        ("../values.yaml", "'../values.yaml' escapes the product directory ('..' is not allowed)"),
        ("a/../../b.yaml", "'a/../../b.yaml' escapes the product directory ('..' is not allowed)"),
        ("/etc/passwd", "'/etc/passwd' is absolute: files are relative to the product directory"),
        ("'config\\app.yaml'", "'config\\\\app.yaml': use '/' to separate directories"),
        ("' '", "file cannot be empty"),
    ],
)
def test_template_files_must_stay_inside_the_product_directory(
    ws: Workspace, file: str, message: str
) -> None:
    ws.write("t.yaml", TEMPLATE_HEAD + f"    - file: {file}\n")
    assert ws.problems() == [f"t.yaml:6:7: error: spec.files[0].file: {message}"]


def test_template_version_source_and_application_paths_are_checked(ws: Workspace) -> None:
    ws.write(
        "t.yaml",
        """
        apiVersion: promoflow.dev/v1alpha1
        kind: PromotionTemplate
        metadata: {name: t}
        spec:
          versionSource: {file: /values.yaml, path: image.tag}
          files: [{file: "config/*.json"}, {file: ./values.yaml}]
        ---
        apiVersion: promoflow.dev/v1alpha1
        kind: Product
        metadata: {name: shop}
        spec:
          repo: {url: https://git.example.com/gitops.git}
          flow: f
          template: t
          applications:
            - {environment: dev, path: ../../other}
        """,
    )
    assert ws.problems() == [
        "t.yaml:5:19: error: spec.versionSource.file: '/values.yaml' is absolute: "
        "files are relative to the product directory",
        "t.yaml:16:26: error: spec.applications[0].path: '../../other' escapes the product "
        "directory ('..' is not allowed)",
    ]


@pytest.mark.parametrize(
    ("path", "message"),
    [
        (
            "image..tag",
            "invalid YAML path 'image..tag' at character 7: expected a key "
            "(letters, digits, '_', '-', '/', or a quoted key)",
        ),
        (
            "image.",
            "invalid YAML path 'image.' at character 7: expected a key "
            "(letters, digits, '_', '-', '/', or a quoted key)",
        ),
        (
            "'x['",
            "invalid YAML path 'x[' at character 2: expected an index [0] or a selector "
            "[field=value]",
        ),
        ("'a b'", "invalid YAML path 'a b' at character 2: expected '.' or '['"),
        (
            "'[0]'",
            "invalid YAML path '[0]' at character 1: expected a key "
            "(letters, digits, '_', '-', '/', or a quoted key)",
        ),
        ("''", "a YAML path cannot be empty"),
    ],
)
def test_invalid_yaml_paths(ws: Workspace, path: str, message: str) -> None:
    ws.write("t.yaml", TEMPLATE_HEAD + "    - file: values.yaml\n      paths:\n")
    with (ws.root / "t.yaml").open("a") as f:
        f.write(f"        - image.digest\n        - {path}\n")
    assert ws.problems() == [f"t.yaml:9:11: error: spec.files[0].paths[1]: {message}"]


def test_valid_yaml_paths_are_accepted(ws: Workspace) -> None:
    ws.write(
        "t.yaml",
        TEMPLATE_HEAD
        + "    - file: values.yaml\n"
        + "      paths: [image.tag, 'containers[0].image', '\"app.kubernetes.io/name\"',"
        + " 'a-b/c_d[1][2]']\n",
    )
    assert ws.problems() == []


def test_gate_has_exactly_one_kind(ws: Workspace) -> None:
    ws.write(
        "policy.yaml",
        """
        apiVersion: promoflow.dev/v1alpha1
        kind: PromotionPolicy
        metadata: {name: p}
        spec:
          policy:
            gates:
              - {sync: {timeout: 5m}, health: {}}
              - {}
              - http: {url: "https://example.com", equals: ok}
              - http: {url: "ftp://example.com"}
        """,
    )
    assert ws.problems() == [
        "policy.yaml:7:9: error: spec.policy.gates[0]: a gate has exactly one of: "
        "approval, health, http, soak, sync (got 2)",
        "policy.yaml:8:9: error: spec.policy.gates[1]: a gate has exactly one of: "
        "approval, health, http, soak, sync (got 0)",
        "policy.yaml:9:9: error: spec.policy.gates[2].http: 'equals' needs 'jsonpath': "
        "the value to compare with",
        "policy.yaml:10:16: error: spec.policy.gates[3].http.url: not an http(s) URL: "
        "it must start with http:// or https://",
    ]


def test_bad_duration_and_action(ws: Workspace) -> None:
    ws.write(
        "policy.yaml",
        """
        apiVersion: promoflow.dev/v1alpha1
        kind: PromotionPolicy
        metadata: {name: p}
        spec:
          policy:
            action: merge
            gates: [{soak: {duration: 30 minutes}}]
        """,
    )
    assert ws.problems() == [
        "policy.yaml:6:5: error: spec.policy.action: Input should be 'commit', 'pull-request' "
        "or 'none'",
        "policy.yaml:7:21: error: spec.policy.gates[0].soak.duration: '30 minutes' is not a "
        "duration: use numbers with units ms, s, m, h, d, e.g. '15m'",
    ]


def test_unsupported_api_version(ws: Workspace) -> None:
    ws.write(
        "env.yaml",
        """
        kind: Environment
        apiVersion: promoflow.dev/v1beta1
        metadata: {name: dev}
        """,
    )
    assert ws.problems() == [
        "env.yaml:2:1: error: unsupported apiVersion 'promoflow.dev/v1beta1' "
        "(expected 'promoflow.dev/v1alpha1')"
    ]


def test_unknown_kind_suggests_a_kind_and_lists_them(ws: Workspace) -> None:
    ws.write(
        "env.yaml",
        """
        apiVersion: promoflow.dev/v1alpha1
        kind: Enviroment
        metadata: {name: dev}
        ---
        apiVersion: promoflow.dev/v1alpha1
        metadata: {name: staging}
        """,
    )
    kinds = (
        "Environment, Product, PromotionFlow, PromotionPolicy, PromotionTemplate, PromotionWindow"
    )
    assert ws.problems() == [
        f"env.yaml:2:1: error: unknown kind 'Enviroment' (did you mean 'Environment'?); "
        f"one of: {kinds}",
        f"env.yaml:5:1: error: missing kind; one of: {kinds}",
    ]


def test_missing_api_version_on_a_promoflow_kind(ws: Workspace) -> None:
    ws.write(
        "env.yaml",
        """
        apiVersion: promoflow.dev/v1alpha1
        kind: Environment
        metadata: {name: dev}
        ---
        kind: Environment
        metadata: {name: staging}
        """,
    )
    assert ws.problems() == [
        "env.yaml:5:1: error: missing apiVersion (expected 'promoflow.dev/v1alpha1')"
    ]
