"""A missing flag is a usage error (exit 2) wherever it is noticed; exit 1 stays for an
operation or configuration that has problems."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.unit.invoke import assert_clean_failure, invoke

EXAMPLES = str(Path(__file__).resolve().parents[2] / "environments")


@pytest.mark.parametrize("step", ["promote", "plan"])
def test_the_trigger_without_its_version_is_a_usage_error(step: str) -> None:
    # the repository is never reached: the example's host does not resolve, which would
    # be exit 1 (or 75), so exit 2 shows the flag was checked first
    result = invoke("step", step, "-c", EXAMPLES, "-p", "shop", "--to", "dev")
    assert_clean_failure(result, 2)
    assert result.lines == [
        "error: Invalid value for --version: dev is where a new version enters the flow: "
        "give the version to promote (--version VERSION)"
    ]


def test_a_later_environment_needs_no_version() -> None:
    result = invoke("step", "promote", "-c", EXAMPLES, "-p", "shop", "--to", "staging")
    assert result.code not in (0, 2), result.output
    assert "--version" not in result.stderr
