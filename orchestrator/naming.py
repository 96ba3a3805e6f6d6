"""Stable, pure name helpers shared by the compiler and the step programs.

Kept outside ``orchestrator.compiler`` so a step (promote, pull requests) can name a mutex
or a branch exactly as the compiler does without importing the compiler package: the two
must agree, and a step pod should not load more than it runs.
"""

from __future__ import annotations

import hashlib
import re

MAX_NAME = 63
"""Kubernetes' longest label value and DNS label, and Hera's longest Workflow or
WorkflowTemplate name."""
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


def repo_lock(url: str, branch: str) -> str:
    """Mutex name shared by every promotion that pushes to one repository branch."""
    return f"promoflow-git-{digest(url.rstrip('/').removesuffix('.git'), branch, length=16)}"


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
