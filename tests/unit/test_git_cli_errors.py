"""How failures of the git CLI transport are read: by what git says, never by a URL."""

from __future__ import annotations

import pytest

from orchestrator.adapters.giterrors import classify

URL = "http://127.0.0.1:44015/acme/nope.git"


@pytest.mark.parametrize(
    ("stderr", "expected", "transient"),
    [
        # The port 44015 holds "401": a missing repository must not read as bad credentials.
        (f"fatal: repository '{URL}/' not found", "not found", False),
        (
            f"fatal: unable to access '{URL}/': The requested URL returned error: 401",
            "authentication",
            False,
        ),
        (
            f"fatal: unable to access '{URL}/': The requested URL returned error: 404",
            "not found",
            False,
        ),
        (
            f"fatal: unable to access '{URL}/': Failed to connect to 127.0.0.1 port 44015",
            "refused",
            True,
        ),
        (
            "fatal: unable to access 'http://h:4040/x.git/': Could not resolve host: h",
            "cannot resolve",
            False,
        ),
    ],
)
def test_git_cli_failures_are_read_from_what_git_says(
    stderr: str, expected: str, transient: bool
) -> None:
    error = classify(stderr, URL)
    assert expected in str(error)
    assert error.transient is transient
