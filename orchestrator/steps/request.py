"""What the promote step is asked to do, fully resolved.

A compiled workflow passes every value as a flag (repository, branches, paths, files), so a
run needs no access to the configuration repository and records exactly what it promoted.
For local use the same request can be resolved from ``--config PATH --product P --to ENV``:
both paths produce an equal :class:`PromoteRequest`, which is what the step acts on.
"""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from orchestrator.errors import UsageError
from orchestrator.imagespec import ImageSpec, ImageSpecError
from orchestrator.model.paths import check_paths_value, check_relative_file, check_yaml_path
from orchestrator.nesting import json_too_deep
from orchestrator.urls import UrlError, check_git_url, scrub_data
from orchestrator.versionorder import DEFAULT, Order, check_order

if TYPE_CHECKING:
    from orchestrator.loading.config import Config

ACTIONS = ("commit", "pull-request", "none")


class RequestError(UsageError, ValueError):
    """The step's arguments are incomplete or contradictory (a usage error, exit 2)."""


@dataclass(frozen=True)
class FileSpec:
    """One file to promote: selected YAML paths, a Kustomize image (by its name), or the
    whole file when neither is given (the step's form of a PromotionTemplate's FileRule,
    checked by the same rules: empty ``paths`` here means it was absent, since a written
    empty ``paths`` is refused). ``create``: the paths may add what the target lacks."""

    file: str
    paths: tuple[str, ...] = ()
    create: bool = False
    kustomize_image: str | None = None

    @property
    def whole_file(self) -> bool:
        return not self.paths and self.kustomize_image is None

    def as_json(self) -> dict[str, Any]:
        """The ``--files`` entry (the FileRule's own spelling)."""
        entry: dict[str, Any] = {"file": self.file}
        if self.paths:
            entry["paths"] = list(self.paths)
        if self.create:
            entry["create"] = True
        if self.kustomize_image is not None:
            entry["kustomizeImage"] = {"name": self.kustomize_image}
        return entry


@dataclass(frozen=True)
class PromoteRequest:
    """Inputs of one promotion into one environment.

    A plain dataclass checked by :func:`build_request`: the promote step starts once per
    workflow node, and this keeps pydantic (and the model layer) out of its start-up."""

    product: str
    environment: str
    repo: str
    branch: str
    target_path: str
    files: tuple[FileSpec, ...]
    source_environment: str | None = None
    source_commit: str | None = None
    version: str | None = None
    source_branch: str | None = None
    source_path: str | None = None
    version_file: str | None = None
    version_path: str | None = None
    version_fields: str | None = None
    """JSON object: the values of the version's fields (``{"image.digest": "sha256:..."}``)."""
    version_field_paths: str | None = None
    """Comma-separated fields the template requires with a new version."""
    version_kustomize_image: str | None = None
    """The Kustomize image whose ``newTag`` the version is (``version_path`` names it)."""
    action: str = "commit"
    requested_by: str | None = None
    run: str | None = None
    image: str | None = None
    """JSON: the image the version is (an ``ImageSpec``); the step reads it from the file
    it promoted and outputs it for the wait step to check."""
    version_order: str | None = None
    """How the product's versions are ordered (``spec.triggers.order``; None: ``semver``):
    the step refuses to write a version older than the one its target holds."""
    rollback: str | None = None
    """``true``: this promotion may write an older version than the target holds (a
    deliberate downgrade); the commit then says so in a ``Rollback:`` trailer."""
    rollback_reason: str | None = None
    """Why the rollback was asked for: a ``Rollback-Reason:`` trailer of its commit."""

    def image_spec(self) -> ImageSpec | None:
        """The parsed ``--image`` (checked by :func:`build_request`)."""
        return ImageSpec.from_json(self.image) if self.image else None

    def field_values(self) -> dict[str, str]:
        """The version's fields as ``path -> value`` (checked by :func:`build_request`)."""
        parsed: dict[str, str] = json.loads(self.version_fields) if self.version_fields else {}
        return parsed

    def required_fields(self) -> list[str]:
        return [p for p in (self.version_field_paths or "").split(",") if p]

    @property
    def order(self) -> Order:
        """The version order (checked by :func:`build_request`)."""
        return check_order(self.version_order or DEFAULT)

    @property
    def is_rollback(self) -> bool:
        return self.rollback == "true"

    @property
    def is_trigger(self) -> bool:
        """No source environment: the version itself is written (the flow's entry)."""
        return self.source_environment is None

    def replace(self, **changes: Any) -> PromoteRequest:
        return dataclasses.replace(self, **changes)

    def to_json(self) -> str:
        """The resolved request as ``--plan`` prints it (field order of the flags)."""
        data: dict[str, Any] = {name: getattr(self, name) for name in _FIELDS}
        data["files"] = [f.as_json() for f in self.files]
        # the step takes user:token@ in --repo (and any flag may hold a pasted secret):
        # what is printed is scrubbed, whatever field it is in (the values, not the JSON
        # text: masking inside an escaped string could break the JSON)
        return json.dumps(scrub_data(data), indent=2)


_REQUIRED = ("product", "environment", "repo", "branch", "target_path")
_FIELDS = (
    "product", "environment", "source_environment", "source_commit", "version", "repo",
    "branch", "source_branch", "source_path", "target_path", "files", "version_file",
    "version_path", "version_fields", "version_field_paths", "version_kustomize_image",
    "action", "requested_by", "run", "image", "version_order", "rollback", "rollback_reason",
)  # fmt: skip


def field_names() -> tuple[str, ...]:
    """The request's fields, as keywords (``source_path``): what a step passes on of its
    inputs to :func:`build_request`."""
    return _FIELDS


def _flag(name: str) -> str:
    return "--" + name.replace("_", "-")


def _inside_repository(name: str, value: str | None) -> None:
    """A directory of the repository: ``..`` or ``.`` would name a tree entry git refuses
    (and ``..`` would leave the environment's directory)."""
    if value is not None and any(part in (".", "..") for part in value.split("/")):
        raise RequestError(
            f"{_flag(name)}: {value!r}: '.' and '..' are not allowed in a repository path"
        )


_FILE_KEYS = ("file", "paths", "create", "kustomizeImage")


def file_spec(item: Any, where: str = "--files") -> FileSpec:
    """One ``{"file": ..., "paths": [...]}`` entry (or a FileRule), checked.

    As in a PromotionTemplate, only an absent ``paths`` means the whole file: a written one
    that is empty, null or not a list is refused (see ``check_paths_value``)."""
    if isinstance(item, FileSpec):
        item = item.as_json()
    elif not isinstance(item, dict):  # a FileRule from the configuration: checked on load
        item = _rule_entry(item)
    raw: dict[str, Any] = item
    unknown = sorted(set(raw) - set(_FILE_KEYS))
    if unknown:
        raise RequestError(
            f"{where}: unknown field {unknown[0]!r} (expected {', '.join(_FILE_KEYS)})"
        )
    name = raw.get("file")
    if not isinstance(name, str):
        raise RequestError(f"{where}: every entry needs a 'file' string")
    paths: Any = []
    if "paths" in raw:
        paths = raw["paths"]
        problem = check_paths_value(paths)
        if problem:
            raise RequestError(f"{where}: 'paths' of {name!r} {problem}")
        if not all(isinstance(p, str) for p in paths):
            raise RequestError(f"{where}: 'paths' of {name!r} must be a list of strings")
    create = raw.get("create", False)
    if not isinstance(create, bool) or (create and not paths):
        raise RequestError(f"{where}: 'create' of {name!r} must be true or false, with 'paths'")
    image = _kustomize_image(raw.get("kustomizeImage"), name, where)
    if image is not None and paths:
        raise RequestError(f"{where}: {name!r} gives both 'paths' and 'kustomizeImage'")
    try:
        check_relative_file(name)
        for path in paths:
            check_yaml_path(path)
    except ValueError as exc:
        raise RequestError(f"{where}: {exc}") from None
    return FileSpec(name, tuple(paths), create, image)


def _rule_entry(rule: Any) -> dict[str, Any]:
    """A FileRule from the configuration (checked on load) in the ``--files`` spelling."""
    entry: dict[str, Any] = {"file": getattr(rule, "file", None)}
    if getattr(rule, "paths", None):
        entry["paths"] = list(rule.paths)
    if getattr(rule, "create", False):
        entry["create"] = True
    image = getattr(rule, "kustomize_image", None)
    if image is not None:
        entry["kustomizeImage"] = {"name": image.name}
    return entry


def _kustomize_image(value: Any, name: str, where: str) -> str | None:
    if value is None:
        return None
    image = value.get("name") if isinstance(value, dict) else None
    if not isinstance(value, dict) or set(value) != {"name"} or not isinstance(image, str):
        raise RequestError(f"{where}: 'kustomizeImage' of {name!r} must be {{\"name\": IMAGE}}")
    if not image.strip() or any(c.isspace() or c in "[]\"'" for c in image):
        raise RequestError(f"{where}: {image!r} is not an image name (e.g. ghcr.io/acme/web)")
    return image


def parse_files(text: str) -> tuple[FileSpec, ...]:
    """The ``--files`` JSON: ``[{"file": "values.yaml", "paths": ["image.tag"]}, ...]``.

    The nesting depth is bounded before ``json.loads``, which would otherwise end a hostile
    or broken argument with a RecursionError."""
    deep = json_too_deep(text)
    if deep is not None:
        raise RequestError(f"--files is not a list of files: {deep.message}")
    try:
        raw = json.loads(text)
    except json.JSONDecodeError as exc:
        raise RequestError(f"--files is not valid JSON: {exc.msg} at character {exc.pos}") from None
    if not isinstance(raw, list) or not all(isinstance(item, dict) for item in raw):
        raise RequestError("--files must be a JSON list of {file, paths} objects")
    return tuple(file_spec(item) for item in raw)


def build_request(**values: Any) -> PromoteRequest:
    """Check resolved values into a request; errors read as CLI usage errors.
    Argo passes unset optional parameters as empty strings: those are None here."""
    cleaned = {k: (None if v == "" else v) for k, v in values.items()}
    unknown = sorted(set(cleaned) - set(_FIELDS))
    if unknown:
        raise RequestError(f"{_flag(unknown[0])}: not a field of the request")
    for name in _REQUIRED:
        if not cleaned.get(name):
            raise RequestError(f"{_flag(name)} is required")
    for name, value in cleaned.items():
        if name != "files" and value is not None and not isinstance(value, str):
            raise RequestError(f"{_flag(name)} must be text")
    files = tuple(file_spec(f) for f in cleaned.get("files") or ())
    if not files:
        raise RequestError("--files must list at least one file")
    action = cleaned.get("action") or "commit"
    if action not in ACTIONS:
        raise RequestError(f"--action must be one of {', '.join(ACTIONS)}, not {action!r}")
    try:  # user:token@ is allowed here: the git adapter moves it out of the URL
        check_git_url(str(cleaned["repo"]), allow_credentials=True)
    except UrlError as exc:
        raise RequestError(f"--repo: {exc}") from None
    _inside_repository("source_path", cleaned.get("source_path"))
    _inside_repository("target_path", cleaned.get("target_path"))
    _check_version_fields(cleaned.get("version_fields"))
    _check_ordering(cleaned.get("version_order"), cleaned.get("rollback"))
    _check_image(cleaned.get("image"))
    if cleaned.get("rollback") == "false":  # the defaults: the same as not given
        cleaned["rollback"] = None
    if cleaned.get("version_order") == DEFAULT:
        cleaned["version_order"] = None
    texts: dict[str, Any] = {k: v for k, v in cleaned.items() if k not in ("files", "action")}
    return PromoteRequest(files=files, action=action, **texts)


def _check_ordering(order: str | None, rollback: str | None) -> None:
    if order is not None:
        try:
            check_order(order)
        except ValueError as exc:
            raise RequestError(f"--version-order: {exc}") from None
    if rollback not in (None, "true", "false"):
        raise RequestError(f"--rollback must be true or false, not {rollback!r}")


def _check_image(text: str | None) -> None:
    if text is None:
        return
    try:
        spec = ImageSpec.from_json(text)
        check_relative_file(spec.file)
        for path in (spec.repository_field, spec.tag_field, spec.digest_field):
            if path:
                check_yaml_path(path)
    except (ImageSpecError, ValueError) as exc:
        raise RequestError(f"--image is not an image spec: {exc}") from None


def _check_version_fields(text: str | None) -> None:
    if text is None:
        return
    if json_too_deep(text):
        raise RequestError("--version-fields is nested too deeply")
    try:
        value = json.loads(text)
    except ValueError:
        raise RequestError("--version-fields is not valid JSON") from None
    if not isinstance(value, dict) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in value.items()
    ):
        raise RequestError('--version-fields must be a JSON object of texts: {"PATH": "VALUE"}')


def request_from_config(
    config: Config,
    product: str,
    environment: str,
    *,
    source: str | None = None,
    version: str | None = None,
    source_commit: str | None = None,
    requested_by: str | None = None,
    run: str | None = None,
    version_fields: dict[str, str] | None = None,
    rollback: bool = False,
) -> PromoteRequest:
    """Resolve a request from the configuration, as the compiler does for a workflow."""
    from orchestrator.graph.plan import CompileError, plan_product

    try:
        plan = plan_product(config, product)
    except CompileError as exc:
        raise RequestError(str(exc)) from None
    names = [e.environment for e in plan.environments]
    if environment not in names:
        raise RequestError(f"environment {environment!r} is not in the flow of {product!r}")
    env = plan.environment(environment)
    source_name = source if source is not None else env.source
    if source_name is not None and source_name not in names:
        raise RequestError(f"source environment {source_name!r} is not in the flow")
    source_app = plan.product.application(source_name) if source_name else None
    repo = plan.product.spec.repo
    version_source = plan.template.spec.version_source
    return build_request(
        image=plan.image.to_json() if plan.image is not None else None,
        product=product,
        environment=environment,
        source_environment=source_name,
        source_commit=source_commit,
        version=version,
        repo=repo.url,
        branch=env.app.branch,
        source_branch=source_app.branch if source_app else None,
        source_path=source_app.path if source_app else None,
        target_path=env.app.path,
        files=plan.template.spec.files,
        version_file=version_source.file if version_source else None,
        version_path=version_source.version_path if version_source else None,
        version_kustomize_image=version_source.kustomize_image.name
        if version_source and version_source.kustomize_image
        else None,
        version_fields=json.dumps(version_fields) if version_fields else None,
        version_field_paths=",".join(version_source.fields)
        if version_source and source_name is None
        else None,
        action=env.policy.action,
        requested_by=requested_by,
        run=run,
        version_order=plan.product.spec.triggers.order,
        rollback="true" if rollback else None,
    )
