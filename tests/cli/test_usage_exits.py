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


def test_a_flag_naming_an_unusable_directory_is_a_usage_error(tmp_path: Path) -> None:
    kept = tmp_path / "kept"
    kept.mkdir()
    (kept / "something").write_text("")
    demo = invoke("demo", "--keep", str(kept))
    assert_clean_failure(demo, 2)
    assert demo.lines == [
        f"error: Invalid value for --keep: {kept} exists and is not empty; choose a new directory"
    ]
    args = ["promote", "--local", "-c", EXAMPLES, "-p", "shop", "-v", "1.0.0"]
    local = invoke(*args, "--set", "image.digest=sha256:ab", "--templates", str(kept / "something"))
    assert_clean_failure(local, 2)
    assert local.lines == [
        f"error: Invalid value for --templates: {kept / 'something'}: not a directory"
    ]
