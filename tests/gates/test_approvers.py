"""The approver check that runs in the workflow after an approval and judges its answer
(pure): a YES in time from an approver goes on; a NO, the timeout, a resume without an
answer, or someone not listed stops the environment, saying which and who.

The label values are what a real Argo Server (v4.0.5, built here) wrote for a ``set`` made
with a service account token: ``system-serviceaccount-argo-promoflow-e2e-other``.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from orchestrator.actors import ACTOR, ACTOR_EMAIL, ACTOR_USERNAME, dns_friendly, email_shown
from orchestrator.approvers import Answered, Verdict, label_forms, parse_approvers, verify

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


def answered(
    approvers: list[str],
    labels: dict[str, str],
    answer: str = "YES",
    *,
    env: str = "prod-eu",
    started: str = STARTED,
    finished: str = ANSWERED,
) -> Verdict:
    return verify(Answered(env, answer, labels, started, finished, "168h", WEEK), approvers)


def test_a_listed_service_account_may_approve() -> None:
    verdict = answered(
        ["user:alice@example.com", "user:system:serviceaccount:argo:promoflow-e2e-other"],
        {ACTOR: SEEN_ON_ARGO},
    )
    # named as the policy lists it, not in the label form Argo had to write it in
    assert verdict == Verdict(
        True,
        "prod-eu approved by system:serviceaccount:argo:promoflow-e2e-other "
        "(an approver of prod-eu)",
    )


def test_an_sso_user_is_named_by_email() -> None:
    labels = {ACTOR: "Cg0xMjM0", ACTOR_EMAIL: "alice.at.example.com", ACTOR_USERNAME: "alice"}
    verdict = answered(["alice@example.com"], labels)
    assert verdict == Verdict(
        True, "prod-eu approved by alice@example.com (an approver of prod-eu)"
    )
    assert answered(["user:alice"], labels) == Verdict(
        True, "prod-eu approved by alice (an approver of prod-eu)"
    )


@pytest.mark.parametrize(
    ("label", "shown"),
    [
        ("alice.at.example.com", "alice@example.com"),
        ("john.at.work.at.example.com", "john.at.work@example.com"),
        ("ops.at.example.at", "ops@example.at"),
        ("alice-example.com", "alice-example.com"),  # not Argo's form: shown as recorded
        (".at.", ".at."),
    ],
)
def test_an_unlisted_email_is_shown_with_its_at_sign(label: str, shown: str) -> None:
    """Someone not listed has no entry to be named by: the e-mail label is read back."""
    assert email_shown(label) == shown
    verdict = answered(["user:bob@example.com"], {ACTOR: "x", ACTOR_EMAIL: label})
    assert verdict.message.startswith(f"{shown} may not approve prod-eu")


def test_someone_else_is_refused_with_who_and_the_list() -> None:
    verdict = answered(["user:alice@example.com"], {ACTOR: SEEN_ON_ARGO})
    assert verdict == Verdict(
        False, f"{SEEN_ON_ARGO} may not approve prod-eu (approvers: user:alice@example.com)"
    )


def test_an_answer_without_a_recorded_user_does_not_promote() -> None:
    verdict = answered(["user:alice"], {})
    assert not verdict.approved
    assert "cannot be established" in verdict.message and "argo node set" in verdict.message


def test_group_entries_never_match_a_user() -> None:
    assert not answered(["group:sre"], {ACTOR: "sre"}).approved


@pytest.mark.parametrize("approvers", [[], ["user:alice"]])
def test_a_no_stops_the_environment_with_who(approvers: list[str]) -> None:
    """A NO from anyone stops it (failing closed), whoever is listed; the reason, when one
    was given, is the approval node's message."""
    labels = {ACTOR: "x", ACTOR_EMAIL: "alice.at.example.com"}
    verdict = answered(approvers, labels, "NO")
    assert verdict == Verdict(
        False, "prod-eu rejected by alice@example.com (approve-prod-eu says why)"
    )
    bare = answered(approvers, {}, "NO")
    assert bare == Verdict(False, "prod-eu rejected by an unknown user (approve-prod-eu says why)")


def test_a_resume_without_an_answer_is_not_an_answer() -> None:
    """The workflow's RESUME button resumes every waiting node with its outputs' defaults:
    an empty answer before the timeout; the Argo Server labels who pressed it."""
    verdict = answered([], {ACTOR_USERNAME: "bob"}, "")
    assert verdict == Verdict(
        False, "resumed without an answer by bob: answer approve-prod-eu with YES or NO"
    )
    assert answered(["user:bob"], {}, "").message == (
        "resumed without an answer: answer approve-prod-eu with YES or NO"
    )


@pytest.mark.parametrize("answer", ["", "YES"])
@pytest.mark.parametrize("finished", ["2026-11-30T20:37:54Z", "2026-11-30T20:37:53Z"])
def test_a_node_resumed_by_its_timeout_is_not_an_approval(answer: str, finished: str) -> None:
    """Argo auto-resumes at the deadline with the empty default, or with a value someone
    set without resuming the node: neither is anybody's approval."""
    verdict = answered(["user:alice"], {ACTOR: "alice"}, answer, finished=finished)
    assert verdict == Verdict(
        False,
        "prod-eu not promoted: no answer to its approval within 168h (a value set without "
        "resuming the node is not an answer)",
    )


def test_an_answer_other_than_yes_or_no_stops_it() -> None:
    verdict = answered([], {ACTOR: "alice"}, "yes")
    assert verdict == Verdict(False, "the approval of prod-eu was answered 'yes', not YES or NO")


def test_unreadable_times_fail_closed() -> None:
    assert not answered(["user:alice"], {ACTOR: "alice"}, started="", finished="{{x}}").approved


def test_with_no_approvers_to_check_a_timely_yes_goes_on() -> None:
    labels = {ACTOR: "Cg0xMjM0", ACTOR_EMAIL: "alice.at.example.com"}
    assert answered([], labels) == Verdict(
        True, "prod-eu approved by alice@example.com (no approvers of prod-eu to check)"
    )
    assert answered([], {}) == Verdict(True, "prod-eu approved (no approvers of prod-eu to check)")


def test_the_step_passes_a_yes_with_nobody_to_check(tmp_path: Path) -> None:
    from tests.unit.invoke import invoke

    result = invoke(
        "step", "approver", "--environment", "prod", "--approvers", "", "--answer", "YES",
        "--labels", json.dumps({ACTOR_USERNAME: "alice"}), "--started-at", STARTED,
        "--finished-at", ANSWERED, "--outputs", str(tmp_path),
    )  # fmt: skip
    assert result.code == 0, result.output
    said = "prod approved by alice (no approvers of prod to check)"
    assert json.loads(result.stdout) == {"approved": True, "reason": said}
    assert (tmp_path / "approved-by").read_text() == said


def test_the_step_fails_a_no(tmp_path: Path) -> None:
    from tests.unit.invoke import invoke

    result = invoke(
        "step", "approver", "--environment", "prod", "--approvers", "", "--answer", "NO",
        "--labels", json.dumps({ACTOR_USERNAME: "alice"}),
        "--started-at", STARTED, "--finished-at", ANSWERED, "--outputs", str(tmp_path),
    )  # fmt: skip
    assert result.code == 1, result.output
    assert json.loads(result.stdout) == {
        "approved": False,
        "reason": "prod rejected by alice (approve-prod says why)",
    }
