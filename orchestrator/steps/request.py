"""What the promote step is asked to do, fully resolved.

A compiled workflow passes every value as a flag (repository, branches, paths, files), so a
run needs no access to the configuration repository and records exactly what it promoted.
For local use the same request can be resolved from ``--config PATH --product P --to ENV``:
both paths produce an equal :class:`PromoteRequest`, which is what the step acts on.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from orchestrator.compiler.names import repo_lock
from orchestrator.model.template import FileRule

if TYPE_CHECKING:
    from orchestrator.loading.config import Config


class RequestError(ValueError):
    """The step's arguments are incomplete or contradictory (a usage error, exit 2)."""


class PromoteRequest(BaseModel):
    """Inputs of one promotion into one environment."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    product: str
    environment: str
    source_environment: str | None = None
    source_commit: str | None = None
    version: str | None = None
    repo: str
    branch: str
    source_branch: str | None = None
    source_path: str | None = None
    target_path: str
    files: tuple[FileRule, ...] = Field(min_length=1)
    version_file: str | None = None
    version_path: str | None = None
    action: Literal["commit", "pull-request", "none"] = "commit"
    requested_by: str | None = None
    run: str | None = None
    lock: str | None = None

    @field_validator("*", mode="before")
    @classmethod
    def _empty_is_none(cls, value: object) -> object:
        """Argo passes unset optional parameters as empty strings."""
        return None if value == "" else value

    @field_validator("source_path", "target_path")
    @classmethod
    def _inside_repository(cls, value: str | None) -> str | None:
        """A directory of the repository: ``..`` or ``.`` would name a tree entry git refuses
        (and ``..`` would leave the environment's directory)."""
        if value is not None and any(part in (".", "..") for part in value.split("/")):
            raise ValueError(f"{value!r}: '.' and '..' are not allowed in a repository path")
        return value

    @property
    def is_trigger(self) -> bool:
        """No source environment: the version itself is written (the flow's entry)."""
        return self.source_environment is None


def parse_files(text: str) -> tuple[FileRule, ...]:
    """The ``--files`` JSON: ``[{"file": "values.yaml", "paths": ["image.tag"]}, ...]``."""
    try:
        raw = json.loads(text)
    except json.JSONDecodeError as exc:
        raise RequestError(f"--files is not valid JSON: {exc.msg} at character {exc.pos}") from None
    if not isinstance(raw, list):
        raise RequestError("--files must be a JSON list of {file, paths} objects")
    try:
        return tuple(FileRule.model_validate(item) for item in raw)
    except ValidationError as exc:
        first = exc.errors()[0]
        raise RequestError(f"--files: {first['msg'].removeprefix('Value error, ')}") from None


def build_request(**values: object) -> PromoteRequest:
    """Validate resolved values into a request; errors read as CLI usage errors."""
    try:
        return PromoteRequest.model_validate(values)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"]).replace("_", "-")
        raise RequestError(f"--{where}: {first['msg'].removeprefix('Value error, ')}") from None


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
) -> PromoteRequest:
    """Resolve a request from the configuration, as the compiler does for a workflow."""
    from orchestrator.compiler.plan import CompileError, plan_product

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
        version_path=version_source.path if version_source else None,
        action=env.policy.action,
        requested_by=requested_by,
        run=run,
        lock=repo_lock(repo.url, env.app.branch),
    )
