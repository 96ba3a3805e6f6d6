"""Kubernetes label selectors, as both the Argo CD API (``selector``) and the Kubernetes
API (``labelSelector``) accept them: the simulator filters lists and streams the way the
real servers do and rejects what they reject, and the gate refuses a selector that will
not parse before it asks (a real Argo CD answers 500 to it, which reads as an outage)."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any

_SET_TERM = re.compile(r"^([\w./-]+)\s+(in|notin)\s+\(([^)]*)\)$")
_EQ_TERM = re.compile(r"^([\w./-]+)\s*(==|!=|=)\s*([\w./-]*)$")
_EXISTS_TERM = re.compile(r"^(!?)\s*([\w./-]+)$")


def _split_terms(text: str) -> list[str]:
    """Split on commas outside parentheses (``a in (x,y),b=c``)."""
    terms, depth, start = [], 0, 0
    for i, char in enumerate(text):
        depth += {"(": 1, ")": -1}.get(char, 0)
        if char == "," and depth == 0:
            terms.append(text[start:i])
            start = i + 1
    terms.append(text[start:])
    return [t.strip() for t in terms if t.strip()]


def parse_selector(text: str | None) -> Callable[[Mapping[str, str]], bool]:
    """A Kubernetes label selector (``k=v``, ``k!=v``, ``k in (a,b)``, ``k notin (a)``,
    ``k``, ``!k``) as a predicate on labels; ``ValueError`` when it does not parse."""
    # each requirement: (key, operator, values); = is "in" one value, != is "notin" one
    requirements: list[tuple[str, str, frozenset[str]]] = []
    for term in _split_terms(text or ""):
        if match := _SET_TERM.match(term):
            values = frozenset(v.strip() for v in match[3].split(","))
            requirements.append((match[1], match[2], values))
        elif match := _EQ_TERM.match(term):
            operator = "notin" if match[2] == "!=" else "in"
            requirements.append((match[1], operator, frozenset([match[3]])))
        elif match := _EXISTS_TERM.match(term):
            requirements.append((match[2], "absent" if match[1] else "exists", frozenset()))
        else:
            raise ValueError(f"unable to parse requirement: {term!r}")

    def matches(labels: Mapping[str, str]) -> bool:
        for key, operator, values in requirements:
            present = key in labels
            ok = {
                "in": present and labels.get(key) in values,
                "notin": not present or labels.get(key) not in values,
                "exists": present,
                "absent": not present,
            }[operator]
            if not ok:
                return False
        return True

    return matches


def labels_of(app: dict[str, Any]) -> dict[str, str]:
    """An object's labels (none when it has no ``metadata.labels``)."""
    return dict((app.get("metadata") or {}).get("labels") or {})
