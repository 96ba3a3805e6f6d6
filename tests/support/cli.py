"""The ``promoflow`` command run as a user runs it: a subprocess in a narrow, colourless
terminal, from the repository (or a given directory)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
EXAMPLES = REPO / "environments"


def promoflow(
    *args: str, cwd: Path = REPO, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """Run the CLI in a narrow, colourless terminal (lines must not be wrapped or styled)."""
    environ = {k: v for k, v in os.environ.items() if k not in {"FORCE_COLOR", "PROMOFLOW_CONFIG"}}
    environ.update({"COLUMNS": "40", "NO_COLOR": "1", **(env or {})})
    return subprocess.run(
        [sys.executable, "-m", "orchestrator.cli", *args],
        cwd=cwd,
        env=environ,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
