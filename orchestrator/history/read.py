"""A product's promotions read back from its GitOps repository (:mod:`.record` for one).

Per branch the product's environments live on, every commit is walked newest first. A
commit whose trailers name the product is its promotion into the environment they name;
trailers naming another product are passed over without looking at trees. A commit with
no ``Promotion-Product`` trailer (made by hand, or by an earlier promoflow) is attributed
by the environment folders it changed, so nothing that changed what runs is left out.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from orchestrator.history import note, record, trailers
from orchestrator.history.record import CommitInfo, Promotion

if TYPE_CHECKING:
    import pygit2

    from orchestrator.adapters.githistory import HistoryRepository
    from orchestrator.graph.plan import ProductPlan

STATE_VERSION = 1
"""Of what a read keeps for the next (:func:`_walked`): a change of its shape reads all."""

# promoflow's default subject before it wrote Promotion-Version
_SUBJECT = re.compile(r"^Promote (\S+) (\S+) to (\S+)$")


@dataclass
class History:
    product: str
    repository: str
    promotions: list[Promotion] = field(default_factory=list)
    """Newest first."""
    orphaned_notes: int = 0
    """Notes naming commits no longer on any branch read (a force-push dropped them)."""


@dataclass(frozen=True)
class _Where:
    environment: str
    path: str
    version_file: str


def read_history(
    plan: ProductPlan,
    repository: HistoryRepository,
    environments: list[str] | None = None,
    since: int = 0,
) -> History:
    """Every promotion of ``plan``'s product (in ``environments``, committed at or after
    ``since``), newest first."""
    product = plan.product.name
    found = History(product, repository.url)
    version = plan.template.spec.version_source
    by_branch: dict[str, list[_Where]] = {}
    for env in plan.environments:
        file = f"{env.app.path.rstrip('/')}/{version.file}" if version else ""
        where = _Where(env.environment, env.app.path.strip("/"), file)
        by_branch.setdefault(env.app.branch, []).append(where)
    reached: set[str] = set()
    hand: list[Promotion] = []
    repository.fetch_notes()
    for branch, places in by_branch.items():
        hits, seen = _walked(repository, branch, product, places)
        reached |= seen
        named = {w.environment: w for w in places}
        for sha, environment in hits:
            commit = repository.commit(sha)
            if commit.commit_time < since or (environments and environment not in environments):
                continue
            message = commit.message
            if environment in named and "Promotion-Product:" in message:
                promotion = _ours(commit, message, product, named, repository)
            else:
                promotion = _unmarked(commit, message, named[environment], product, repository)
            if promotion is None:
                continue
            found.promotions.append(promotion)
            if record.HAND in promotion.partial:
                hand.append(promotion)
    _read_versions(hand, by_branch, plan, repository)
    found.orphaned_notes = len(repository.noted() - reached) if reached else 0
    if len(by_branch) > 1:  # each branch walked newest first: merged by time
        found.promotions.sort(key=lambda p: p.committed_at, reverse=True)
    return found


def _walked(
    repository: HistoryRepository, branch: str, product: str, places: list[_Where]
) -> tuple[list[tuple[str, str]], set[str]]:
    """``(commit, environment)`` of each of the product's changes on ``branch``, newest
    first, and every commit of the branch. What an earlier read found is kept beside the
    repository: a later one walks only the commits since (the branch only grows; after a
    force-push it walks all again)."""
    tip = repository.fetch(branch)
    key = hashlib.sha256(
        json.dumps(
            [STATE_VERSION, branch, product, [(w.environment, w.path) for w in places]]
        ).encode()
    ).hexdigest()[:24]
    kept: dict[str, Any] = {}
    text = repository.load_state(key)
    if text:
        with contextlib.suppress(ValueError):
            kept = json.loads(text)
    old = str(kept.get("tip", ""))
    if old and old != tip and not repository.descends(old, tip):
        kept, old = {}, ""
    if old == tip:
        return [(str(a), str(b)) for a, b in kept["hits"]], set(kept["reached"])
    hits, reached = _walk(repository, tip, old, product, places)
    hits += [(str(a), str(b)) for a, b in kept.get("hits", [])]
    reached += [str(r) for r in kept.get("reached", [])]
    state = {"tip": tip, "hits": hits, "reached": reached}
    repository.save_state(key, json.dumps(state, separators=(",", ":")))
    return hits, set(reached)


def _walk(
    repository: HistoryRepository, tip: str, after: str, product: str, places: list[_Where]
) -> tuple[list[tuple[str, str]], list[str]]:
    """The product's changes between ``after`` and ``tip`` (see :func:`_walked`)."""
    marker = f"Promotion-Product: {product}".encode()
    environment_of = b"Promotion-Environment: "
    named = {w.environment for w in places}
    paths = {w.path: w.environment for w in places}
    hits: list[tuple[str, str]] = []
    reached: list[str] = []
    for commit in repository.commits(tip, after):
        sha = str(commit.id)
        reached.append(sha)
        if len(commit.parent_ids) > 1:
            continue  # a merge: its promotion commits are walked themselves
        raw = commit.raw_message  # bytes: most messages are never decoded
        if b"Promotion-Product:" in raw:
            at = raw.find(marker)
            if at < 0 or raw[at + len(marker) : at + len(marker) + 1] not in (b"\n", b""):
                continue
            where = raw.find(environment_of)
            line = raw[where + len(environment_of) :].split(b"\n", 1)[0] if where >= 0 else b""
            environment = line.decode("utf-8", "replace").strip()
            if environment in named:
                hits.append((sha, environment))
            continue
        hits += [(sha, paths[path]) for path in repository.changed(commit, list(paths))]
    return hits, reached


def _info(commit: pygit2.Commit, message: str) -> CommitInfo:
    author = commit.author
    return CommitInfo(
        str(commit.id), f"{author.name} <{author.email}>", commit.commit_time, message
    )


def _ours(
    commit: pygit2.Commit,
    message: str,
    product: str,
    named: dict[str, _Where],
    repository: HistoryRepository,
) -> Promotion | None:
    parsed = trailers.parse(message)
    if trailers.first(parsed, "Promotion-Product") != product:
        return None
    environment = trailers.first(parsed, "Promotion-Environment")
    if environment not in named:
        return None
    info = _info(commit, message)
    verification = note.parse(repository.note(info.sha))
    promotion = record.from_commit(info, environment, product, verification)
    return promotion


def _unmarked(
    commit: pygit2.Commit,
    message: str,
    where: _Where,
    product: str,
    repository: HistoryRepository,
) -> Promotion:
    """A change to the environment's folder without promoflow's product trailers."""
    info = _info(commit, message)
    verification = note.parse(repository.note(info.sha))
    promotion = record.from_commit(info, where.environment, product, verification)
    if record.HAND not in promotion.partial and not promotion.version:
        subject = _SUBJECT.match(promotion.subject)
        if subject is not None and subject.group(1) == product:
            promotion.version = subject.group(2)
    return promotion


def _read_versions(
    hand: list[Promotion],
    by_branch: dict[str, list[_Where]],
    plan: ProductPlan,
    repository: HistoryRepository,
) -> None:
    """The version each hand commit left in its environment's version file."""
    version = plan.template.spec.version_source
    if not hand or version is None:
        for promotion in hand:
            promotion.partial.append("version-unread")
        return
    from orchestrator import yamledit
    from orchestrator.model.yamlpath import Selector, format_yaml_path

    where = version.version_path
    if version.kustomize_image is not None:  # the entry's newTag, found by its name
        name = version.kustomize_image.name
        where = format_yaml_path(("images", Selector("name", name), "newTag"))

    files = {w.environment: w.version_file for ws in by_branch.values() for w in ws}
    wanted = [(p.commit, files[p.environment]) for p in hand]
    contents = repository.read_files(wanted)
    for promotion in hand:
        data = contents.get((promotion.commit, files[promotion.environment]))
        try:
            value = yamledit.read(data.decode(), where) if data else None
        except (UnicodeDecodeError, yamledit.YamlEditError):
            value = None
        if value is None or isinstance(value.data, dict | list):
            promotion.partial.append("version-unread")
        else:
            promotion.version = str(value.data)
