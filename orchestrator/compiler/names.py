"""Stable names for Argo objects: DAG tasks, workflows, mutexes and label values.

Names are derived only from their inputs, so compiling twice gives the same YAML, and
submitting the same promotion twice gives the same workflow name (the Argo Server answers
409 and the run is reported as already running instead of starting a second one).
"""

from __future__ import annotations

import hashlib
import re

MAX_NAME = 63
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


def product_template(prefix: str, product: str) -> str:
    return f"{prefix}-{product}"


def workflow_name(product: str, version: str, request_id: str) -> str:
    """``shop-1-4-2-3f9a1c2e``: readable, unique per (product, version, request)."""
    suffix = digest(product, version, request_id)
    head = f"{product}-{slug(version)}".strip("-")[: MAX_NAME - len(suffix) - 1].rstrip("-")
    return f"{head}-{suffix}"


def repo_lock(url: str, branch: str) -> str:
    """Mutex name shared by every promotion that pushes to one repository branch."""
    return f"promoflow-git-{digest(url.rstrip('/').removesuffix('.git'), branch, length=16)}"


def task(kind: str, environment: str, index: int | None = None) -> str:
    """DAG task names read as what they do: ``approve-prod-eu``, ``deploy-staging``."""
    return f"{kind}-{environment}" + (f"-{index}" if index is not None else "")
