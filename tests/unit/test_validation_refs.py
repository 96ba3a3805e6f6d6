"""Validation of references between resources: products, policies, broken documents."""

from __future__ import annotations

from tests.unit.conftest import Workspace


def _product(ws: Workspace, body: str) -> None:
    """Write product.yaml; ``body`` starts on line 5 (inside ``spec``)."""
    ws.write(
        "product.yaml",
        "apiVersion: promoflow.dev/v1alpha1\nkind: Product\nmetadata: {name: shop}\nspec:\n" + body,
    )


REPO = "  repo: {url: https://git.example.com/gitops.git}\n"


def test_unknown_flow_and_template_with_suggestions(ws: Workspace) -> None:
    ws.write_base(product=False)
    _product(ws, REPO + "  flow: standrd\n  template: hlem\n")
    assert ws.problems() == [
        "product.yaml:6:3: error: unknown PromotionFlow 'standrd' (did you mean 'standard'?)",
        "product.yaml:7:3: error: unknown PromotionTemplate 'hlem' (did you mean 'helm'?)",
    ]


def test_unknown_reference_without_a_close_name_has_no_suggestion(ws: Workspace) -> None:
    ws.write_base(product=False)
    _product(ws, REPO + "  flow: zzz\n  template: helm\n")
    assert ws.problems() == ["product.yaml:6:3: error: unknown PromotionFlow 'zzz'"]


def test_applications_unknown_not_in_flow_and_listed_twice(ws: Workspace) -> None:
    ws.write_base(product=False, flow=False)
    ws.write(
        "flow.yaml",
        """
        apiVersion: promoflow.dev/v1alpha1
        kind: PromotionFlow
        metadata: {name: standard}
        spec:
          trigger: dev
          steps: [{environment: staging, dependsOn: [dev]}]
        """,
    )
    _product(
        ws,
        REPO + "  flow: standard\n  template: helm\n  applications:\n"
        "    - {environment: stagin}\n"
        "    - {environment: prod}\n"
        "    - {environment: staging}\n"
        "    - {environment: staging, argocdApp: shop-staging-2}\n",
    )
    assert ws.problems() == [
        "product.yaml:9:8: error: unknown environment 'stagin' (did you mean 'staging'?)",
        "product.yaml:10:8: error: environment 'prod' is not in flow 'standard'; remove it",
        "product.yaml:12:8: error: application for 'staging' is listed twice",
    ]


def test_policy_selector_names_unknown(ws: Workspace) -> None:
    ws.write_base()
    ws.write(
        "policy.yaml",
        """
        apiVersion: promoflow.dev/v1alpha1
        kind: PromotionPolicy
        metadata: {name: eu}
        spec:
          selector:
            environments:
              names: [dev, prd]
            products: [shp, shop]
          policy: {action: commit}
        """,
    )
    assert ws.problems() == [
        "policy.yaml:7:20: error: unknown environment 'prd' (did you mean 'prod'?)",
        "policy.yaml:8:16: error: unknown product 'shp' (did you mean 'shop'?)",
    ]


def test_document_that_failed_to_load_is_not_reported_again_as_unknown(ws: Workspace) -> None:
    ws.write_base(product=False)
    ws.write(
        "broken.yaml",
        """
        apiVersion: promoflow.dev/v1alpha1
        kind: PromotionFlow
        metadata: {name: fast}
        spec:
          trigger: dev
          stepz: []
        ---
        apiVersion: promoflow.dev/v1alpha1
        kind: PromotionTemplate
        metadata: {name: raw}
        spec:
          files: [{file: ../secrets.yaml}]
        ---
        apiVersion: promoflow.dev/v1alpha1
        kind: Environment
        metadata: {name: qa}
        spec: {prodution: true}
        """,
    )
    _product(
        ws,
        REPO + "  flow: fast\n  template: raw\n  applications: [{environment: qa}]\n",
    )
    ws.write(
        "policy.yaml",
        """
        apiVersion: promoflow.dev/v1alpha1
        kind: PromotionPolicy
        metadata: {name: qa}
        spec:
          selector: {environments: {names: [qa]}}
          policy: {action: none}
        """,
    )
    assert ws.problems() == [
        "broken.yaml:6:3: error: unknown field 'spec.stepz' (did you mean 'steps'?)",
        "broken.yaml:12:12: error: spec.files[0].file: '../secrets.yaml' escapes the product "
        "directory ('..' is not allowed)",
        "broken.yaml:17:8: error: unknown field 'spec.prodution' (did you mean 'production'?)",
    ]


def test_every_problem_of_every_file_at_once_sorted_by_position(ws: Workspace) -> None:
    ws.write_base(product=False, flow=False)
    ws.write(
        "b-flow.yaml",
        """
        apiVersion: promoflow.dev/v1alpha1
        kind: PromotionFlow
        metadata: {name: standard}
        spec:
          trigger: dev
          steps:
            - {environment: staging, dependsOn: [dev, prod]}
            - {environment: prod, dependsOn: [staging]}
            - {environment: qa, dependsOn: [dev]}
        """,
    )
    ws.write(
        "a-product.yaml",
        """
        apiVersion: promoflow.dev/v1alpha1
        kind: Product
        metadata: {name: Shop}
        spec:
          repo: {url: https://git.example.com/gitops.git}
          flow: standard
          template: helm
        ---
        apiVersion: promoflow.dev/v1alpha1
        kind: Product
        metadata: {name: cart}
        spec:
          repo: {url: https://git.example.com/gitops.git, brnch: main}
          flow: standard
          template: chart
        """,
    )
    assert ws.problems() == [
        "a-product.yaml:3:12: error: metadata.name: 'Shop' is not a valid name: use lowercase "
        "letters, digits and '-', starting and ending with a letter or digit (RFC 1123 label)",
        "a-product.yaml:13:51: error: unknown field 'spec.repo.brnch' (did you mean 'branch'?)",
        "b-flow.yaml:7:30: error: dependsOn cycle: staging -> prod -> staging",
        "b-flow.yaml:9:8: error: unknown environment 'qa'",
    ]
