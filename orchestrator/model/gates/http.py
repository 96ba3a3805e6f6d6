"""``http``: an HTTP endpoint answers as expected (several may apply: one per URL)."""

from __future__ import annotations

from datetime import timedelta
from typing import ClassVar

from pydantic import model_validator

from orchestrator.model.checks import HttpStatus, HttpUrl, Retries
from orchestrator.model.duration import Duration
from orchestrator.model.gates import GateSettings


class HttpGate(GateSettings):
    KIND: ClassVar[str] = "http"

    url: HttpUrl
    expect_status: HttpStatus = 200
    jsonpath: str | None = None
    equals: str | None = None
    retries: Retries = 3
    timeout: Duration = timedelta(minutes=5)

    def unit(self) -> str:
        return f"http:{self.url}"

    @model_validator(mode="after")
    def _equals_needs_jsonpath(self) -> HttpGate:
        if self.equals is not None and self.jsonpath is None:
            raise ValueError("'equals' needs 'jsonpath': the value to compare with")
        return self
