"""Argo CD's meaning of the Application fields the gate and the simulator both read."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone
from typing import Any

import pytest

from orchestrator.argocd_shapes import (
    format_time,
    is_automated,
    is_multi_source,
    normalize_repo_url,
    parse_time,
    same_repo,
    sources,
)

ONE = {"repoURL": "https://git.example.com/acme/gitops", "path": "dev", "targetRevision": "main"}
TWO = {"repoURL": "https://charts.example.com", "chart": "shop", "targetRevision": "1.2.0"}


def _app(**spec: Any) -> dict[str, Any]:
    return {"metadata": {"name": "shop-dev"}, "spec": spec}


# --- sources ------------------------------------------------------------------------------


def test_single_source_app() -> None:
    app = _app(source=ONE)
    assert sources(app) == [ONE]
    assert not is_multi_source(app)


def test_sources_win_over_source() -> None:
    app = _app(source=ONE, sources=[TWO, ONE])
    assert sources(app) == [TWO, ONE]
    assert is_multi_source(app)


def test_empty_sources_list_is_the_single_source() -> None:
    app = _app(source=ONE, sources=[])
    assert sources(app) == [ONE]
    assert not is_multi_source(app)


@pytest.mark.parametrize("app", [{}, {"spec": None}, _app(), _app(source=None)])
def test_no_source_at_all(app: dict[str, Any]) -> None:
    assert sources(app) == []
    assert not is_multi_source(app)


def test_sources_is_a_copy_of_the_list() -> None:
    app = _app(sources=[ONE])
    sources(app).append(TWO)
    assert app["spec"]["sources"] == [ONE]


# --- automated sync -----------------------------------------------------------------------


@pytest.mark.parametrize(
    "policy",
    [
        {"automated": {}},  # an empty block still turns automated sync on
        {"automated": {"prune": True, "selfHeal": True}},
        {"automated": {"prune": False}},
        {"automated": {}, "syncOptions": ["CreateNamespace=true"]},
    ],
)
def test_automated(policy: dict[str, Any]) -> None:
    assert is_automated(_app(source=ONE, syncPolicy=policy))


@pytest.mark.parametrize(
    "policy",
    [None, {}, {"automated": None}, {"automated": False}, {"syncOptions": ["Validate=false"]}],
)
def test_manual(policy: dict[str, Any] | None) -> None:
    assert not is_automated(_app(source=ONE, syncPolicy=policy))


def test_no_spec_is_manual() -> None:
    assert not is_automated({})


# --- timestamps ---------------------------------------------------------------------------


def test_parse_time_as_argocd_writes_it() -> None:
    assert parse_time("2024-05-01T12:00:05Z") == datetime(2024, 5, 1, 12, 0, 5, tzinfo=UTC)


def test_parse_time_with_fraction_and_offset_is_utc() -> None:
    parsed = parse_time("2024-05-01T14:00:05.250+02:00")
    assert parsed == datetime(2024, 5, 1, 12, 0, 5, 250000, tzinfo=UTC)
    assert parsed is not None and parsed.utcoffset() == timedelta(0)


def test_parse_time_without_offset_is_utc_and_comparable() -> None:
    naive = parse_time("2024-05-01T12:00:05")
    assert naive == datetime(2024, 5, 1, 12, 0, 5, tzinfo=UTC)
    later = parse_time("2024-05-01T12:00:06Z")
    assert naive is not None and later is not None and naive < later


@pytest.mark.parametrize("value", [None, "", 0, "yesterday", "2024-13-01T00:00:00Z"])
def test_parse_time_unreadable_is_none(value: Any) -> None:
    assert parse_time(value) is None


def test_format_time_whole_seconds_utc_z() -> None:
    moment = datetime(2024, 5, 1, 14, 0, 5, 999999, tzinfo=timezone(timedelta(hours=2)))
    assert format_time(moment) == "2024-05-01T12:00:05Z"
    assert format_time(datetime(2024, 5, 1, 12, 0, 5)) == "2024-05-01T12:00:05Z"


def test_format_then_parse_round_trips() -> None:
    moment = datetime(2024, 2, 29, 23, 59, 59, tzinfo=UTC)
    assert parse_time(format_time(moment)) == moment


# --- repository URLs ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("left", "right"),
    [
        ("https://Git.Example.com/acme/GitOps.git/", "https://git.example.com/acme/gitops"),
        ("https://git.example.com/acme/gitops.git", "https://git.example.com/acme/gitops/"),
        ("  https://git.example.com/acme/gitops\n", "https://git.example.com/acme/gitops"),
        ("https://git.example.com/acme/gitops.GIT", "https://git.example.com/acme/gitops"),
        ("git@github.com:Acme/GitOps.git", "ssh://git@github.com/acme/gitops"),
        ("ssh://git@github.com/acme/gitops.git", "git@github.com:acme/gitops"),
    ],
)
def test_same_repository(left: str, right: str) -> None:
    assert normalize_repo_url(left) == normalize_repo_url(right)
    assert same_repo(left, right)
    assert same_repo(right, left)


@pytest.mark.parametrize(
    ("left", "right"),
    [
        ("https://git.example.com/acme/gitops", "https://git.example.com/acme/gitops-config"),
        ("https://git.example.com/acme/gitops", "https://git.example.com/other/gitops"),
        ("https://git.example.com/acme/gitops", "https://git.example.org/acme/gitops"),
        ("https://git.example.com/acme/gitops", "http://git.example.com/acme/gitops"),
        ("git@github.com:acme/gitops", "https://github.com/acme/gitops"),
    ],
)
def test_different_repositories(left: str, right: str) -> None:
    assert not same_repo(left, right)


def test_normalized_form() -> None:
    url = "https://Git.Example.com/acme/GitOps.git/"
    assert normalize_repo_url(url) == "https://git.example.com/acme/gitops"
    assert normalize_repo_url("git@GitHub.com:acme/gitops.git") == "git@github.com/acme/gitops"


def test_empty_url_names_no_repository() -> None:
    assert normalize_repo_url("   ") == ""
    assert not same_repo("", "")
    assert not same_repo("", "https://git.example.com/acme/gitops")
