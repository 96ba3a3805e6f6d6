"""promoflow compile run as a user runs it (a subprocess)."""

from __future__ import annotations

import os
import subprocess
import sys

from tests.compiler.helpers import ROOT


def run(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "orchestrator.cli", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env={**os.environ, **(env or {})},
        timeout=60,
    )
