"""The note promoflow adds to a promotion commit once its environment's gates have run:
whether the version is *verified* there, and what each gate said.

A git note (``refs/notes/promoflow``) and not a follow-up commit on the branch:
- a commit would be a new revision for Argo CD to sync, announce and count as a deployment,
  for a change of no file;
- under the ``pull-request`` action it would need a pull request of its own, approved and
  merged, to record a fact;
- a note names its commit by id, so it survives merges, and it is fetched only by readers
  that ask for it (``git log --notes=promoflow`` shows it).
Notes are trailer lines, as the commit's own. A commit verified again (a retried run) gets
a new paragraph: the last one is what holds.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from orchestrator.history import trailers
from orchestrator.names import NOTES_REF

__all__ = ["NOTES_REF", "GateResult", "Verification", "parse", "render"]
VERIFIED, FAILED = "verified", "failed"
_GATE = re.compile(r"^([a-z][a-z0-9-]*): (passed|failed)(?: \((.*)\))?$")


@dataclass(frozen=True)
class GateResult:
    kind: str
    passed: bool
    detail: str = ""

    def line(self) -> str:
        detail = " ".join(self.detail.split())
        return f"{self.kind}: {'passed' if self.passed else 'failed'}" + (
            f" ({detail})" if detail else ""
        )


@dataclass(frozen=True)
class Verification:
    """What the gates said of one promotion commit, in its environment."""

    outcome: str
    gates: tuple[GateResult, ...] = ()
    recorded_at: str = ""
    """RFC 3339, UTC: when the last gate finished."""
    deployed_at: str = ""
    """RFC 3339, UTC: when Argo CD ran the commit (the sync gate saw it)."""
    run: str = ""
    approved_by: tuple[str, ...] = ()
    """``who`` or ``who (message)``, per approval answered before the commit."""

    @property
    def verified(self) -> bool:
        return self.outcome == VERIFIED


def render(verification: Verification) -> str:
    lines = [f"Promotion-Outcome: {verification.outcome}"]
    lines += [f"Promotion-Gate: {g.line()}" for g in verification.gates]
    lines += [f"Approved-By: {' '.join(a.split())}" for a in verification.approved_by]
    if verification.deployed_at:
        lines.append(f"Deployed-At: {verification.deployed_at}")
    if verification.recorded_at:
        lines.append(f"Recorded-At: {verification.recorded_at}")
    if verification.run:
        lines.append(f"Promotion-Run: {verification.run}")
    return "\n".join(lines) + "\n"


def parse(text: str) -> Verification | None:
    """The last record of a note (None: none, or not promoflow's)."""
    found = trailers.parse(text, subject=False)
    outcome = trailers.first(found, "Promotion-Outcome")
    if outcome not in (VERIFIED, FAILED):
        return None
    gates = []
    for value in trailers.every(found, "Promotion-Gate"):
        match = _GATE.match(value)
        if match is not None:
            gates.append(
                GateResult(match.group(1), match.group(2) == "passed", match.group(3) or "")
            )
    return Verification(
        outcome,
        tuple(gates),
        trailers.first(found, "Recorded-At"),
        trailers.first(found, "Deployed-At"),
        trailers.first(found, "Promotion-Run"),
        tuple(trailers.every(found, "Approved-By")),
    )
