"""Shared fixtures: a configuration directory in ``tmp_path`` and its problems as strings.

The fixture changes the working directory to the configuration directory, so problems name
files as a user sees them (``flow.yaml:7:30: error: ...``), which lets tests compare whole
problem lines, file, line and column included.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from orchestrator.graph import validate
from orchestrator.loading import Config, load_config
from orchestrator.problems import Problem, sort_problems
from tests.unit.samples import ENVIRONMENTS, FLOW, PRODUCT, TEMPLATE


class Workspace:
    """A configuration directory: write files, then load and validate it."""

    def __init__(self, root: Path) -> None:
        self.root = root

    def write(self, name: str, text: str) -> Path:
        """Write ``text`` (dedented; a leading newline is dropped, so line 1 is the first)."""
        path = self.root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).removeprefix("\n"), encoding="utf-8")
        return path

    def write_base(self, *, flow: bool = True, product: bool = True) -> None:
        """A valid configuration to break in one place: envs dev/staging/prod, a flow
        ``standard``, a template ``helm`` and a product ``shop``."""
        self.write("environments.yaml", ENVIRONMENTS)
        self.write("template.yaml", TEMPLATE)
        if flow:
            self.write("flow.yaml", FLOW)
        if product:
            self.write("product.yaml", PRODUCT)

    def load(self) -> tuple[Config, list[Problem]]:
        config, problems = load_config(Path("."))
        return config, sort_problems([*problems, *validate(config)])

    def problems(self) -> list[str]:
        return [str(p) for p in self.load()[1]]

    def config(self) -> Config:
        """The loaded configuration; fails the test if it has any problem."""
        config, problems = self.load()
        assert [str(p) for p in problems] == []
        return config


@pytest.fixture
def ws(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Workspace:
    root = tmp_path / "config"
    root.mkdir()
    monkeypatch.chdir(root)
    return Workspace(root)
