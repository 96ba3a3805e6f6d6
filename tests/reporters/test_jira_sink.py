"""The Jira sink, through the real ``jira`` library against a fake Jira Server over real
HTTP: comments on the issues an event names, transitions a notification asks for, nothing
done twice when a delivery is retried, and each of Jira's failures told apart as retried or
dead-lettered. The fake itself is checked against the shapes the library parses."""

from __future__ import annotations

import copy
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from jira import JIRA
from jira.exceptions import JIRAError

from orchestrator.simulator.serve import free_port
from reporters.sinks.delivery import Policy, SinkError
from reporters.sinks.jira import JiraSink, comment_text, issue_keys
from tests.fakes.jira import FakeJira

USER, TOKEN = "promoflow", "s3cret-api-token"
SHA = "abc123def4567890abc123def4567890abc123de"


@pytest.fixture
def jira() -> Iterator[FakeJira]:
    fake = FakeJira(user=USER, password=TOKEN)
    fake.add_issue(
        "SHOP-1", "Checkout fails for gift cards", status="In Progress", assignee="Alice"
    )
    fake.add_issue("SHOP-2", "Gift card balance is wrong", status="To Do")
    with fake:
        yield fake


@pytest.fixture
def sink(jira: FakeJira) -> Iterator[JiraSink]:
    out = JiraSink(jira.url, user=USER, token=TOKEN)
    yield out
    out.close()


def deployed(event_id: str = "ev-1", **data: Any) -> dict[str, Any]:
    """An enriched ``app.deployed``: SHOP-1 found by enrichment, SHOP-2 named in a commit."""
    return {
        "specversion": "1.0",
        "id": event_id,
        "source": "promoflow/reporter",
        "type": "app.deployed",
        "subject": "argocd/shop-staging",
        "time": "2026-11-24T10:00:00Z",
        "data": {
            "app": "argocd/shop-staging",
            "revision": SHA,
            "product": "shop",
            "environment": "staging",
            "version": "1.4.2",
            "commits": [
                {
                    "repo": "https://git.example.com/acme/gitops.git",
                    "path": "shop/staging",
                    "from": "0" * 40,
                    "to": SHA,
                    "commits": [
                        {"sha": "1" * 40, "message": "SHOP-1 gift cards\n", "author": "Alice"},
                        {"sha": "2" * 40, "message": "Fix balance (SHOP-2)", "author": "Bob"},
                    ],
                }
            ],
            "issues": [{"key": "SHOP-1", "summary": "Checkout fails for gift cards"}],
            **data,
        },
    }


def notified(event_id: str = "ev-2", **notification: Any) -> dict[str, Any]:
    event = deployed(event_id)
    event["data"]["notification"] = {
        "trigger": "on-deployed",
        "template": "app-deployed",
        "recipient": "SHOP-1",
        "message": "Application shop-staging is now running 1.4.2.",
        **notification,
    }
    return event


def posts(jira: FakeJira) -> list[str]:
    return [path for method, path, _ in jira.requests if method == "POST"]


# -- what the sink does --------------------------------------------------------------------


def test_a_deployment_is_commented_on_each_issue_it_names(jira: FakeJira, sink: JiraSink) -> None:
    sink.send(deployed())
    text = "Deployed shop 1.4.2 to staging (shop-staging) at abc123def456\n\npromoflow event ev-1"
    assert jira.issues["SHOP-1"].bodies == [text]
    assert jira.issues["SHOP-2"].bodies == [text]
    assert posts(jira) == ["/rest/api/2/issue/SHOP-1/comment", "/rest/api/2/issue/SHOP-2/comment"]
    assert jira.issues["SHOP-1"].comments[0]["author"] == USER
    assert jira.issues["SHOP-1"].status == "In Progress"  # no transition without being asked


def test_the_issues_come_from_enrichment_and_commit_messages_each_once() -> None:
    data = deployed()["data"]
    assert issue_keys(data) == ["SHOP-1", "SHOP-2"]
    data["commits"][0]["commits"].append({"sha": "3" * 40, "message": "OPS-7 and SHOP-2"})
    assert issue_keys(data) == ["SHOP-1", "SHOP-2", "OPS-7"]
    del data["issues"]  # enrichment could not ask Jira: the commits still name them
    assert issue_keys(data) == ["SHOP-1", "SHOP-2", "OPS-7"]
    assert issue_keys({"app": "argocd/shop-staging", "revision": SHA}) == []


def test_the_comment_says_what_happened_where_and_at_what() -> None:
    plain = deployed()
    for key in ("product", "version"):
        del plain["data"][key]
    assert comment_text(plain) == "Deployed to staging (shop-staging) at abc123def456"
    failed = deployed()
    failed["type"] = "app.sync-failed"
    failed["data"]["message"] = "one or more objects failed to apply"
    assert comment_text(failed) == (
        "Sync of shop 1.4.2 in staging (shop-staging) at abc123def456 failed: "
        "one or more objects failed to apply"
    )
    promotion = {
        "id": "ev-9",
        "type": "promotion.failed",
        "subject": "argo/shop-1.4.2-x7k2p",
        "data": {
            "app": "argo/shop-1.4.2-x7k2p",
            "revision": "1.4.2",
            "product": "shop",
            "version": "1.4.2",
            "message": "child 'gate-prod' failed",
            "failures": [{"step": "gate-prod", "message": "error rate 4% > 1%"}],
            "link": "https://argo.example.com/workflows/argo/shop-1.4.2-x7k2p",
        },
    }
    assert comment_text(promotion) == (
        "Promotion of shop 1.4.2 failed: child 'gate-prod' failed\n"
        "- gate-prod: error rate 4% > 1%\n"
        "https://argo.example.com/workflows/argo/shop-1.4.2-x7k2p"
    )


def test_a_notification_comments_its_text_and_moves_the_issue_to_done(
    jira: FakeJira, sink: JiraSink
) -> None:
    sink.send(notified(jira={"comment": "Released in shop 1.4.2", "transition": "done"}))
    assert jira.issues["SHOP-1"].bodies == ["Released in shop 1.4.2\n\npromoflow event ev-2"]
    assert jira.issues["SHOP-1"].status == "Done"
    assert jira.issues["SHOP-1"].transitions == ["Done"]
    assert jira.issues["SHOP-2"].comments == []  # the recipient is an issue: that one alone
    # a recipient that is not an issue key: the event's issues, with the message
    sink.send(notified("ev-3", recipient="release-team"))
    message = "Application shop-staging is now running 1.4.2.\n\npromoflow event ev-3"
    assert jira.issues["SHOP-1"].bodies[-1] == message
    assert jira.issues["SHOP-2"].bodies == [message]


def test_a_transition_the_status_does_not_offer_is_skipped(jira: FakeJira, sink: JiraSink) -> None:
    jira.issues["SHOP-1"].status = "Done"
    sink.send(notified(jira={"transition": "Done"}))
    sink.send(notified("ev-3", jira={"transition": "Deploy to QA"}))
    assert jira.issues["SHOP-1"].status == "Done"
    assert jira.issues["SHOP-1"].transitions == []
    assert not any(p.endswith("/transitions") for p in posts(jira))
    assert len(jira.issues["SHOP-1"].comments) == 2  # the comments still go on


def test_a_global_transition_to_the_status_the_issue_is_in_is_skipped(
    jira: FakeJira, sink: JiraSink
) -> None:
    anywhere = [
        ("11", "To Do", "To Do"),
        ("21", "In Progress", "In Progress"),
        ("31", "Done", "Done"),
    ]
    jira.workflow = {status: anywhere for status in ("To Do", "In Progress", "Done")}
    sink.send(notified(jira={"transition": "Done"}))
    sink.send(notified("ev-3", jira={"transition": "Done"}))
    assert jira.issues["SHOP-1"].transitions == ["Done"]


def test_a_retry_after_a_partial_failure_comments_nothing_twice(
    jira: FakeJira, sink: JiraSink
) -> None:
    jira.fail("POST", "/rest/api/2/issue/SHOP-2/comment", 503)
    with pytest.raises(SinkError) as failed:
        sink.send(deployed())
    assert not failed.value.permanent
    assert len(jira.issues["SHOP-1"].comments) == 1 and jira.issues["SHOP-2"].comments == []
    sink.send(deployed())  # the delivery's retry: the same event again
    sink.send(deployed())  # delivered twice after all (at least once)
    assert len(jira.issues["SHOP-1"].comments) == 1
    assert len(jira.issues["SHOP-2"].comments) == 1
    assert posts(jira).count("/rest/api/2/issue/SHOP-1/comment") == 1


def test_a_retry_after_a_failed_transition_transitions_without_commenting_again(
    jira: FakeJira, sink: JiraSink
) -> None:
    event = notified(jira={"comment": "Released", "transition": "Done"})
    jira.fail("POST", "/rest/api/2/issue/SHOP-1/transitions", 502)
    with pytest.raises(SinkError) as failed:
        sink.send(event)
    assert not failed.value.permanent and "502" in str(failed.value)
    assert jira.issues["SHOP-1"].status == "In Progress"
    sink.send(copy.deepcopy(event))
    sink.send(copy.deepcopy(event))
    assert jira.issues["SHOP-1"].status == "Done" and jira.issues["SHOP-1"].transitions == ["Done"]
    assert jira.issues["SHOP-1"].bodies == ["Released\n\npromoflow event ev-2"]


def test_the_marker_is_found_beyond_the_first_page_of_comments(
    jira: FakeJira, sink: JiraSink
) -> None:
    sink.send(deployed())
    issue = jira.issues["SHOP-1"]
    for n in range(5):  # people comment after the reporter did
        issue.comments.append({**issue.comments[0], "id": f"9{n}", "body": f"looks good {n}"})
    sink.page_size = 2
    sink.send(deployed())
    assert len(issue.comments) == 6
    pages = [p for m, p, _ in jira.requests if m == "GET" and p.endswith("SHOP-1/comment")]
    assert len(pages) == 1 + 3  # the first send's read, then three pages of two


def test_an_unknown_issue_is_skipped_while_the_others_are_commented(
    jira: FakeJira, sink: JiraSink
) -> None:
    event = deployed()
    event["data"]["issues"] = [{"key": "GONE-404"}, {"key": "SHOP-1"}]
    sink.send(event)
    assert len(jira.issues["SHOP-1"].comments) == 1
    assert len(jira.issues["SHOP-2"].comments) == 1
    assert ("GET", "/rest/api/2/issue/GONE-404/comment", 404) in jira.requests


def test_a_refused_issue_does_not_stop_the_others_but_dead_letters_the_event(
    jira: FakeJira, sink: JiraSink
) -> None:
    jira.fail("POST", "/rest/api/2/issue/SHOP-1/comment", 400)
    with pytest.raises(SinkError) as failed:
        sink.send(deployed())
    assert failed.value.permanent and "400 for SHOP-1" in str(failed.value)
    assert len(jira.issues["SHOP-2"].comments) == 1


@pytest.mark.parametrize("auth", ["basic", "bearer"])
def test_wrong_credentials_are_a_permanent_error_that_names_no_token(auth: str) -> None:
    with FakeJira(user=USER, password=TOKEN, token="pat-right") as jira:
        jira.add_issue("SHOP-1")
        wrong = "wrong-token-x9"
        sink = (
            JiraSink(jira.url, user=USER, token=wrong)
            if auth == "basic"
            else JiraSink(jira.url, token=wrong)
        )
        with pytest.raises(SinkError) as failed:
            sink.send(deployed())
        sink.close()
    assert failed.value.permanent
    reason = str(failed.value)
    assert "credentials" in reason and "401" in reason
    assert wrong not in reason and "\n" not in reason
    assert jira.issues["SHOP-1"].comments == []


def test_jira_down_is_retried(jira: FakeJira, sink: JiraSink) -> None:
    jira.down = True
    with pytest.raises(SinkError) as failed:
        sink.send(deployed())  # the client's first request (serverInfo) already fails
    assert not failed.value.permanent and failed.value.retry_after is None
    assert str(failed.value) == "Jira answered 503"
    jira.down = False
    sink.send(deployed())
    jira.down = True
    with pytest.raises(SinkError) as again:
        sink.send(deployed("ev-2"))
    assert not again.value.permanent and str(again.value) == "Jira answered 503 for SHOP-1"


def test_jira_rate_limiting_is_retried_after_what_it_asks(jira: FakeJira, sink: JiraSink) -> None:
    sink.send(deployed())
    jira.throttle(retry_after=7)
    with pytest.raises(SinkError) as failed:
        sink.send(deployed("ev-2"))
    assert not failed.value.permanent and failed.value.retry_after == 7
    assert Policy().backoff(1, failed.value.retry_after) == 7  # the delivery waits that long
    sink.send(deployed("ev-2"))
    assert len(jira.issues["SHOP-1"].comments) == 2


def test_jira_unreachable_is_retried() -> None:
    sink = JiraSink(f"http://127.0.0.1:{free_port()}", user=USER, token=TOKEN, timeout=2)
    with pytest.raises(SinkError) as failed:
        sink.send(deployed())
    assert not failed.value.permanent
    assert str(failed.value).startswith("cannot reach Jira at http://127.0.0.1:")
    assert TOKEN not in str(failed.value)
    inline = JiraSink(f"http://bot:{TOKEN}@127.0.0.1:{free_port()}", timeout=2)
    with pytest.raises(SinkError) as named:
        inline.send(deployed())
    assert not named.value.permanent and TOKEN not in str(named.value)


def test_no_issues_or_an_event_it_does_not_report_makes_no_request(
    jira: FakeJira, sink: JiraSink
) -> None:
    bare = deployed()
    del bare["data"]["issues"], bare["data"]["commits"]
    sink.send(bare)
    synced = deployed()
    synced["type"] = "app.synced"
    sink.send(synced)
    quiet = notified(message="", jira={})
    sink.send(quiet)
    assert jira.requests == []


# -- the fake, as the library reads it -----------------------------------------------------


def test_the_fake_answers_in_the_shapes_the_library_parses(jira: FakeJira) -> None:
    client = JIRA(jira.url, basic_auth=(USER, TOKEN), max_retries=0, timeout=5)
    try:
        assert client.server_info()["versionNumbers"] == [9, 12, 2]
        issue = client.issue("SHOP-1", fields="summary,status,assignee")
        assert issue.key == "SHOP-1"
        assert issue.fields.summary == "Checkout fails for gift cards"
        assert issue.fields.status.name == "In Progress"
        assert issue.fields.status.statusCategory.key == "indeterminate"
        assert issue.fields.assignee.displayName == "Alice"
        added = client.add_comment("SHOP-1", "first")
        assert added.body == "first" and added.author.name == USER
        assert added.created.endswith("+0000") and added.self.endswith(f"/comment/{added.id}")
        second = client.add_comment("SHOP-1", "second")
        read = client.comments("SHOP-1")
        assert [(c.id, c.body) for c in read] == [(added.id, "first"), (second.id, "second")]
        assert [c.body for c in client.comments("SHOP-1", order_by="-created")] == [
            "second",
            "first",
        ]
        assert [c.body for c in client.comments("SHOP-1", start_at=1, max_results=1)] == ["second"]
        offered = client.transitions("SHOP-1")
        assert [(t["id"], t["name"], t["to"]["name"]) for t in offered] == [
            ("11", "To Do", "To Do"),
            ("31", "Done", "Done"),
        ]
        client.transition_issue("SHOP-1", "done")  # the library finds the id by name
        assert client.issue("SHOP-1").fields.status.name == "Done"
        assert [t["name"] for t in client.transitions("SHOP-1")] == ["Reopen"]
        with pytest.raises(JIRAError) as invalid:
            client.transition_issue("SHOP-1", "99")
        assert invalid.value.status_code == 400
        assert invalid.value.text == "Transition id '99' is not valid for this issue."
        with pytest.raises(JIRAError) as missing:
            client.comments("NOPE-1")
        assert missing.value.status_code == 404 and missing.value.text == "Issue Does Not Exist"
        with pytest.raises(JIRAError) as empty:
            client.add_comment("SHOP-2", " ")
        assert empty.value.status_code == 400
    finally:
        client.close()


def test_the_fake_answers_raw_as_jira_server_documents(jira: FakeJira) -> None:
    auth = (USER, TOKEN)
    base = f"{jira.url}/rest/api/2/issue/SHOP-2"
    made = httpx.post(f"{base}/comment", json={"body": "hello"}, auth=auth)
    assert made.status_code == 201
    assert set(made.json()) >= {"id", "self", "body", "author", "created", "updated"}
    page = httpx.get(f"{base}/comment", auth=auth).json()
    assert page == {"startAt": 0, "maxResults": 1, "total": 1, "comments": [made.json()]}
    offered = httpx.get(f"{base}/transitions", auth=auth).json()
    assert offered["expand"] == "transitions"
    assert {t["id"]: t["to"]["name"] for t in offered["transitions"]} == {
        "21": "In Progress",
        "31": "Done",
    }
    moved = httpx.post(f"{base}/transitions", json={"transition": {"id": "31"}}, auth=auth)
    assert moved.status_code == 204 and moved.content == b""
    bad = httpx.post(f"{base}/transitions", json={"transition": {"id": "99"}}, auth=auth)
    assert bad.status_code == 400
    assert bad.json() == {
        "errorMessages": ["Transition id '99' is not valid for this issue."],
        "errors": {},
    }
    gone = httpx.get(f"{jira.url}/rest/api/2/issue/NOPE-1/comment", auth=auth)
    assert gone.status_code == 404
    assert gone.json() == {"errorMessages": ["Issue Does Not Exist"], "errors": {}}
    anonymous = httpx.get(f"{base}/comment")
    assert anonymous.status_code == 401 and "Login Required" in anonymous.json()["errorMessages"]
    refused = httpx.get(f"{jira.url}/rest/api/2/serverInfo", auth=(USER, "nope"))
    assert refused.status_code == 401
    assert refused.headers["x-seraph-loginreason"] == "AUTHENTICATED_FAILED"
    jira.throttle(retry_after=3)
    limited = httpx.get(f"{base}/comment", auth=auth)
    assert limited.status_code == 429 and limited.headers["retry-after"] == "3"
