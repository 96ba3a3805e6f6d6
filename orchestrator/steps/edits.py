"""The edit of one promote attempt: how the target environment's files change.

What the promote step writes, apart from how it pushes: the version set in the trigger
environment, values, whole files and Kustomize images copied from the source environment,
each checked in both (a path only one side has is refused, naming the nearest one), and the
image the edited file names. :mod:`orchestrator.steps.promote` runs an :class:`Edit` per
attempt against the tip it builds on, so a retried push re-applies the same edit.
"""

from __future__ import annotations

import pygit2

from orchestrator import globs
from orchestrator.adapters.git import GitRemote
from orchestrator.adapters.gittree import Changes, Entry, list_files, subtree
from orchestrator.errors import PromoflowError
from orchestrator.imagefile import image_in
from orchestrator.imagespec import ImageSpecError, PromotedImage
from orchestrator.model.paths import is_glob
from orchestrator.steps import kustomize_image
from orchestrator.steps.request import FileSpec, PromoteRequest
from orchestrator.yamledit import Update, Value, YamlEditError, edit, read


class PromoteError(PromoflowError):
    """The promotion cannot be done as asked (a terminal error: retrying will not help)."""


def blob(remote: GitRemote, oid: pygit2.Oid) -> str:
    data = remote.repo[oid].peel(pygit2.Blob).data
    try:
        return bytes(data).decode("utf-8")
    except UnicodeDecodeError:
        raise PromoteError(f"file with id {oid} is not UTF-8 text") from None


def join(*parts: str | None) -> str:
    return "/".join(p.strip("/") for p in parts if p and p.strip("/"))


class Edit:
    """Collects the changes of one attempt against one target tip."""

    def __init__(self, remote: GitRemote, request: PromoteRequest, tip: pygit2.Commit) -> None:
        self.remote, self.request, self.tip = remote, request, tip
        repo = remote.repo
        self.target = list_files(repo, subtree(repo, tip.tree, request.target_path))
        self.changes: Changes = {}
        self.texts: dict[str, str] = {}
        self.values: list[tuple[str, str, str, str]] = []

    def target_path(self, rel: str) -> str:
        return join(self.request.target_path, rel)

    def put(self, rel: str, entry: Entry | None) -> None:
        current = self.target.get(rel)
        if entry is None and current is None:
            return
        if entry is not None and current == entry:
            return
        self.changes[self.target_path(rel)] = entry

    def target_text(self, rel: str) -> str:
        if rel in self.texts:
            return self.texts[rel]
        entry = self.target.get(rel)
        if entry is None:
            raise PromoteError(
                f"{self.target_path(rel)} does not exist on {self.request.branch}: "
                "create it in the target environment first"
            )
        return blob(self.remote, entry.oid)

    def set_text(self, rel: str, text: str) -> None:
        self.texts[rel] = text
        oid = self.remote.repo.create_blob(text.encode("utf-8"))
        mode = self.target[rel].mode if rel in self.target else pygit2.enums.FileMode.BLOB
        self.put(rel, Entry(oid, mode))


def image_of(work: Edit) -> PromotedImage | None:
    """The image the template names, read from its file as the promotion leaves it."""
    spec = work.request.image_spec()
    if spec is None:
        return None
    text = final_text(work, spec.file)
    name = work.target_path(spec.file)
    if text is None:
        raise PromoteError(
            f"{name} does not exist on {work.request.branch}: the template reads its image "
            f"from {spec.file}"
        )
    try:
        return image_in(spec, text, name)
    except ImageSpecError as exc:
        raise PromoteError(str(exc)) from None


def final_text(work: Edit, rel: str) -> str | None:
    """A target file as this promotion leaves it: edited, copied, deleted or untouched."""
    if rel in work.texts:
        return work.texts[rel]
    path = work.target_path(rel)
    if path in work.changes:
        entry = work.changes[path]
        return None if entry is None else blob(work.remote, entry.oid)
    current = work.target.get(rel)
    return None if current is None else blob(work.remote, current.oid)


def needed_blobs(
    request: PromoteRequest, source: dict[str, Entry], target: dict[str, Entry]
) -> list[pygit2.Oid]:
    """Every blob this promotion reads or copies: fetched in one request."""
    names: set[str] = set()
    for rule in request.files:
        if rule.whole_file:
            names.update(p for p in source if globs.match(rule.file, p))
        else:
            names.add(rule.file)
    if request.version_file:
        names.add(request.version_file)
    spec = request.image_spec()
    if spec is not None:
        names.add(spec.file)
    wanted = [source[n].oid for n in names if n in source]
    wanted += [target[n].oid for n in names if n in target and not whole(request, n)]
    return wanted


def whole(request: PromoteRequest, name: str) -> bool:
    return any(r.whole_file and globs.match(r.file, name) for r in request.files)


def set_version(work: Edit, request: PromoteRequest) -> None:
    if not request.version:
        raise PromoteError("the trigger environment needs --version (the version to promote)")
    if not request.version_file or not request.version_path:
        raise PromoteError(
            f"template of {request.product} has no versionSource: cannot set a version"
        )
    fields = request.field_values()
    missing = [p for p in request.required_fields() if not fields.get(p)]
    if missing:  # a tag without its digest would deploy something other than it names
        raise PromoteError(
            f"a version of {request.product} comes with {', '.join(missing)}: give each "
            f"value with the version (promoflow promote --set {missing[0]}=VALUE)"
        )
    rel = request.version_file
    text = work.target_text(rel)
    name = work.target_path(rel)
    updates: dict[str, Update] = {request.version_path: Value(request.version)}
    create: set[str] = set()
    if request.version_kustomize_image:
        updates, create = kustomize_image.version_updates(
            request.version_kustomize_image, request.version, fields
        )
    updates.update({path: Value(value) for path, value in fields.items()})
    apply(work, rel, text, name, updates, create)


def apply(
    work: Edit, rel: str, text: str, name: str, updates: dict[str, Update], create: set[str]
) -> None:
    """Edit ``rel`` (text ``text``, shown as ``name``) and record every changed value."""
    try:
        before = {path: scalar_text(text, path, name) for path in updates}
        new = edit(text, updates, name, create=create)
    except YamlEditError as exc:
        raise PromoteError(str(exc)) from None
    if new == text:
        return
    work.set_text(rel, new)
    for path, value in updates.items():
        after = "(absent)" if value is None else str(value.data)
        if before[path] != after:
            work.values.append((rel, path, before[path], after))


def check_next_source(work: Edit, request: PromoteRequest) -> None:
    """The trigger environment is where the next promotion reads from: a path its files
    lack (a typo in the template) would stop that promotion after this one was pushed, so
    it stops this one, before anything is pushed."""
    for rule in request.files:
        if rule.whole_file:
            if not is_glob(rule.file) and rule.file not in work.target:
                raise PromoteError(
                    f"{work.target_path(rule.file)} does not exist on {request.branch}"
                )
            continue
        text, name = work.target_text(rule.file), work.target_path(rule.file)
        wanted = rule.paths or (kustomize_image.path(rule.kustomize_image or ""),)
        try:
            for path in wanted:
                read(text, path, name)
        except YamlEditError as exc:
            raise PromoteError(str(exc)) from None


def scalar_text(text: str, path: str, name: str) -> str:
    try:
        return str(read(text, path, name).data)
    except YamlEditError:
        return "(absent)"


def check_version(remote: GitRemote, request: PromoteRequest, source: dict[str, Entry]) -> None:
    """Refuse to promote from an environment that does not hold the requested version."""
    if not request.version or not request.version_file or not request.version_path:
        return
    entry = source.get(request.version_file)
    if entry is None:
        return
    name = join(request.source_path, request.version_file)
    try:
        held = read(blob(remote, entry.oid), request.version_path, name).data
    except YamlEditError as exc:
        raise PromoteError(str(exc)) from None
    if str(held) != request.version:
        raise PromoteError(
            f"{request.source_environment} holds version {held} ({name}), not "
            f"{request.version}: promote {request.version} into it first"
        )


def copy_files(work: Edit, pattern: str, source: dict[str, Entry]) -> None:
    matched = {p: e for p, e in source.items() if globs.match(pattern, p)}
    if not matched and not is_glob(pattern):
        raise PromoteError(
            f"{join(work.request.source_path, pattern)} not found in "
            f"{work.request.source_environment}"
        )
    for rel, entry in matched.items():
        work.put(rel, entry)
    for rel in [p for p in work.target if globs.match(pattern, p) and p not in matched]:
        work.put(rel, None)  # deleted in the source, so deleted in the target


def read_source(remote: GitRemote, work: Edit, file: str, source: dict[str, Entry]) -> str:
    entry = source.get(file)
    if entry is None:
        name = join(work.request.source_path, file)
        raise PromoteError(f"{name} not found in {work.request.source_environment}")
    return blob(remote, entry.oid)


def copy_values(remote: GitRemote, work: Edit, rule: FileSpec, source: dict[str, Entry]) -> None:
    """The rule's paths, read from the source file and written into the target file: each
    must exist in both (a typo is refused, naming the nearest path), unless the rule may
    create them in the target."""
    source_text = read_source(remote, work, rule.file, source)
    source_name = join(work.request.source_path, rule.file)
    try:
        values: dict[str, Update] = {p: read(source_text, p, source_name) for p in rule.paths}
    except YamlEditError as exc:
        raise PromoteError(str(exc)) from None
    create = set(rule.paths) if rule.create else set()
    text = work.target_text(rule.file)
    apply(work, rule.file, text, work.target_path(rule.file), values, create)


def copy_kustomize_image(
    remote: GitRemote, work: Edit, rule: FileSpec, image: str, source: dict[str, Entry]
) -> None:
    """The source's version of Kustomize image ``image`` (its newTag or digest), written
    into the target's entry of that name, which is added when missing."""
    source_text = read_source(remote, work, rule.file, source)
    text = work.target_text(rule.file)
    target_name = work.target_path(rule.file)
    try:
        updates, create = kustomize_image.copy_updates(
            source_text, text, image, join(work.request.source_path, rule.file), target_name
        )
    except YamlEditError as exc:
        raise PromoteError(str(exc)) from None
    apply(work, rule.file, text, target_name, updates, create)
