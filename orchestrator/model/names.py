"""Kubernetes name rules, shared by every resource.

Environment and product names end up in Argo CD application names, DAG task names and label
values, so they must be valid RFC 1123 labels; checking here turns a late failure in the
cluster into an early error with a position.
"""

from __future__ import annotations

import re
from typing import Annotated

from pydantic import AfterValidator, WithJsonSchema

LABEL_PATTERN = r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$"
_LABEL = re.compile(LABEL_PATTERN)
MAX_LABEL = 63


def check_dns_label(value: str) -> str:
    """Return ``value`` when it is a DNS-1123 label, else raise ValueError with the rule."""
    if len(value) > MAX_LABEL:
        raise ValueError(
            f"{value!r} is not a valid name: at most {MAX_LABEL} characters (has {len(value)})"
        )
    if not _LABEL.match(value):
        raise ValueError(
            f"{value!r} is not a valid name: use lowercase letters, digits and '-', "
            "starting and ending with a letter or digit (RFC 1123 label)"
        )
    return value


Name = Annotated[
    str,
    AfterValidator(check_dns_label),
    # The same rule in the JSON Schema, so editors flag a bad name as promoflow would.
    WithJsonSchema({"type": "string", "pattern": LABEL_PATTERN, "maxLength": MAX_LABEL}),
]
"""A resource or environment name: a DNS-1123 label."""
