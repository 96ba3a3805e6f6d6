"""The orders a product's versions may follow, and what each cannot compare."""

from __future__ import annotations

import pytest

from orchestrator.versionorder import check_order, compare, is_older


@pytest.mark.parametrize(
    ("older", "newer", "order"),
    [
        ("1.2.0", "1.3.0", "semver"),
        ("v1.9", "1.10.0", "semver"),
        ("2.0.0-rc.1", "2.0.0", "semver"),
        ("build-9", "build-10", "numeric"),
        ("2024.5.1-3", "2024.5.1-12", "numeric"),
        ("2024-05-01.3", "2024-05-02.1", "lexical"),
    ],
)
def test_each_order_puts_the_older_version_first(older: str, newer: str, order: str) -> None:
    assert compare(older, newer, check_order(order)) == -1
    assert compare(newer, older, check_order(order)) == 1
    assert is_older(older, newer, check_order(order)) is True


@pytest.mark.parametrize(
    ("a", "b", "order"),
    [("latest", "1.2.0", "semver"), ("main-abc", "main-def", "numeric"), ("1", "2", "none")],
)
def test_versions_an_order_cannot_compare_are_not_guessed(a: str, b: str, order: str) -> None:
    assert compare(a, b, check_order(order)) is None
    assert is_older(a, b, check_order(order)) is None


def test_the_same_text_is_the_same_version_under_every_order() -> None:
    orders = ("semver", "numeric", "lexical", "none")
    assert {compare("x", "x", check_order(o)) for o in orders} == {0}


def test_an_unknown_order_names_those_there_are() -> None:
    with pytest.raises(ValueError, match=r"'newest' is not a version order .*semver, numeric"):
        check_order("newest")
