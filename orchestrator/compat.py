"""The oldest upstream versions promoflow works with, in one place.

Every compiled promotion takes its product's lock with ``synchronization.mutexes`` (a
list), which Argo Workflows' schema has from v3.6 on ("v3.6 and after: Mutexes holds the
list of Mutex lock details"; v3.5 knows only the single ``mutex``). An older controller
drops the unknown field, and two promotions of one product then run at once: so the
minimum is a fact to check (``promoflow doctor``), not to document only.
"""

from __future__ import annotations

import re

MIN_ARGO_WORKFLOWS = (3, 6, 0)
"""The oldest Argo Workflows whose schema has ``synchronization.mutexes``."""

_VERSION = re.compile(r"^v?(\d+)\.(\d+)(?:\.(\d+))?(?:[-+].*)?$")


def version_text(version: tuple[int, int, int]) -> str:
    return "v" + ".".join(str(part) for part in version)


def parse_version(text: str) -> tuple[int, int, int] | None:
    """``v4.0.5+unknown`` -> (4, 0, 5); ``None`` for what names no release (``latest``,
    ``untagged``, a commit): a build from a branch cannot be placed before or after."""
    found = _VERSION.match(text.strip())
    if found is None:
        return None
    major, minor, patch = found.groups()
    return int(major), int(minor), int(patch or 0)


def is_prerelease(text: str) -> bool:
    """``v3.6.0-rc1``: a release candidate of the minimum is not the minimum."""
    return "-" in text.split("+", 1)[0]
