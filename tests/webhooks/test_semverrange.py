"""Tag filters of image triggers: the range forms registries' users write."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from orchestrator.semverrange import RangeError, parse_range, satisfies, version_of


@pytest.mark.parametrize(
    ("tag", "rule", "expected"),
    [
        ("1.4.2", ">=1.2 <2", True),
        ("2.0.0", ">=1.2 <2", False),
        ("v1.5", "^1.4", True),
        ("2.0.0", "^1.4", False),
        ("0.2.9", "^0.2.3", True),
        ("0.3.0", "^0.2.3", False),
        ("0.0.4", "^0.0.3", False),
        ("1.4.9", "~1.4.2", True),
        ("1.5.0", "~1.4.2", False),
        ("1.9.0", "1.x", True),
        ("2.0.0", "1.x", False),
        ("1.4.7", "1.4", True),
        ("3.0.0", "<2 || >=3", True),
        ("2.5.0", "<2 || >=3", False),
        ("1.4.5", ">1.4", False),
        ("1.5.0", ">1.4", True),
        ("1.4.9", "<=1.4", True),
        ("1.5.0", "<=1.4", False),
        ("1.2.3", ">=1.0.0, <2.0.0", True),
        ("1.2.3", "!=1.2.3", False),
        ("2.0.0-rc.1", ">=1.0", False),  # a pre-release only where a bound names one
        ("2.0.0-rc.2", ">=2.0.0-rc.1", True),
        ("2.0.1-rc.1", ">=2.0.0-rc.1", False),
        ("latest", ">=0", False),
        ("sha-3f9a1c2", "*", False),
    ],
)
def test_ranges(tag: str, rule: str, expected: bool) -> None:
    assert satisfies(tag, rule) is expected


@pytest.mark.parametrize("rule", ["", ">>1", "1.2.3.4", "^x.y", ">= 1 ||", "1.2-rc"])
def test_unreadable_ranges_are_refused_with_the_part_quoted(rule: str) -> None:
    with pytest.raises(RangeError):
        parse_range(rule)


@given(st.tuples(*(st.integers(0, 50) for _ in range(3))))
def test_caret_is_the_same_major_for_1_and_above(parts: tuple[int, int, int]) -> None:
    major, minor, patch = parts
    tag = f"{major + 1}.{minor}.{patch}"
    assert satisfies(tag, f"^{major + 1}.0.0")
    assert not satisfies(tag, f"^{major + 2}.0.0")
    assert version_of(f"v{tag}") == version_of(tag)


@given(st.text(max_size=40))
def test_any_tag_is_answered_without_raising(tag: str) -> None:
    assert satisfies(tag, ">=1 <3") in (True, False)
