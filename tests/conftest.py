"""Shared pytest options: golden files are regenerated only on explicit request."""

from __future__ import annotations

import os

import pytest


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--update-golden",
        action="store_true",
        default=False,
        help="Rewrite golden files from the current output (refused under CI).",
    )


@pytest.fixture
def update_golden(request: pytest.FixtureRequest) -> bool:
    wanted = bool(request.config.getoption("--update-golden"))
    if wanted and os.environ.get("CI"):
        raise pytest.UsageError("--update-golden is refused under CI: golden files are reviewed")
    return wanted
