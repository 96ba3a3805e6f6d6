"""The Sensor's version check: the rule of :mod:`orchestrator.versionpattern` in a Go
template, so a request Argo Events receives is refused as the webhook service refuses it.

Sprig's ``regexMatch`` is Go's RE2, not Python's ``re``, so the classes are written for
RE2 and meant to select the same characters:

* whitespace and control characters are the Unicode categories Z and C. Go's regexp reads
  ``\\p{C}`` with the unassigned code points, as Python's ``unicodedata`` calls them Cn
  (the parity test includes noncharacters and U+0378). The two may disagree on a code point
  one Unicode version assigns and the other does not (Python 3.11 reads Unicode 14).
* the tag grammar is ASCII classes with a bounded repetition, the same in both.
* a ``versionPattern`` is matched as ``^(?:PATTERN)$``: RE2's ``$`` (without ``m``) is the
  end of the text, as ``fullmatch`` asks. A pattern using what RE2 lacks (look-around,
  back-references) makes ``regexMatch`` fail, and the trigger with it: such a version is
  refused, never let through. ``\\d``, ``\\w`` and ``\\s`` are ASCII in RE2, and Python
  reads the pattern with ``re.ASCII`` (orchestrator.versionpattern) to agree.

``tests/e2e/test_events_name_parity.py`` renders the template with Go and compares.
"""

from __future__ import annotations

from orchestrator.compiler.gotext import go_string
from orchestrator.versionpattern import IMAGE_TAG, VersionRule

UNSAFE_RE2 = r"[\p{Z}\p{C}]"
"""A whitespace or control character, or an unassigned code point, in RE2 syntax."""


def _refuse_unless(condition: str, reason: str) -> str:
    return f"{{{{- if not ({condition}) }}}}{{{{ fail {go_string(reason)} }}}}{{{{ end -}}}}"


def version_rule_template(rule: VersionRule) -> str:
    """Template actions that ``fail`` on a version ``$v`` the rule refuses."""
    checks = [
        _refuse_unless(
            f"not (regexMatch {go_string(UNSAFE_RE2)} $v)",
            "the version has whitespace or a control character",
        )
    ]
    pattern = rule.pattern if rule.pattern is not None else IMAGE_TAG if rule.image_tag else None
    if pattern is not None:
        what = "the versionPattern" if rule.pattern is not None else "an image tag's grammar"
        checks.append(
            _refuse_unless(
                f"regexMatch {go_string(f'^(?:{pattern})$')} $v",
                f"the version does not match {what} {pattern}",
            )
        )
    return "".join(checks)
