"""The notifications configuration's one error: every problem found, each at its position."""

from __future__ import annotations

from orchestrator.problems import Problem


class ConfigError(Exception):
    def __init__(self, problems: list[Problem]) -> None:
        super().__init__("\n".join(str(p) for p in problems))
        self.problems = problems
