"""What starts a product's promotion by itself: ``Product.spec.triggers``.

``promoflow serve`` reads these when a webhook delivery arrives: a Git push that changes the
trigger environment promotes the version written there, a registry push of a listed image
repository promotes its tag, and a CI's direct request promotes what it asks. Without a
``triggers`` section a product takes Git pushes and direct requests, not registry pushes
(an image repository has to be named); ``enabled: false`` turns all of it off, leaving the
CLI.
"""

from __future__ import annotations

import re
from typing import Literal

from pydantic import field_validator, model_validator

from orchestrator.model.base import Model
from orchestrator.semverrange import RangeError, parse_range
from orchestrator.versionorder import DEFAULT, Order

Concurrency = Literal["queue", "supersede"]


class ImageTrigger(Model):
    """A registry push of ``repository`` promotes the pushed tag, if the tag passes the
    filter: ``semver`` (a range such as ``">=1.2 <2"`` or ``"^1.4"``) or ``regex`` (the
    whole tag must match), never both; neither takes every tag."""

    repository: str
    semver: str | None = None
    regex: str | None = None
    digest_field: str | None = None
    """A version field (``versionSource.fields``) that receives the pushed digest."""

    @field_validator("repository")
    @classmethod
    def _check_repository(cls, value: str) -> str:
        if not value.strip() or any(c.isspace() for c in value) or "://" in value:
            raise ValueError(
                f"{value!r}: expected an image repository such as ghcr.io/acme/shop "
                "(no scheme, no tag)"
            )
        last = value.rsplit("/", 1)[-1]
        if ":" in last or "@" in value:
            raise ValueError(f"{value!r}: name the repository without a tag or digest")
        return value

    @field_validator("semver")
    @classmethod
    def _check_semver(cls, value: str | None) -> str | None:
        if value is not None:
            try:
                parse_range(value)
            except RangeError as exc:
                raise ValueError(str(exc)) from None
        return value

    @field_validator("regex")
    @classmethod
    def _check_regex(cls, value: str | None) -> str | None:
        if value is not None:
            try:
                re.compile(value)
            except re.error as exc:
                raise ValueError(f"{value!r} is not a valid regular expression: {exc}") from None
        return value

    @model_validator(mode="after")
    def _one_filter(self) -> ImageTrigger:
        if self.semver is not None and self.regex is not None:
            raise ValueError("give semver or regex, not both")
        return self


class Triggers(Model):
    enabled: bool = True
    """False: webhooks start nothing for this product (``promoflow promote`` still does)."""
    git: bool = True
    """A push to the product's repository and branch that changes the trigger environment's
    path promotes the version written there."""
    images: list[ImageTrigger] = []
    generic: bool = True
    """A direct request (``POST /webhooks/generic``) naming this product is accepted."""
    order: Order = DEFAULT
    """How this product's versions are ordered (:mod:`orchestrator.versionorder`):
    ``semver`` (the default), ``numeric``, ``lexical`` or ``none``. A webhook delivery that
    would bring an older version than the trigger environment holds is refused, and so is
    a promote step that would write an older version than its target holds (unless it is
    a rollback); ``none`` turns both checks off."""
    concurrency: Concurrency = "queue"
    """When a newer version arrives while an older promotion waits at an approval:
    ``queue`` (the newer waits for the older to finish, on Argo's mutex) or ``supersede``
    (the older is stopped, with a message naming the newer one)."""
