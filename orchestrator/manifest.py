"""The one name for a Kubernetes object as its JSON decodes.

Workflows, templates, Applications and events pass between the compiler, the Argo and
Kubernetes clients, the webhook service and local runs as plain dictionaries (what the
API servers send and accept); naming the shape once keeps those signatures saying what
they hold.
"""

from __future__ import annotations

from typing import Any

Manifest = dict[str, Any]
"""A Kubernetes (or Argo) object: ``apiVersion``, ``kind``, ``metadata``, and the rest."""
