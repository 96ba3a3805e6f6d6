"""Name types of the configuration, on Kubernetes' rules (:mod:`orchestrator.names`).

Environment and product names end up in Argo CD application names, DAG task names and label
values, so they must be valid RFC 1123 labels; checking here turns a late failure in the
cluster into an early error with a position.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import AfterValidator, WithJsonSchema

from orchestrator.names import (
    DEFAULT_TEMPLATE_PREFIX,
    LABEL_PATTERN,
    MAX_LABEL,
    MAX_PRODUCT,
    MAX_SUBDOMAIN,
    SUBDOMAIN_PATTERN,
    check_cluster_name,
    check_dns_label,
    check_namespace,
    product_template,
)

__all__ = [
    "LABEL_PATTERN",
    "MAX_LABEL",
    "ClusterName",
    "Name",
    "Namespace",
    "ProductName",
    "check_dns_label",
    "check_product_name",
]

Namespace = Annotated[
    str,
    AfterValidator(check_namespace),
    WithJsonSchema({"type": "string", "pattern": LABEL_PATTERN, "maxLength": MAX_LABEL}),
]
"""A Kubernetes namespace."""

ClusterName = Annotated[
    str,
    AfterValidator(check_cluster_name),
    WithJsonSchema({"type": "string", "pattern": SUBDOMAIN_PATTERN, "maxLength": MAX_SUBDOMAIN}),
]
"""The name of a cluster Argo CD deploys to."""


Name = Annotated[
    str,
    AfterValidator(check_dns_label),
    # The same rule in the JSON Schema, so editors flag a bad name as promoflow would.
    WithJsonSchema({"type": "string", "pattern": LABEL_PATTERN, "maxLength": MAX_LABEL}),
]
"""A resource or environment name: a DNS-1123 label."""


def check_product_name(value: str) -> str:
    """A DNS-1123 label short enough for every name derived from it (see
    :data:`orchestrator.names.MAX_PRODUCT`); the message names the limit that applies."""
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
