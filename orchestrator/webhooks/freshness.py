"""Whether a promotion a webhook asks for would move the trigger environment backwards.

A delivery may be old: a push replayed with a new delivery id after its Workflow is gone
(Argo's TTL, a restart of the service, another replica), a registry event re-sent, a slow
sender's retry. The run's name no longer finds the earlier run, so only the branch itself
can tell: what it holds *now*. Each delivery is therefore checked against the tip of the
trigger environment's branch, asked of the Git server every time (never remembered):

- a Git push promotes if its commit is still the tip, or an ancestor of the tip whose
  version is not older than the one the tip holds (the delivery came late, nothing newer
  was written since);
- a registry event promotes only a version newer than the one the tip holds.

Versions are compared with the product's order (``spec.triggers.order``,
:mod:`orchestrator.versionorder`). Anything else is refused with both versions named, so a
sender sees why (the app answers 409 when nothing else of the event starts). The promote
step checks again when it writes (a run may start late): this check spares a run that
would fail there, and keeps a replay from promoting what a later commit replaced.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Protocol

from orchestrator.graph.plan import ProductPlan
from orchestrator.versionorder import compare
from orchestrator.webhooks.triggers import GitReader, Outcome, Skip, Start, version_fields

SHOWN = 64
"""Commits of the branch fetched the first time (``GitRemote.fetch_recent``): an ancestor
further back is found only when the service's cache already holds the history between."""


class BranchReader(GitReader, Protocol):
    """The reads this check adds: the branch's tip now, and ancestry."""

    def tip(self, url: str, branch: str) -> str | None: ...

    def descends(self, url: str, commit: str, tip: str, branch: str = "") -> bool: ...


def _held(plan: ProductPlan, reader: BranchReader, tip: str) -> str | tuple[str, str]:
    """(version, where) the trigger environment holds at ``tip``, or why it cannot be read."""
    trigger = next(env for env in plan.environments if env.is_trigger)
    source = plan.template.spec.version_source
    if source is None:
        return f"template {plan.template.name} has no versionSource"
    file = f"{trigger.app.path.strip('/')}/{source.file}"
    url = plan.product.spec.repo.url
    text = reader.read_file(url, tip, file, trigger.app.branch)
    where = f"{file}@{tip[:12]}"
    if text is None:
        return f"{where} does not exist"
    found = version_fields(plan, text, where)
    if isinstance(found, str):
        return found
    return found[0], where


def check_push(start: Start, plan: ProductPlan, reader: BranchReader) -> Skip | None:
    """None when ``start`` (a Git push's promotion) may go on, else the refusal."""
    trigger = next(env for env in plan.environments if env.is_trigger)
    url, branch = plan.product.spec.repo.url, trigger.app.branch
    name, pushed, version = start.product, start.source_commit, start.version
    tip = reader.tip(url, branch)
    if tip is None:
        return Skip(name, f"branch {branch} no longer exists: not promoting {version}", True)
    if tip == pushed:
        return None
    held = _held(plan, reader, tip)
    if isinstance(held, str):
        return Skip(name, f"{pushed[:12]} is no longer the tip of {branch}: {held}", True)
    current, where = held
    if not reader.descends(url, pushed, tip, branch):
        return Skip(
            name,
            f"{pushed[:12]} (version {version}) is not on {branch} (its tip {tip[:12]} holds "
            f"{current}, {where}; searched back to the last {SHOWN} commits or the cached "
            "history): not promoted",
            True,
        )
    order = plan.product.spec.triggers.order
    found = compare(version, current, order)
    if order == "none" or (found is not None and found >= 0):
        return None
    if found is None:
        why = f"cannot tell whether {version} is newer than {current} (order: {order})"
    else:
        why = f"{version} is older than {current}"
    return Skip(
        name,
        f"push of {pushed[:12]} would promote {version}, but {branch} has moved on to "
        f"{tip[:12]}, where {trigger.environment} holds {current} ({where}): {why}; "
        "not promoted",
        True,
    )


def check_image(start: Start, plan: ProductPlan, reader: BranchReader) -> Skip | None:
    """None when ``start`` (a registry event's promotion) brings a newer version than the
    trigger environment holds, else the refusal."""
    trigger = next(env for env in plan.environments if env.is_trigger)
    url, branch = plan.product.spec.repo.url, trigger.app.branch
    name, version = start.product, start.version
    tip = reader.tip(url, branch)
    if tip is None:
        return Skip(name, f"branch {branch} does not exist: not promoting {version}", True)
    held = _held(plan, reader, tip)
    if isinstance(held, str):
        return Skip(name, f"cannot read the version {trigger.environment} holds: {held}", True)
    current, where = held
    order = plan.product.spec.triggers.order
    found = compare(current, version, order)
    if order == "none" or (found is not None and found < 0):
        return None
    if found is None:
        why = (
            f"cannot tell whether {version} is newer (order: {order}; "
            "set spec.triggers.order to one that orders these tags)"
        )
    elif found == 0:
        why = "it holds this version already"
    else:
        why = f"{version} is older"
    return Skip(
        name,
        f"{start.cause} would promote {version}, but {trigger.environment} holds {current} "
        f"({where}): {why}; a registry event promotes only a newer version",
        True,
    )


def verdicts(
    outcome: Outcome,
    push: bool,
    plans: Mapping[str, ProductPlan],
    reader: BranchReader,
    indexes: tuple[int, ...],
) -> dict[int, Skip | None]:
    """The check of each start in ``indexes`` (``push``: the starts come from a Git push,
    else from a registry event): None where it may go on, else its refusal."""
    check = check_push if push else check_image
    return {i: check(outcome.starts[i], plans[outcome.starts[i].product], reader) for i in indexes}


def combine(outcome: Outcome, found: Mapping[int, Skip | None]) -> Outcome:
    """``outcome`` with the starts ``found`` refuses turned into refusals (a start it does
    not name goes on: one already submitted, for instance)."""
    starts = tuple(s for i, s in enumerate(outcome.starts) if found.get(i) is None)
    if len(starts) == len(outcome.starts):
        return outcome
    skips = (*outcome.skips, *(skip for skip in found.values() if skip is not None))
    reason = "" if starts else "; ".join(f"{s.product}: {s.reason}" for s in skips)
    return Outcome(starts, skips, reason)
