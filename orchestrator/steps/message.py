"""Commit messages of promotions, from a sandboxed Jinja2 template.

The default message names product, version, source and target environment and the run, and
ends with trailers that tools can parse from ``git log``: ``Promoted-From: ENV@COMMIT`` where
the files came from another environment, ``Built-From: COMMIT`` where a new version entered
the trigger environment (the commit it was built from, when the promotion names one), then
``Rollback: HELD -> VERSION`` where a rollback wrote an older version, then
``Promotion-Run:``, ``Requested-By:`` and ``Jira-Issues:``. Every message then ends with
the trailers ``promoflow history`` reads (:func:`with_trailers`): ``Promotion-Product:``,
``Promotion-Environment:``, ``Promotion-Version:`` and one ``Promotion-Field: PATH=VALUE``
per field of a new version; a team's template cannot leave them out. A team can supply its own
template (PROMOFLOW_COMMIT_TEMPLATE); the sandbox keeps a template from reaching anything
but the values given to it, from changing them, and from running or growing past the
limits of :mod:`orchestrator.sandbox`.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from jinja2 import StrictUndefined, TemplateError

from orchestrator.errors import PromoflowError
from orchestrator.sandbox.environment import BoundedEnvironment
from orchestrator.sandbox.frozen import freeze

DEFAULT_TEMPLATE = """\
Promote {{ product }} {{ version or "(current version)" }} to {{ environment }}

{% if source_environment -%}
Copy {{ files | join(", ") }} from {{ source_environment }} to {{ environment }}.
{%- else -%}
Set {{ version_path }} in {{ version_file }} to {{ version }}
{%- if version_fields %} (with {{ version_fields | join(", ") }}){% endif %}.
{%- endif %}

{% if source_environment -%}
Promoted-From: {{ source_environment }}{{ ("@" ~ source_commit[:12]) if source_commit }}
{% elif source_commit -%}
Built-From: {{ source_commit }}
{% endif -%}
{% if rollback %}Rollback: {{ rollback }}
{% endif -%}
Promotion-Run: {{ run or "-" }}
{% if requested_by %}Requested-By: {{ requested_by }}
{% endif %}{% if jira_keys %}Jira-Issues: {{ jira_keys | join(", ") }}
{% endif %}"""

_TRAILER = re.compile(r"^[A-Za-z0-9][A-Za-z0-9-]*: ")


def with_trailers(text: str, trailers: list[tuple[str, str]]) -> str:
    """``text`` with each ``(key, value)`` trailer it lacks, in its trailer block: the last
    paragraph when every line of it is a trailer (git reads only that one), else a new
    last paragraph. A value is kept on one line (a newline in it would end the trailer)."""
    lines = text.rstrip("\n").split("\n")
    present = {line.partition(":")[0].lower() for line in lines if _TRAILER.match(line)}
    adding = [
        f"{key}: {' '.join(value.split())}"
        for key, value in trailers
        if value.strip() and (key.lower() not in present or key == "Promotion-Field")
    ]
    if not adding:
        return text
    start = len(lines)
    while start > 0 and lines[start - 1].strip():
        start -= 1
    block = lines[start:]
    in_block = bool(block) and start > 0 and all(_TRAILER.match(line) for line in block)
    return "\n".join([*lines, *([] if in_block else [""]), *adding]) + "\n"


_JIRA_KEY = re.compile(r"\b[A-Z][A-Z0-9]{1,9}-[1-9][0-9]*\b")


class MessageError(PromoflowError, ValueError):
    """The commit message template is invalid or uses an unknown variable."""


def jira_keys(messages: Iterable[str]) -> list[str]:
    """Jira issue keys (``SHOP-123``) mentioned in ``messages``, first mention first."""
    return list(dict.fromkeys(k for m in messages for k in _JIRA_KEY.findall(m)))


def render(context: dict[str, Any], template: str | None = None) -> str:
    env = BoundedEnvironment(undefined=StrictUndefined, keep_trailing_newline=True)
    values = {name: freeze(value) for name, value in context.items()}
    try:
        text = env.render(env.from_string(template or DEFAULT_TEMPLATE), values)
    except TemplateError as exc:
        raise MessageError(f"commit message template: {exc}") from None
    except Exception as exc:  # a filter on a value it cannot take, 1 / 0, recursion
        raise MessageError(f"commit message template: {type(exc).__name__}: {exc}") from None
    text = text.strip() + "\n"
    if not text.strip():
        raise MessageError("commit message template produced an empty message")
    return text
