"""Kubernetes' name rules: DNS-1123 labels and subdomains, namespaces, cluster names.

Shared at the bottom of the layers: the configuration models check names with them (with
a position), and so do the settings read from the environment, the ``--namespace`` flags
and the reporter's options, so one value is judged the same wherever it is given.
"""

from __future__ import annotations

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
