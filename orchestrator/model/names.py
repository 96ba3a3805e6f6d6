"""Kubernetes name rules, shared by every resource.

Environment and product names end up in Argo CD application names, DAG task names and label
values, so they must be valid RFC 1123 labels; checking here turns a late failure in the
cluster into an early error with a position.
"""

from __future__ import annotations

import re
from typing import Annotated

from pydantic import AfterValidator, WithJsonSchema

from orchestrator.naming import DEFAULT_TEMPLATE_PREFIX, MAX_PRODUCT, product_template

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


def check_product_name(value: str) -> str:
    """A DNS-1123 label short enough for every name derived from it (see
    :data:`orchestrator.naming.MAX_PRODUCT`); the message names the limit that applies."""
    check_dns_label(value)
    if len(value) > MAX_PRODUCT:
        longest = product_template(DEFAULT_TEMPLATE_PREFIX, "<product>")
        raise ValueError(
            f"{value!r} is too long for a product name: at most {MAX_PRODUCT} characters "
            f"(has {len(value)}), so that its WorkflowTemplate {longest!r} fits the "
            f"{MAX_LABEL} characters of a Kubernetes name"
        )
    return value


ProductName = Annotated[
    str,
    AfterValidator(check_product_name),
    WithJsonSchema({"type": "string", "pattern": LABEL_PATTERN, "maxLength": MAX_PRODUCT}),
]
"""A product's name: a DNS-1123 label of at most :data:`MAX_PRODUCT` characters."""
