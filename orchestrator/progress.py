"""How a running step tells people where it is: the log, Argo's progress and node message.

Argo Workflows reads a step's self-reported progress (``N/M``) from the file named by
``ARGO_PROGRESS_FILE`` and shows the container's termination message as the node message, so
"waiting for shop-prod-eu: Progressing" is visible in the UI without opening the logs.
"""

from __future__ import annotations

import contextlib
import os
import sys
import time
from pathlib import Path

from orchestrator.urls import scrub

TERMINATION_LOG = "/dev/termination-log"


def log(message: str) -> None:
    """One timestamped line on stderr (stdout is kept for the step's JSON result),
    scrubbed of credentials like every message a step shows."""
    sys.stderr.write(f"{time.strftime('%H:%M:%S')} {scrub(message)}\n")
    sys.stderr.flush()


def progress(done: int, total: int) -> None:
    """``done/total`` into Argo's progress file, when running under Argo."""
    path = os.environ.get("ARGO_PROGRESS_FILE")
    if path:
        _write(Path(path), f"{done}/{total}")


def node_message(message: str) -> None:
    """The message Argo shows on the node (the container's termination message)."""
    path = os.environ.get("PROMOFLOW_TERMINATION_LOG", TERMINATION_LOG)
    target = Path(path)
    if target.parent.is_dir() and (target.exists() or path != TERMINATION_LOG):
        _write(target, scrub(message)[:4000])


def _write(path: Path, text: str) -> None:
    with contextlib.suppress(OSError):  # reporting must never fail the step
        path.write_text(text)
