"""What the ``record`` step writes: the note saying a promotion commit is verified in its
environment, every gate before it having passed (:mod:`orchestrator.history.note`)."""

from __future__ import annotations

import time

from orchestrator.history.note import VERIFIED, GateResult, Verification, render


def verified_note(gates: list[str], run: str, now: float | None = None) -> str:
    """The note of a commit whose ``gates`` (kinds, in chain order) all passed."""
    at = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(time.time() if now is None else now))
    record = Verification(VERIFIED, tuple(GateResult(g, True) for g in gates), at, "", run)
    return render(record)
