"""Webhook secrets from variables or files; never repeated in a message."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from orchestrator.webhooks.secrets import SecretError, Secrets, variable


def test_from_a_variable_and_from_a_file_that_is_read_again_when_rotated(tmp_path: Path) -> None:
    file = tmp_path / "secret"
    file.write_text("first\n")
    env = {variable("github"): "gh-secret", f"{variable('gitlab')}_FILE": str(file)}
    secrets = Secrets(["github", "gitlab", "quay"], env)
    assert secrets.get("github") == "gh-secret"
    assert secrets.get("gitlab") == "first"
    assert secrets.get("quay") is None
    assert secrets.configured() == ["github", "gitlab"]
    file.write_text("second\n")
    os.utime(file, (1, 1))  # a new mtime, as a Secret update swaps the mounted file
    assert secrets.get("gitlab") == "second"


def test_both_forms_or_an_unreadable_file_are_refused_without_the_value(tmp_path: Path) -> None:
    var = variable("github")
    with pytest.raises(SecretError, match="not both") as both:
        Secrets(["github"], {var: "hunter2", f"{var}_FILE": "/x"})
    assert "hunter2" not in str(both.value)
    with pytest.raises(SecretError, match="cannot read"):
        Secrets(["github"], {f"{var}_FILE": str(tmp_path / "missing")})
    empty = tmp_path / "empty"
    empty.write_text("\n")
    with pytest.raises(SecretError, match="is empty"):
        Secrets(["github"], {f"{var}_FILE": str(empty)})
    assert variable("github") == "PROMOFLOW_WEBHOOK_GITHUB_SECRET"
