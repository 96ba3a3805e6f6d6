"""The approver check that runs in the workflow after an approval (pure).

The label values are what a real Argo Server (v4.0.5, built here) wrote for a ``set`` made
with a service account token: ``system-serviceaccount-argo-promoflow-e2e-other``.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from orchestrator.actors import ACTOR, ACTOR_EMAIL, ACTOR_USERNAME, dns_friendly
from orchestrator.approvers import Verdict, label_forms, parse_approvers, verify

STARTED, ANSWERED = "2026-11-23T20:37:54Z", "2026-11-23T20:38:02Z"
WEEK = 7 * 86400.0
SEEN_ON_ARGO = "system-serviceaccount-argo-promoflow-e2e-other"


@pytest.mark.parametrize(
    ("text", "label"),
    [
        ("system:serviceaccount:argo:promoflow-e2e-other", SEEN_ON_ARGO),
        ("alice.at.example.com", "alice.at.example.com"),
        ("Bob Smith", "Bob-Smith"),
        ("--x--", "x"),
        ("a" * 70 + "@example.com", ("a" * 70 + "-example.com")[-63:]),
    ],
)
def test_dns_friendly_writes_identities_as_argo_does(text: str, label: str) -> None:
    assert dns_friendly(text) == label


def test_entries_match_the_forms_argo_records() -> None:
    assert label_forms("user:alice@example.com") == {"alice-example.com", "alice.at.example.com"}
    assert label_forms("system:serviceaccount:argo:promoflow-e2e-other") == {SEEN_ON_ARGO}
    assert parse_approvers(" user:a , user:b;c ") == ["user:a", "user:b", "c"]


def test_a_listed_service_account_may_approve() -> None:
    verdict = verify(
        "prod-eu",
        ["user:alice@example.com", "user:system:serviceaccount:argo:promoflow-e2e-other"],
        {ACTOR: SEEN_ON_ARGO},
        STARTED,
        ANSWERED,
        WEEK,
    )
    assert verdict.approved
    assert verdict.message == f"approved by {SEEN_ON_ARGO} (an approver of prod-eu)"


def test_an_sso_user_is_named_by_email() -> None:
    labels = {ACTOR: "Cg0xMjM0", ACTOR_EMAIL: "alice.at.example.com", ACTOR_USERNAME: "alice"}
    verdict = verify("prod-eu", ["alice@example.com"], labels, STARTED, ANSWERED, WEEK)
    assert verdict.approved and "alice.at.example.com" in verdict.message
    by_name = verify("prod-eu", ["user:alice"], labels, STARTED, ANSWERED, WEEK)
    assert by_name.approved


def test_someone_else_is_refused_with_who_and_the_list() -> None:
    verdict = verify(
        "prod-eu", ["user:alice@example.com"], {ACTOR: SEEN_ON_ARGO}, STARTED, ANSWERED, WEEK
    )
    assert not verdict.approved
    assert verdict.message == (
        f"{SEEN_ON_ARGO} may not approve prod-eu (approvers: user:alice@example.com)"
    )


def test_an_answer_without_a_recorded_user_does_not_promote() -> None:
    verdict = verify("prod-eu", ["user:alice"], {}, STARTED, ANSWERED, WEEK)
    assert not verdict.approved
    assert "cannot be established" in verdict.message and "argo node set" in verdict.message


def test_group_entries_never_match_a_user() -> None:
    verdict = verify("prod-eu", ["group:sre"], {ACTOR: "sre"}, STARTED, ANSWERED, WEEK)
    assert not verdict.approved


@pytest.mark.parametrize("answered", ["2026-11-30T20:37:54Z", "2026-11-30T20:37:53Z"])
def test_a_node_resumed_by_its_timeout_is_not_an_approval(answered: str) -> None:
    """Argo auto-resumes at the deadline with whatever was set (``set`` without a phase
    leaves the node running): that is nobody's approval."""
    verdict = verify("prod-eu", ["user:alice"], {ACTOR: "alice"}, STARTED, answered, WEEK)
    assert not verdict.approved and "before the timeout" in verdict.message


def test_unreadable_times_fail_closed() -> None:
    verdict = verify("prod-eu", ["user:alice"], {ACTOR: "alice"}, "", "{{x}}", WEEK)
    assert not verdict.approved


def test_with_no_approvers_to_check_a_timely_yes_goes_on() -> None:
    """The approver step runs after every YES, so that nothing after it reads the outputs
    of an approval that may have been skipped; with nobody listed it only names who
    answered."""
    labels = {ACTOR: "Cg0xMjM0", ACTOR_EMAIL: "alice.at.example.com"}
    verdict = verify("prod-eu", [], labels, STARTED, ANSWERED, WEEK)
    assert verdict == Verdict(
        True, "approved by alice.at.example.com (no approvers of prod-eu to check)"
    )
    unknown = verify("prod-eu", [], {}, STARTED, ANSWERED, WEEK)
    assert unknown == Verdict(True, "approved (no approvers of prod-eu to check)")


def test_with_no_approvers_a_node_resumed_by_its_timeout_still_does_not_promote() -> None:
    verdict = verify("prod-eu", [], {ACTOR: "alice"}, STARTED, "2026-11-30T20:37:54Z", WEEK)
    assert not verdict.approved and "before the timeout" in verdict.message


def test_the_step_passes_a_yes_with_nobody_to_check(tmp_path: Path) -> None:
    from tests.unit.invoke import invoke

    result = invoke(
        "step", "approver", "--environment", "prod", "--approvers", "",
        "--labels", json.dumps({ACTOR_USERNAME: "alice"}), "--started-at", STARTED,
        "--finished-at", ANSWERED, "--outputs", str(tmp_path),
    )  # fmt: skip
    assert result.code == 0, result.output
    assert json.loads(result.stdout) == {
        "approved": True,
        "reason": "approved by alice (no approvers of prod to check)",
    }
    assert (tmp_path / "approved-by").read_text() == (
        "approved by alice (no approvers of prod to check)"
    )
