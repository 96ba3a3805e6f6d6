"""A promoflow document with a mistyped apiVersion is an error, never silently ignored;
other projects' documents (even of a kind with the same name) are left alone."""

from __future__ import annotations

import pytest

from orchestrator.loading.ours import near_miss, worth_reading
from tests.support.cli import EXAMPLES, promoflow
from tests.unit.conftest import Workspace
from tests.unit.invoke import assert_clean_failure, invoke

EXPECTED = "(expected 'promoflow.dev/v1alpha1')"
POLICY = """\
apiVersion: {api_version}
kind: PromotionPolicy
metadata: {{name: production}}
spec:
  priority: 10
  selector: {{environments: {{production: true}}}}
  policy:
    gates:
      - approval: {{approvers: ["group:sre"]}}
"""


@pytest.mark.parametrize(
    "api_version",
    [
        "promoflow.io/v1alpha1",
        "promoflow.dev/v1",
        "promoflow.dev/v1alpha2",
        "Promoflow.dev/v1alpha1",
        "promoflow.dev",
        "promflow.dev/v1alpha1",
        "promoflow.de/v1alpha1",
    ],
)
def test_a_mistyped_api_version_is_an_error_through_the_cli(
    ws: Workspace, api_version: str
) -> None:
    """The user's report: the production approvals vanished and validate said "valid"."""
    ws.write_base()
    ws.write("policy.yaml", POLICY.format(api_version=api_version))
    result = invoke("validate", "-c", ".")
    assert_clean_failure(result, 1)
    assert result.lines == [
        f"policy.yaml:1:1: error: unsupported apiVersion {api_version!r} {EXPECTED}"
    ]


@pytest.mark.parametrize("api_version", ["v1", "apps/v1", "argoproj.io/v1alpha1", "example.com/v2"])
@pytest.mark.parametrize(
    "kind", ["PromotionPolicy", "PromotionFlow", "PromotionTemplate", "PromotionWindow"]
)
def test_a_promoflow_only_kind_under_another_api_version_is_an_error(
    ws: Workspace, api_version: str, kind: str
) -> None:
    """The report: a PromotionPolicy under ``v1`` took the production approvals from 10
    to 0 and validate exited 0. No other project defines these kinds, so whatever the
    apiVersion, the document is promoflow's and its apiVersion is wrong."""
    ws.write_base()
    ws.write(
        "own.yaml",
        POLICY.format(api_version=api_version).replace("kind: PromotionPolicy", f"kind: {kind}"),
    )
    result = invoke("validate", "-c", ".")
    assert_clean_failure(result, 1)
    assert result.lines == [
        f"own.yaml:1:1: error: unsupported apiVersion {api_version!r} {EXPECTED}"
    ]


def test_a_policy_under_another_api_version_beside_other_manifests_is_reported(
    ws: Workspace,
) -> None:
    """In a file of other projects' manifests too (a GitOps repository's ``prod.yaml``)."""
    ws.write_base()
    ws.write(
        "prod.yaml",
        "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\n---\n"
        + POLICY.format(api_version="apps/v1"),
    )
    assert ws.problems() == [f"prod.yaml:5:1: error: unsupported apiVersion 'apps/v1' {EXPECTED}"]


def test_a_file_whose_only_document_is_mistyped_is_still_read(ws: Workspace) -> None:
    """The loader skips files without ``promoflow.dev/`` early; a typo must not hide one."""
    ws.write("policy.yaml", POLICY.format(api_version="promoflow.io/v1alpha1"))
    assert ws.problems() == [
        f"policy.yaml:1:1: error: unsupported apiVersion 'promoflow.io/v1alpha1' {EXPECTED}"
    ]


def test_a_mistyped_policy_no_longer_vanishes_from_compile(ws: Workspace) -> None:
    ws.write_base()
    ws.write("policy.yaml", POLICY.format(api_version="promoflow.io/v1alpha1"))
    result = promoflow("compile", "-c", ".", "-p", "shop", cwd=ws.root)
    assert (result.returncode, result.stdout) == (1, "")
    assert "unsupported apiVersion 'promoflow.io/v1alpha1'" in result.stderr


def test_missing_api_version_of_an_own_kind_is_an_error_in_any_file(ws: Workspace) -> None:
    ws.write("policy.yaml", POLICY.format(api_version="").replace("apiVersion: \n", ""))
    assert ws.problems() == [f"policy.yaml:1:1: error: missing apiVersion {EXPECTED}"]


def test_missing_api_version_beside_promoflow_documents_is_an_error(ws: Workspace) -> None:
    ws.write(
        "envs.yaml",
        """
        apiVersion: promoflow.dev/v1alpha1
        kind: Environment
        metadata: {name: dev}
        ---
        kind: Environment
        metadata: {name: staging}
        """,
    )
    assert ws.problems() == [f"envs.yaml:5:1: error: missing apiVersion {EXPECTED}"]


@pytest.mark.parametrize(
    "text",
    [
        "apiVersion: apps.example.com/v1\nkind: Environment\nmetadata: {name: Not_A_Name}\n",
        "apiVersion: promotion.dev/v1\nkind: Product\nmetadata: {name: x}\nspec: 42\n",
        "kind: Environment\nname: values for a Helm chart\n",
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\ndata: {a: '[[[['}\n",
        "apiVersion: promflow.dev/v1\nkind: Deployment\nmetadata: {name: x}\n",
    ],
    ids=["other-group", "similar-but-other-group", "helm-values", "configmap", "other-kind"],
)
def test_other_projects_documents_are_left_alone(ws: Workspace, text: str) -> None:
    ws.write_base()
    ws.write("other.yaml", text)
    assert ws.problems() == []


def test_the_examples_still_validate() -> None:
    result = invoke("validate", "-c", str(EXAMPLES))
    assert (result.code, result.stderr) == (0, "")


@pytest.mark.parametrize(
    ("group", "typo"),
    [
        ("promflow.dev/v1", True),
        ("pormoflow.dev/v1", True),
        ("promoflow-dev/v1", True),
        ("promoflow.dev/v1", False),  # the right group: "mentions promoflow" decides
        ("promotion.dev/v1", False),
        ("monoflow.dev/v1", False),
        ("argoproj.io/v1alpha1", False),
        ("v1", False),
    ],
)
def test_near_miss_groups(group: str, typo: bool) -> None:
    assert near_miss(group) is typo


def test_the_prefilter_reads_flow_style_and_quoted_documents() -> None:
    assert worth_reading('{"apiVersion": "promoflow.io/v1", "kind": "Product"}')
    assert worth_reading("  'apiVersion': 'Promoflow.dev/v1alpha1'\n")
    assert worth_reading("kind: PromotionFlow\n")
    assert not worth_reading("apiVersion: apps/v1\nkind: Environment\n")
