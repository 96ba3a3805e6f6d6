"""Validation of PromotionPolicies: equal-priority conflicts and what is not one."""

from __future__ import annotations

import pytest

from tests.unit.conftest import Workspace


def _policies(ws: Workspace, first: str, second: str) -> None:
    """policies.yaml with policies ``first`` and ``second``; the arguments are their specs."""
    ws.write(
        "policies.yaml",
        f"""\
apiVersion: promoflow.dev/v1alpha1
kind: PromotionPolicy
metadata: {{name: first}}
spec:
{first}
---
apiVersion: promoflow.dev/v1alpha1
kind: PromotionPolicy
metadata: {{name: second}}
spec:
{second}
""",
    )


def test_equal_priority_policies_that_disagree_conflict(ws: Workspace) -> None:
    ws.write_base()
    _policies(
        ws,
        "  priority: 5\n  policy: {action: commit}",
        "  priority: 5\n  policy: {action: pull-request}",
    )
    # Reported once, for the first environment of the first product where both apply.
    assert ws.problems() == [
        "policies.yaml:12:3: error: policies 'first' and 'second' both have priority 5, both "
        "apply to shop/dev and set 'action' differently; give one a higher priority"
    ]


def test_equal_priority_gates_of_one_kind_that_differ_conflict(ws: Workspace) -> None:
    ws.write_base()
    _policies(
        ws,
        "  priority: 1\n  selector: {environments: {production: true}}\n"
        "  policy: {gates: [{soak: {duration: 30m}}]}",
        "  priority: 1\n  policy: {gates: [{soak: {duration: 1h}}]}",
    )
    assert ws.problems() == [
        "policies.yaml:13:3: error: policies 'first' and 'second' both have priority 1, both "
        "apply to shop/prod and set 'gates.soak' differently; give one a higher priority"
    ]


def test_a_gate_and_disabling_it_at_equal_priority_conflict(ws: Workspace) -> None:
    ws.write_base()
    _policies(
        ws,
        "  priority: 0\n  policy: {gates: [{sync: {timeout: 5m}}]}",
        "  priority: 0\n  policy: {disableGates: [sync]}",
    )
    assert ws.problems() == [
        "policies.yaml:12:3: error: policies 'first' and 'second' both have priority 0, both "
        "apply to shop/dev and set 'gates.sync' differently; give one a higher priority"
    ]


@pytest.mark.parametrize(
    ("first", "second"),
    [
        pytest.param(
            "  priority: 5\n  policy: {action: commit}",
            "  priority: 6\n  policy: {action: pull-request}",
            id="different-priorities",
        ),
        pytest.param(
            "  priority: 5\n  policy: {action: pull-request, gates: [{sync: {timeout: 15m}}]}",
            "  priority: 5\n  policy: {action: pull-request, gates: [{sync: {timeout: 900}}]}",
            id="equal-priority-agreeing",
        ),
        pytest.param(
            "  priority: 5\n  policy: {action: commit}",
            "  priority: 5\n  policy: {gates: [{health: {}}]}",
            id="equal-priority-different-fields",
        ),
        pytest.param(
            "  priority: 5\n  selector: {environments: {production: true}}\n"
            "  policy: {action: commit}",
            "  priority: 5\n  selector: {environments: {production: false}}\n"
            "  policy: {action: pull-request}",
            id="equal-priority-disjoint-selectors",
        ),
        pytest.param(
            "  priority: 5\n  selector: {products: [other]}\n  policy: {action: commit}",
            "  priority: 5\n  selector: {products: [shop]}\n  policy: {action: pull-request}",
            id="equal-priority-different-products",
        ),
        pytest.param(
            "  priority: 5\n  policy: {gates: [{http: {url: 'https://a.example.com'}}]}",
            "  priority: 5\n  policy: {gates: [{http: {url: 'https://b.example.com'}}]}",
            id="http-checks-of-different-urls",
        ),
    ],
)
def test_no_conflict(ws: Workspace, first: str, second: str) -> None:
    ws.write_base()
    ws.write(
        "other.yaml",
        """
        apiVersion: promoflow.dev/v1alpha1
        kind: Product
        metadata: {name: other}
        spec:
          repo: {url: https://git.example.com/gitops.git}
          flow: standard
          template: helm
        """,
    )
    _policies(ws, first, second)
    assert ws.problems() == []


def test_conflict_without_a_priority_key_points_at_the_spec(ws: Workspace) -> None:
    ws.write_base()
    _policies(ws, "  policy: {action: none}", "  policy: {action: commit}")
    assert ws.problems() == [
        "policies.yaml:10:1: error: policies 'first' and 'second' both have priority 0, both "
        "apply to shop/dev and set 'action' differently; give one a higher priority"
    ]
