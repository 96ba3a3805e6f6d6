"""Field types with bounds: URLs that parse and carry no credential, numbers that fit.

Why here and not where the values are used: a value that passes loading reaches the compiler,
the workflow YAML and the step containers; a port of 99999 or a priority of 10**400 used to
fail there, with a traceback (``urlsplit(...).port`` raises; ``float(10**400)`` overflows),
far from the line that caused it. Each type below refuses such values at load time, with the
position of the field and words that say what is allowed.

Numbers are strict (no ``true`` for 1, no ``"200"``, no ``2.5`` where a count is meant): YAML
turns ``yes``, ``1e3`` and ``.inf`` into booleans and floats that pydantic would otherwise
coerce or pass on.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import AfterValidator, Field, StrictInt

from orchestrator.urls import check_git_url, check_url

GIT_HINT = (
    "put the token in a Secret instead: the promote step reads GIT_TOKEN (and GIT_USERNAME), "
    "from the Secret named by PROMOFLOW_GIT_SECRET"
)
HTTP_HINT = "the gate's URL is written into the Workflow; use an endpoint that needs no secret"
SERVER_HINT = "Argo CD keeps the cluster's credentials; write the API server URL only"


def _git_url(value: str) -> str:
    return check_git_url(value, hint=GIT_HINT)


def _http_url(value: str) -> str:
    return check_url(value, hint=HTTP_HINT)


def _server_url(value: str) -> str:
    return check_url(value, hint=SERVER_HINT)


GitUrl = Annotated[str, AfterValidator(_git_url)]
"""A Git remote (URL, ``git@host:path`` or a path) without credentials."""

HttpUrl = Annotated[str, AfterValidator(_http_url)]
"""An ``http(s)://`` URL without credentials (user-info or token query parameters)."""

ServerUrl = Annotated[str, AfterValidator(_server_url)]
"""A Kubernetes API server URL, as Argo CD names a cluster."""

MAX_PRIORITY = 1_000_000_000
Priority = Annotated[StrictInt, Field(ge=-MAX_PRIORITY, le=MAX_PRIORITY)]
"""Policy priority: Kubernetes' PriorityClass range, far beyond any real use."""

HttpStatus = Annotated[StrictInt, Field(ge=100, le=599)]
"""An HTTP status code."""

MAX_RETRIES = 100
Retries = Annotated[StrictInt, Field(ge=0, le=MAX_RETRIES)]
"""Tries after the first (the gate's timeout bounds the total time anyway)."""
