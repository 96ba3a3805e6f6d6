"""Sharding: every app has exactly one owner, owners are balanced, ownership is stable."""

from __future__ import annotations

import subprocess
import sys

import pytest

from reporters.watch.shards import ordinal, owner, owns, split

NAMES = [f"team-{i % 37}/app-{i}" for i in range(10_000)]


def test_five_replicas_over_ten_thousand_apps_each_owned_once_and_balanced() -> None:
    owners = {name: [s for s in range(5) if owns(name, s, 5)] for name in NAMES}
    assert all(len(found) == 1 for found in owners.values())
    counts = split(NAMES, 5)
    assert sum(counts.values()) == len(NAMES)
    mean = len(NAMES) / 5
    assert all(abs(n - mean) / mean <= 0.10 for n in counts.values()), counts


def test_the_owner_is_the_same_in_another_process() -> None:
    """Python's ``hash()`` is salted per process; the owner must not be."""
    code = "from reporters.watch.shards import owner; print(owner('shop/shop-prod-eu', 5))"
    other = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert int(other.stdout) == owner("shop/shop-prod-eu", 5)


def test_statefulset_ordinals_and_bad_counts() -> None:
    assert ordinal("promoflow-reporters-3") == 3
    assert ordinal("reporter") is None
    with pytest.raises(ValueError):
        owner("a/b", 0)
