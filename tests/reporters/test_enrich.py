"""Enrichment: the commits a sync brought to each source of an app (read with pygit2 from
``git http-backend`` with git's defaults), Jira issues through the real ``jira`` library
against a fake Jira REST server answering in Jira's documented shapes, and no event held
back when either is down."""

from __future__ import annotations

import copy
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from orchestrator.simulator.git_http import GitHttpServer, init_bare_repo
from orchestrator.simulator.serve import ServerThread, free_port
from reporters.enrich.commits import GitHistory, commit_link
from reporters.enrich.enricher import Enricher
from reporters.enrich.jira import JiraIssues
from reporters.events.transitions import Change
from tests.fakes.jira import fake_jira
from tests.webhooks.harness import commit


@pytest.fixture
def monorepo(tmp_path: Path) -> Iterator[tuple[str, list[str]]]:
    bare = init_bare_repo(tmp_path / "srv" / "gitops.git")
    shas = [commit(bare, {"a/v.yaml": b"1\n", "b/v.yaml": b"1\n", "c/v.yaml": b"1\n"}, "seed")]
    shas.append(commit(bare, {"a/v.yaml": b"2\n"}, "SHOP-1 gift cards in a\n\nJira-Issues: SHOP-1"))
    shas.append(commit(bare, {"b/v.yaml": b"2\n"}, "b only"))
    with GitHttpServer(tmp_path / "srv") as git:
        yield git.repo_url("gitops"), shas


def _app(url: str, path: str, revision: str) -> dict[str, Any]:
    return {
        "metadata": {"name": path, "namespace": "argocd"},
        "spec": {"source": {"repoURL": url, "path": path, "targetRevision": "main"}},
        "status": {"sync": {"status": "Synced", "revision": revision}},
    }


def _synced(path: str, revision: str) -> Change:
    return Change("app.synced", f"argocd/{path}", revision, "2026-11-24T10:00:00Z")


def test_each_app_gets_the_commits_that_touched_it_and_untouched_apps_none(
    monorepo: tuple[str, list[str]], tmp_path: Path
) -> None:
    url, (seed, first, second) = monorepo
    with ServerThread(fake_jira()) as jira:
        issues = JiraIssues(jira.url)
        shared = frozenset({"jira-fields"})
        enricher = Enricher(GitHistory(tmp_path / "cache"), issues, shared)
        a = enricher.enrich(_synced("a", second), _app(url, "a", seed), _app(url, "a", second))
        again = enricher.enrich(_synced("a", second), _app(url, "a", seed), _app(url, "a", second))
        b = enricher.enrich(_synced("b", second), _app(url, "b", seed), _app(url, "b", second))
        c = enricher.enrich(_synced("c", second), _app(url, "c", seed), _app(url, "c", second))
    assert a is not None and b is not None
    [source] = a.data["commits"]
    assert [x["sha"] for x in source["commits"]] == [first]
    assert source["commits"][0]["message"].startswith("SHOP-1 gift cards")
    assert source["commits"][0]["link"] == f"{url.removesuffix('.git')}/commit/{first}"
    assert [x["sha"] for x in b.data["commits"][0]["commits"]] == [second]
    assert a.data["issues"] == [
        {
            "key": "SHOP-1",
            "summary": "Checkout fails for gift cards",
            "status": "In Progress",
            "assignee": "Alice",
            "link": f"{jira.url}/browse/SHOP-1",
        }
    ]
    assert c is None  # the monorepo commits changed nothing under c/: no event
    assert again == a and issues.lookups == 1  # the issue came from the cache


def test_by_default_no_email_address_and_no_jira_summary_or_assignee_is_published(
    tmp_path: Path,
) -> None:
    bare = init_bare_repo(tmp_path / "srv" / "gitops.git")
    seed = commit(bare, {"a/v.yaml": b"1\n"}, "seed")
    message = (
        "SHOP-1 gift cards (reported by bob.smith@example.org)\n\n"
        "Signed-off-by: Alice Doe <alice.doe@example.com>"
    )
    sha = commit(bare, {"a/v.yaml": b"2\n"}, message)
    with GitHttpServer(tmp_path / "srv") as git, ServerThread(fake_jira()) as jira:
        url = git.repo_url("gitops")
        old, new = _app(url, "a", seed), _app(url, "a", sha)
        history = GitHistory(tmp_path / "cache")
        private = Enricher(history, JiraIssues(jira.url)).enrich(_synced("a", sha), old, new)
        shared = Enricher(
            history, JiraIssues(jira.url), frozenset({"author-emails", "jira-fields"})
        ).enrich(_synced("a", sha), old, new)
    assert private is not None and shared is not None
    [kept] = private.data["commits"][0]["commits"]
    assert "@" not in str(private.data) and "example.com" not in str(private.data)
    assert kept["message"] == (
        "SHOP-1 gift cards (reported by <e-mail hidden>)\n\n"
        "Signed-off-by: Alice Doe <<e-mail hidden>>"
    )
    assert "email" not in kept
    assert private.data["issues"] == [
        {"key": "SHOP-1", "status": "In Progress", "link": f"{jira.url}/browse/SHOP-1"}
    ]
    [told] = shared.data["commits"][0]["commits"]
    assert told["email"] == "ci@example.com" and "alice.doe@example.com" in told["message"]
    assert shared.data["issues"][0]["summary"] == "Checkout fails for gift cards"
    assert shared.data["issues"][0]["assignee"] == "Alice"


def test_a_multi_source_app_gets_the_commits_of_each_source(
    monorepo: tuple[str, list[str]], tmp_path: Path
) -> None:
    url, (seed, first, second) = monorepo
    old = _app(url, "a", seed)
    old["spec"] = {
        "sources": [
            {"repoURL": url, "path": "a", "targetRevision": "main"},
            {"repoURL": url, "path": "b", "targetRevision": "main"},
        ]
    }
    old["status"]["sync"] = {"status": "Synced", "revisions": [seed, seed]}
    new = copy.deepcopy(old)
    new["status"]["sync"]["revisions"] = [second, second]
    enriched = Enricher(GitHistory(tmp_path / "cache")).enrich(_synced("a", second), old, new)
    assert enriched is not None
    assert [(s["path"], [c["sha"] for c in s["commits"]]) for s in enriched.data["commits"]] == [
        ("a", [first]),
        ("b", [second]),
    ]


def test_jira_down_still_delivers_the_event_marked_unenriched(
    monorepo: tuple[str, list[str]], tmp_path: Path
) -> None:
    url, (seed, _, second) = monorepo
    down = f"http://127.0.0.1:{free_port()}"
    enricher = Enricher(GitHistory(tmp_path / "cache"), JiraIssues(down))
    event = enricher.enrich(_synced("a", second), _app(url, "a", seed), _app(url, "a", second))
    assert event is not None and event.data["commits"]
    assert "issues" not in event.data
    assert event.data["unenriched"]["issues"].startswith("cannot reach Jira")
    assert enricher.failures == 1  # what /metrics reports as enrichment failures
    gone = Enricher(GitHistory(tmp_path / "other"))
    unreachable = _app(down + "/gitops.git", "a", second)
    plain = gone.enrich(_synced("a", second), _app(down + "/gitops.git", "a", seed), unreachable)
    assert plain is not None and plain.data["unenriched"]["commits"].startswith("unavailable")


@pytest.mark.parametrize(
    ("repo", "link"),
    [
        ("https://github.com/acme/gitops.git", "https://github.com/acme/gitops/commit/abc"),
        ("https://user:t0ken@github.com/acme/gitops", "https://github.com/acme/gitops/commit/abc"),
        ("git@github.com:acme/gitops.git", "https://github.com/acme/gitops/commit/abc"),
        ("ssh://git@gitlab.com:22/acme/gitops.git", "https://gitlab.com/acme/gitops/-/commit/abc"),
        ("https://bitbucket.org/acme/gitops.git", "https://bitbucket.org/acme/gitops/commits/abc"),
        (
            "https://dev.azure.com/acme/shop/_git/gitops",
            "https://dev.azure.com/acme/shop/_git/gitops/commit/abc",
        ),
        ("not a url", ""),
    ],
)
def test_commit_links_for_the_hosts_argo_cd_users_have(repo: str, link: str) -> None:
    assert commit_link(repo, "abc") == link
