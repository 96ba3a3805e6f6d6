"""Which promotion a rollback restores: the environment's last verified version before
the one it runs now, or the one asked for. Pure: the history is handed over."""

from __future__ import annotations

from dataclasses import dataclass

from orchestrator.errors import PromoflowError
from orchestrator.history.record import Promotion


class NoRollback(PromoflowError):
    """Nothing to roll back to, or a version that was never verified there."""


@dataclass(frozen=True)
class Choice:
    current: Promotion | None
    """What the environment runs now (its newest change)."""
    target: Promotion
    forced: bool = False
    """``--force``: the target was never verified in the environment."""


def choose(promotions: list[Promotion], environment: str, to: str | None, force: bool) -> Choice:
    """``promotions``: the environment's, newest first (:func:`read_history`)."""
    mine = [p for p in promotions if p.environment == environment]
    current = mine[0] if mine else None
    earlier = mine[1:]
    if to is None:
        held = current.version if current else ""
        for promotion in earlier:
            if promotion.verified and promotion.version and promotion.version != held:
                return Choice(current, promotion)
        raise NoRollback(
            f"{environment} has no verified version before {held or 'what it runs'} to roll "
            "back to (name one with --to VERSION; --force for one never verified there)"
        )
    named = [p for p in earlier if p.version == to and p.commit != (current and current.commit)]
    if not named:
        ran = sorted({p.version for p in earlier if p.version and p.verified})
        hint = f" (verified there: {', '.join(ran)})" if ran else ""
        raise NoRollback(f"{environment} never ran {to} before{hint}")
    verified = next((p for p in named if p.verified), None)
    if verified is not None:
        return Choice(current, verified)
    if not force:
        raise NoRollback(
            f"{to} was never verified in {environment} (its gates did not all pass there): "
            "give --force to roll back to it anyway, and it is recorded so"
        )
    return Choice(current, named[0], forced=True)
