"""Which promotion a rollback restores."""

from __future__ import annotations

import pytest

from orchestrator.history.choose import NoRollback, choose
from orchestrator.history.record import Promotion


def p(version: str, outcome: str, commit: str, env: str = "prod") -> Promotion:
    return Promotion("shop", env, commit * 40, "a", "t", "s", version=version, outcome=outcome)


HISTORY = [  # newest first
    p("1.6.0", "failed", "f"),
    p("1.5.1", "", "e"),  # its run never finished: not verified
    p("1.5.0", "verified", "d"),
    p("1.5.0", "verified", "x", env="staging"),
    p("1.4.0", "verified", "c"),
    p("1.6.0", "verified", "b"),  # an older run of the same version as now
]


def test_the_last_verified_version_before_the_current_one() -> None:
    found = choose(HISTORY, "prod", None, force=False)
    assert found.current is not None and found.current.version == "1.6.0"
    assert (found.target.version, found.target.commit[0], found.forced) == ("1.5.0", "d", False)


def test_a_named_version_must_have_been_verified_there_unless_forced() -> None:
    assert choose(HISTORY, "prod", "1.4.0", force=False).target.commit[0] == "c"
    with pytest.raises(NoRollback, match=r"1.5.1 was never verified in prod .*--force"):
        choose(HISTORY, "prod", "1.5.1", force=False)
    forced = choose(HISTORY, "prod", "1.5.1", force=True)
    assert forced.forced and forced.target.commit[0] == "e"
    with pytest.raises(NoRollback, match=r"prod never ran 2.0.0 before \(verified there: "):
        choose(HISTORY, "prod", "2.0.0", force=True)


def test_nothing_to_roll_back_to_says_what_to_do() -> None:
    with pytest.raises(NoRollback, match=r"no verified version before 1\.6\.0"):
        choose(HISTORY[:2], "prod", None, force=False)
    with pytest.raises(NoRollback, match="dev has no verified version before what it runs"):
        choose(HISTORY, "dev", None, force=False)
