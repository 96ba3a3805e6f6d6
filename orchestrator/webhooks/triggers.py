"""From a verified event to the promotions it starts: the products' ``spec.triggers``.

Pure decisions over the loaded configuration; the little Git a push needs (the paths a push
changed when the payload does not list them all, the version written at the pushed commit)
is read through a :class:`GitReader` handed in, so every rule here is tested with plain
values.

One event may start several promotions (a monorepo push changing two products' trigger
environments) or none, and then the outcome says why for each product that was close.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, Protocol

import yaml

from orchestrator.graph.plan import ProductPlan, plan_product
from orchestrator.loading import Config
from orchestrator.model.product import Product
from orchestrator.model.template import version_rule
from orchestrator.model.yamlpath import PathNotFound, lookup, parse_yaml_path
from orchestrator.nesting import yaml_too_deep
from orchestrator.problems import suggest
from orchestrator.semverrange import version_of
from orchestrator.webhooks.events import GitPush, ImagePush, PromotionAsked, Refused
from orchestrator.webhooks.images import normalize, same_repository, tag_passes
from orchestrator.yamltabs import MESSAGE as TABS
from orchestrator.yamltabs import tab_problem

BASE_LOADER = getattr(yaml, "CBaseLoader", yaml.BaseLoader)

OWN_TRAILER = re.compile(r"^Promotion-Run:", re.MULTILINE)
"""Every commit promoflow writes carries this trailer (orchestrator.steps.message)."""
MAX_TAG = 128
"""The longest tag the OCI distribution spec allows; longer is not a tag."""


class GitReader(Protocol):
    """The Git reads a push needs, at the product's repository (``url``)."""

    def changed_paths(self, url: str, before: str, after: str, branch: str = "") -> set[str]:
        """Paths that differ between the two commits (every path of ``after`` when
        ``before`` is empty: a new branch). ``branch``: where the commits were pushed,
        so a reader can fetch its recent history at once."""
        ...

    def read_file(self, url: str, commit: str, path: str, branch: str = "") -> str | None:
        """The file's text at ``commit``, or None if it has none."""
        ...

    def message(self, url: str, commit: str, branch: str = "") -> str: ...


@dataclass(frozen=True)
class Start:
    """A promotion to start."""

    product: str
    version: str
    source_commit: str = ""
    requested_by: str = ""
    fields: dict[str, str] = field(default_factory=dict)
    cause: str = ""
    """What started it, in words: ``push of 3f9a1c2e to main changed envs/dev/shop``."""
    identity: str = ""
    """What makes two deliveries the same promotion, when the event says it: the pushed
    commit (``git:SHA``) or the pushed image (``image:REPO@DIGEST``). Every delivery of
    one push (a redelivery, a retry, a second hook or sender for the same repository)
    then names the same run; empty: the delivery's id decides."""


@dataclass(frozen=True)
class Skip:
    product: str
    reason: str
    refused: bool = False
    """True: the event asks for something that would move a version backwards (a stale
    push, an old image), or for a version the template refuses (``versionPattern``): the
    sender is told so with ``status``, not a 200."""
    status: int = 409


@dataclass(frozen=True)
class Outcome:
    starts: tuple[Start, ...] = ()
    skips: tuple[Skip, ...] = ()
    reason: str = ""
    """Why nothing starts, when nothing does."""


@lru_cache(maxsize=1024)
def _repo_key(url: str) -> str:
    """``https://user@Git.Example.com/acme/gitops.git/`` and ``git@git.example.com:acme/
    gitops`` -> ``git.example.com/acme/gitops``: one repository however it is addressed."""
    text = url.strip()
    text = re.sub(r"^[a-z][a-z0-9+.-]*://", "", text, flags=re.IGNORECASE)
    text = text.rsplit("@", 1)[-1] if "@" in text.split("/", 1)[0] else text
    host, sep, path = text.partition("/")
    if ":" in host:
        host, _, rest = host.partition(":")
        if not rest.isdigit():  # scp-like git@host:owner/repo
            path = f"{rest}/{path}" if sep else rest
    path = path.strip("/").removesuffix(".git").strip("/")
    return f"{host.lower()}/{path.lower()}"


def same_repo(a: str, b: str) -> bool:
    return _repo_key(a) == _repo_key(b)


def _under(path: str, directory: str) -> bool:
    directory = directory.strip("/")
    return path == directory or path.startswith(directory + "/")


def _own(message: str) -> bool:
    return OWN_TRAILER.search(message) is not None


NULLS = frozenset({"", "~", "null", "Null", "NULL"})


def _at(data: Any, path: str) -> Any:
    try:
        return lookup(data, parse_yaml_path(path))
    except PathNotFound:
        return None


def version_fields(plan: ProductPlan, text: str, name: str) -> tuple[str, dict[str, str]] | str:
    """(version, fields) as written in the version file, or why they cannot be read.

    Scalars are read as the text they are written as (YAML's base schema), so ``1.10`` is
    the version "1.10", not the number 1.1."""
    source = plan.template.spec.version_source
    assert source is not None
    found = _read_paths(text, (source.version_path, *source.fields))
    if isinstance(found, str):
        return f"{name}{found}"
    version, *fields = found
    return version, dict(zip(source.fields, fields, strict=True))


@lru_cache(maxsize=512)
def _read_paths(text: str, paths: tuple[str, ...]) -> tuple[str, ...] | str:
    """The text at each YAML path, or why not (to follow the file's name). Remembered:
    every delivery of one push reads the same file."""
    if yaml_too_deep(text) is not None:
        return ": nests too deep to read"
    try:
        data = yaml.load(text, Loader=BASE_LOADER)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        tab = tab_problem(text, getattr(mark, "line", None), getattr(exc, "problem", None))
        return f":{tab.line}:{tab.column}: {TABS}" if tab else " is not valid YAML"
    values = []
    for i, path in enumerate(paths):
        value = _at(data, path)
        if not isinstance(value, str) or value in NULLS:
            return f": {path} holds {'no version' if i == 0 else 'no value'}"
        values.append(value)
    return tuple(values)


Plans = Mapping[str, ProductPlan]
"""Every product's plan, by name: planned once when the service starts, not per delivery."""


def plans_of(config: Config) -> dict[str, ProductPlan]:
    return {name: plan_product(config, name) for name in sorted(config.products)}


def _plans(plans: Plans) -> Iterable[tuple[Product, ProductPlan]]:
    for name in sorted(plans):
        yield plans[name].product, plans[name]


def for_push(push: GitPush, plans: Plans, reader: GitReader) -> Outcome:
    """Each product whose trigger environment the push changed, with the version written
    there at the pushed commit."""
    starts: list[Start] = []
    skips: list[Skip] = []
    candidates = 0
    pushed = {_repo_key(url) for url in push.repositories}
    touched = _directories(push) if push.complete and push.commits else None
    for product, plan in _plans(plans):
        if _repo_key(product.spec.repo.url) not in pushed:
            continue
        trigger = next(env for env in plan.environments if env.is_trigger)
        if trigger.app.branch != push.branch:
            continue
        candidates += 1
        path = trigger.app.path.strip("/")
        if touched is not None and path not in touched:
            skips.append(Skip(product.name, f"the push does not change {path}"))
            continue
        decision = _push_decision(push, product, plan, trigger.app.path, reader)
        (starts if isinstance(decision, Start) else skips).append(decision)  # type: ignore[arg-type]
    if starts:
        return Outcome(tuple(starts), tuple(skips))
    if not candidates:
        urls = push.repositories[0] if push.repositories else "the repository"
        reason = f"no product is promoted from {urls} branch {push.branch}"
    elif skips:
        reason = "; ".join(f"{s.product}: {s.reason}" for s in skips)
    else:
        reason = "nothing to promote"
    return Outcome((), tuple(skips), reason)


def _directories(push: GitPush) -> set[str]:
    """Every path the listed commits changed and every directory above one: a product's
    path is then looked up, not compared with each changed path."""
    found: set[str] = set()
    for commit in push.commits:
        for path in commit.paths:
            parts = path.strip("/").split("/")
            found.update("/".join(parts[:i]) for i in range(1, len(parts) + 1))
    return found


def _push_decision(
    push: GitPush, product: Product, plan: ProductPlan, path: str, reader: GitReader
) -> Start | Skip:
    name = product.name
    triggers = product.spec.triggers
    if not triggers.enabled or not triggers.git:
        what = "automatic promotion" if not triggers.enabled else "promotion on Git pushes"
        return Skip(name, f"{what} is off (spec.triggers)")
    url = product.spec.repo.url
    listed = push.complete and bool(push.commits)
    if listed:
        touching = [c for c in push.commits if any(_under(p, path) for p in c.paths)]
        if not touching:
            return Skip(name, f"the push does not change {path}")
        if all(_own(c.message) for c in touching):
            return Skip(name, f"the change to {path} is promoflow's own promotion commit")
    else:
        if not any(
            _under(p, path) for p in reader.changed_paths(url, push.before, push.after, push.branch)
        ):
            return Skip(name, f"the push does not change {path}")
        head = next((c.message for c in push.commits if c.sha == push.after), None)
        if _own(head if head is not None else reader.message(url, push.after, push.branch)):
            return Skip(name, f"the change to {path} is promoflow's own promotion commit")
    source = plan.template.spec.version_source
    if source is None:
        return Skip(name, f"template {plan.template.name} has no versionSource to read it from")
    file = f"{path.rstrip('/')}/{source.file}"
    text = reader.read_file(url, push.after, file, push.branch)
    if text is None:
        return Skip(name, f"{file} does not exist at {push.after[:12]}")
    read_out = version_fields(plan, text, f"{file}@{push.after[:12]}")
    if isinstance(read_out, str):
        return Skip(name, read_out)
    version, fields = read_out
    refusal = version_rule(plan.template).refusal(version)
    if refusal is not None:
        return Skip(name, f"{file}@{push.after[:12]}: {refusal}", refused=True, status=422)
    return Start(
        name,
        version,
        source_commit=push.after,
        requested_by=push.pusher,
        fields=fields,
        cause=f"push of {push.after[:12]} to {push.branch} changed {path}",
        identity=f"git:{push.after}",
    )


def _best_tag(tags: Iterable[str]) -> str | None:
    """The highest version among ``tags``, else the first; ``latest`` and friends only when
    nothing else was pushed."""
    usable = [t for t in tags if t and len(t) <= MAX_TAG]
    versions = [(v, t) for t in usable if (v := version_of(t)) is not None]
    if versions:
        return max(versions, key=lambda pair: pair[0])[1]
    return usable[0] if usable else None


def for_image(push: ImagePush, plans: Plans) -> Outcome:
    """Each product with an image trigger for the pushed repository, with the best pushed
    tag that passes its filter."""
    starts: list[Start] = []
    skips: list[Skip] = []
    for product, plan in _plans(plans):
        triggers = product.spec.triggers
        for trigger in triggers.images:
            if not same_repository(trigger.repository, push.repository, host_known=push.host_known):
                continue
            if not triggers.enabled:
                skips.append(Skip(product.name, "automatic promotion is off (spec.triggers)"))
                break
            passing = [t for t in push.tags if len(t) <= MAX_TAG and tag_passes(trigger, t)]
            # CI often pushes a commit tag beside the release: not a version, not an error
            refusals = {t: r for t in passing if (r := version_rule(plan.template).refusal(t))}
            if passing and len(refusals) == len(passing):
                skips.append(Skip(product.name, "; ".join(refusals.values())))
                break
            tag = _best_tag(t for t in passing if t not in refusals)
            if tag is None:
                rule = trigger.semver or trigger.regex or "any tag"
                shown = ", ".join(push.tags) or "no tag"
                skips.append(Skip(product.name, f"{shown} does not pass the filter {rule!r}"))
                break
            fields = {trigger.digest_field: push.digest} if trigger.digest_field else {}
            source = plan.template.spec.version_source
            missing = [f for f in (source.fields if source else []) if not fields.get(f)]
            if missing:
                skips.append(
                    Skip(
                        product.name,
                        f"{', '.join(missing)} must come with the version and a registry push "
                        "gives only its digest (set digestField on the image trigger)",
                    )
                )
                break
            starts.append(
                Start(
                    product.name,
                    tag,
                    requested_by=push.pusher,
                    fields=fields,
                    cause=f"push of {push.repository}:{tag}",
                    identity=f"image:{normalize(push.repository)}@{push.digest}"
                    if push.digest
                    else "",
                )
            )
            break
    if starts:
        return Outcome(tuple(starts), tuple(skips))
    reason = "; ".join(f"{s.product}: {s.reason}" for s in skips) or (
        f"no product has an image trigger for {push.repository}"
    )
    return Outcome((), tuple(skips), reason)


def for_request(asked: PromotionAsked, plans: Plans) -> Outcome:
    """A direct request: the product must exist and accept them; the version's fields must
    be those its template declares."""
    found = plans.get(asked.product)
    if found is None:
        raise Refused(422, f"unknown product {asked.product!r}{suggest(asked.product, plans)}")
    product = found.product
    triggers = product.spec.triggers
    if not triggers.enabled or not triggers.generic:
        what = "automatic promotion" if not triggers.enabled else "promotion on direct requests"
        skip = Skip(product.name, f"{what} is off (spec.triggers)")
        return Outcome((), (skip,), f"{product.name}: {skip.reason}")
    plan = found
    source = plan.template.spec.version_source
    declared = source.fields if source else []
    missing = [f for f in declared if not asked.fields.get(f)]
    unknown = sorted(set(asked.fields) - set(declared))
    if missing:
        raise Refused(422, f"{product.name} needs fields with the version: {', '.join(missing)}")
    if unknown:
        raise Refused(422, f"{product.name} has no version fields {', '.join(unknown)}")
    refusal = version_rule(plan.template).refusal(asked.version)
    if refusal is not None:
        raise Refused(422, f"{product.name}: {refusal}")
    start = Start(
        product.name,
        asked.version,
        source_commit=asked.source_commit,
        requested_by=asked.requested_by,
        fields=dict(asked.fields),
        cause="direct request",
    )
    return Outcome((start,))
