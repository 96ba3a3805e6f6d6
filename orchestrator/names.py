"""Names: Kubernetes' rules for them, and the names promoflow derives from its own.

The rules (DNS-1123 labels and subdomains, namespaces, cluster names) judge a value the
same wherever it is given: the configuration models (with a position), the settings read
from the environment, the ``--namespace`` flags and the reporter's options. The derived
names (mutexes, branches, label values, WorkflowTemplates) are computed here, not in
``orchestrator.compiler``, so a step (promote, pull requests) names a mutex or a branch
exactly as the compiler does without importing the compiler: the two must agree, and a step
pod should not load more than it runs. Standard library only, at the bottom of the layers.
"""

from __future__ import annotations

import hashlib
import re

LABEL_PATTERN = r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$"
_LABEL = re.compile(LABEL_PATTERN)
MAX_LABEL = 63


SUBDOMAIN_PATTERN = r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$"
_SUBDOMAIN = re.compile(SUBDOMAIN_PATTERN)
MAX_SUBDOMAIN = 253
_SHOWN = 70


def _shown(value: str) -> str:
    """``value`` quoted for a message, control characters escaped, cut to a line's worth."""
    text = repr(value)
    return text if len(text) <= _SHOWN else text[: _SHOWN - 4] + "...'"


def check_dns_label(value: str, *, what: str = "name") -> str:
    """Return ``value`` when it is a DNS-1123 label, else raise ValueError with the rule."""
    if len(value) > MAX_LABEL:
        raise ValueError(
            f"{_shown(value)} is not a valid {what}: at most {MAX_LABEL} characters "
            f"(has {len(value)})"
        )
    if not _LABEL.match(value):
        raise ValueError(
            f"{_shown(value)} is not a valid {what}: use lowercase letters, digits and '-', "
            "starting and ending with a letter or digit (RFC 1123 label)"
        )
    return value


def check_namespace(value: str) -> str:
    """A Kubernetes namespace name: a DNS-1123 label. Namespaces are copied into API paths,
    Workflow parameters and commands; ``\\t`` or ``$(id)`` must stop here, with a position."""
    return check_dns_label(value, what="namespace")


def check_cluster_name(value: str) -> str:
    """A cluster's name as a Kubernetes object name: a DNS-1123 subdomain (``prod-eu-1``,
    ``eks.prod``), what Argo CD's ``argocd cluster add --name`` gives a cluster Secret."""
    if len(value) > MAX_SUBDOMAIN or not _SUBDOMAIN.match(value):
        raise ValueError(
            f"{_shown(value)} is not a valid cluster name: lowercase letters, digits, '-' and "
            f"'.', starting and ending with a letter or digit, at most {MAX_SUBDOMAIN} "
            "characters (RFC 1123 subdomain)"
        )
    return value


MAX_NAME = MAX_LABEL
"""The longest name promoflow derives: Kubernetes' longest label value and DNS label, and
Hera's longest Workflow or WorkflowTemplate name."""
DEFAULT_TEMPLATE_PREFIX = "promoflow"
"""Prefix of every WorkflowTemplate promoflow installs (``PROMOFLOW_TEMPLATE_PREFIX``)."""
_LABEL_VALUE = re.compile(r"[^A-Za-z0-9._-]+")


def digest(*parts: str, length: int = 8) -> str:
    """Short, stable hash of ``parts`` (separated so ("ab","c") != ("a","bc"))."""
    return hashlib.sha256("\x1f".join(parts).encode()).hexdigest()[:length]


def slug(text: str) -> str:
    """Lowercase DNS-label-safe form: ``1.4.2+build.7`` -> ``1-4-2-build-7``."""
    return re.sub(r"-{2,}", "-", re.sub(r"[^a-z0-9-]", "-", text.lower())).strip("-")


def label_value(text: str) -> str:
    """A Kubernetes label value (<= 63 chars of [A-Za-z0-9._-], alphanumeric at both ends)."""
    cleaned = _LABEL_VALUE.sub("_", text)[:MAX_NAME]
    return cleaned.strip("._-")


def product_lock(product: str) -> str:
    """Workflow-level mutex of a product's promotions: a newer one waits for the older."""
    return f"promoflow-product-{product}"


def product_template(prefix: str, product: str) -> str:
    """The product's WorkflowTemplate: ``promoflow-shop``."""
    return f"{prefix}-{product}"


MAX_PRODUCT = MAX_NAME - len(product_template(DEFAULT_TEMPLATE_PREFIX, ""))
"""Longest product name (53): the longest name derived from it must fit :data:`MAX_NAME`.
Derived from a product: its WorkflowTemplate ``promoflow-<product>`` (the longest), the
Argo Events Sensor ``promoflow-<product>``, the ``promoflow.dev/product`` label
(``<product>``), the Workflow name ``<product>-<version>-<hash>`` (cut to fit) and the
mutex ``promoflow-product-<product>`` (Argo puts no bound on mutex names).
``tests/unit/test_name_limits.py`` compiles a product of this length."""

NOTES_REF = "refs/notes/promoflow"
"""Where promoflow records what each promotion commit's gates said
(:mod:`orchestrator.history.note`)."""
