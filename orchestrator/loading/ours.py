"""Which YAML documents are promoflow's, including the ones whose apiVersion is mistyped.

promoflow reads whole GitOps repositories, so it must leave other projects' manifests alone;
but a promoflow document with a typo in its apiVersion must not vanish silently (a
PromotionPolicy under ``promoflow.io/v1alpha1`` used to drop the production approvals from
every flow without a word). The rule, documented in the README's Configuration section:

- ``apiVersion: promoflow.dev/v1alpha1``: ours, loaded;
- an apiVersion that mentions ``promoflow`` in any other way (``promoflow.io/v1alpha1``,
  ``promoflow.dev/v1``, ``Promoflow.dev/v1alpha1``): ours, and an error;
- a kind only promoflow uses (``PromotionTemplate``, ``PromotionFlow``,
  ``PromotionPolicy``, ``PromotionWindow``) under any other apiVersion (``v1``, ``apps/v1``,
  ``argoproj.io/v1alpha1``) or none: ours, and an error. No other project is known to
  define these kinds, and a PromotionPolicy under ``v1`` used to take the production
  approvals away as silently as a typo did;
- ``Environment`` or ``Product`` (names other projects use too) under a group one or two
  typing slips away from ``promoflow.dev`` (``promflow.dev``, ``promoflow.de``; similarity
  >= 0.85): ours, and an error;
- ``Environment`` or ``Product`` without an apiVersion, when the file holds other
  promoflow documents: ours, and an error;
- anything else, e.g. ``kind: Environment`` under ``apps.example.com/v1``: not ours.

The same rule decides, from the raw text, which files are read at all (:func:`worth_reading`),
so the fast path for the thousands of files that are not ours stays a text search.
"""

from __future__ import annotations

import difflib
import functools
import re
from enum import Enum
from typing import Any

from orchestrator.model.base import API_GROUP, API_VERSION

KINDS = (
    "Environment",
    "Product",
    "PromotionTemplate",
    "PromotionFlow",
    "PromotionPolicy",
    "PromotionWindow",
)
OWN_KINDS = ("PromotionTemplate", "PromotionFlow", "PromotionPolicy", "PromotionWindow")
"""Kinds no other project is known to use: under any apiVersion, or none, they are ours."""
SIMILARITY = 0.85
"""How close a group must be to ``promoflow.dev`` to be taken for a typo of it.
Measured: one or two slips score >= 0.92, ``promotion.dev`` 0.77, ``monoflow.dev`` 0.80."""

_NEAR_LENGTHS = (
    int(SIMILARITY * len(API_GROUP) / (2 - SIMILARITY)),
    int(2 * len(API_GROUP) / SIMILARITY - len(API_GROUP)) + 1,
)
"""Lengths a group can have and still reach the similarity (2M/(a+b) with M <= min(a, b))."""


def _key(name: str) -> str:
    """``name:`` at the start of a line or of a flow-mapping entry, quoted or not."""
    return r"""(?:^|[{,])[ \t]*["']?""" + name + r"""["']?[ \t]*:[ \t]*["']?"""


_API_VERSIONS = re.compile(_key("apiVersion") + r"""([^\s"',}#]*)""", re.MULTILINE)
_OUR_KIND = re.compile(_key("kind") + "(" + "|".join(KINDS) + r")\b", re.MULTILINE)
_OWN_KIND = re.compile(_key("kind") + "(" + "|".join(OWN_KINDS) + r")\b", re.MULTILINE)


class Claim(Enum):
    """What a document is to promoflow."""

    OURS = "ours"
    """A promoflow document with the supported apiVersion."""
    WRONG_VERSION = "wrong-version"
    """Meant for promoflow, under an apiVersion it does not read: an error."""
    NO_VERSION = "no-version"
    """A promoflow kind without an apiVersion: an error when the file is ours."""
    OTHER = "other"
    """Another tool's document: left alone."""


def _group(api_version: str) -> str:
    return api_version.strip().split("/", 1)[0].lower()


def mentions_promoflow(api_version: str) -> bool:
    return "promoflow" in api_version.lower()


@functools.lru_cache(maxsize=1024)
def near_miss(api_version: str) -> bool:
    """A group one or two slips away from ``promoflow.dev`` (not equal to it).

    Cached: a repository repeats a handful of apiVersions (``v1``, ``apps/v1``) thousands
    of times, and the length test rejects most groups before any comparison."""
    group = _group(api_version)
    if group == API_GROUP or not _NEAR_LENGTHS[0] <= len(group) <= _NEAR_LENGTHS[1]:
        return False
    matcher = difflib.SequenceMatcher(None, group, API_GROUP)
    return matcher.quick_ratio() >= SIMILARITY and matcher.ratio() >= SIMILARITY


def claim(data: dict[Any, Any]) -> Claim:
    """What one document (a mapping) is, by its apiVersion and kind alone."""
    api_version, kind = data.get("apiVersion"), data.get("kind")
    ours_kind = isinstance(kind, str) and kind in KINDS
    if api_version is None or api_version == "":
        return Claim.NO_VERSION if ours_kind else Claim.OTHER
    if not isinstance(api_version, str):
        return Claim.WRONG_VERSION if ours_kind else Claim.OTHER
    if api_version == API_VERSION:
        return Claim.OURS
    if kind in OWN_KINDS or mentions_promoflow(api_version):
        return Claim.WRONG_VERSION
    if ours_kind and near_miss(api_version):
        return Claim.WRONG_VERSION
    return Claim.OTHER


def claims(data: dict[Any, Any]) -> bool:
    """Does this document make its file a promoflow file (its apiVersion, or an own kind)?"""
    found = claim(data)
    return found in (Claim.OURS, Claim.WRONG_VERSION) or (
        found is Claim.NO_VERSION and data.get("kind") in OWN_KINDS
    )


def missing_version_is_ours(data: dict[Any, Any], file_is_ours: bool) -> bool:
    """A promoflow kind without apiVersion is reported in our files, or when only promoflow
    uses that kind; elsewhere (Helm values with a ``kind:`` key) it is not ours."""
    return file_is_ours or data.get("kind") in OWN_KINDS


def worth_reading(text: str) -> bool:
    """Cheap pre-filter on a file's text: could any document in it be claimed?

    Errs on the side of reading (a file that is read and holds nothing of ours costs one
    parse), never on the side of skipping a document :func:`claim` would report."""
    for match in _API_VERSIONS.finditer(text):
        value = match.group(1)
        if value.startswith(f"{API_GROUP}/") or mentions_promoflow(value):
            return True
        if near_miss(value) and _OUR_KIND.search(text):
            return True
    return _OWN_KIND.search(text) is not None
