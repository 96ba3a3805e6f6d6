"""What a pre- or post-action's parameters may say about the promotion they belong to.

A policy's ``preAction``/``postAction`` runs the team's own WorkflowTemplate, and the
template usually needs to know what is being promoted where: a smoke test wants the
environment and the version, an announcement the commit that went out. ``parameters``
values may therefore use placeholders, which the compiler turns into values or Argo
expressions of the run:

* ``{product}``, ``{environment}``: the names, written in as text;
* ``{version}``: the run's version (``{{workflow.parameters.version}}``);
* ``{revision}``: the commit the promotion made in the environment (the deploy step's
  ``commit`` output, the merge commit for pull requests). Only a post-action has one: a
  pre-action runs before anything is committed, and an environment with ``action: none``
  commits nothing.

Anything else in single braces that looks like a placeholder (``{enviroment}``,
``{version_tag}``) is refused when the configuration loads, so a typo never reaches the
template as literal text. Argo's own ``{{...}}`` expressions and text such as JSON
(``{"a": 1}``) pass through untouched.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable, Mapping

PLACEHOLDERS = ("product", "environment", "version", "revision")
"""Every placeholder, in the order the README lists them."""
BEFORE_COMMIT = ("product", "environment", "version")
"""What a pre-action may use: it runs before the promotion commits anything."""

_PLACEHOLDER = re.compile(r"(?<!\{)\{([A-Za-z_][A-Za-z0-9_.-]*)\}(?!\})")
"""``{name}``, not part of Argo's ``{{...}}``."""


def placeholders(text: str) -> list[str]:
    """The placeholders ``text`` uses, in order (repeats included)."""
    return _PLACEHOLDER.findall(text)


def check(text: str, allowed: Iterable[str] = PLACEHOLDERS) -> str:
    """``text`` if every placeholder in it is one of ``allowed``; else ``ValueError``
    naming the first that is not, with the closest known one."""
    allowed = tuple(allowed)
    for name in placeholders(text):
        if name in allowed:
            continue
        if name == "revision":
            raise ValueError(
                "{revision} is the commit the promotion makes, and a preAction runs before "
                "it: use {revision} in a postAction"
            )
        close = difflib.get_close_matches(name, PLACEHOLDERS, n=1, cutoff=0.6)
        hint = f"; did you mean {{{close[0]}}}?" if close and close[0] in allowed else ""
        known = ", ".join(f"{{{p}}}" for p in allowed)
        raise ValueError(f"unknown placeholder {{{name}}}{hint} (placeholders: {known})")
    return text


def substitute(text: str, values: Mapping[str, str]) -> str:
    """``text`` with each placeholder replaced by its value (all of them must be given:
    the configuration was checked when it loaded)."""
    return _PLACEHOLDER.sub(lambda match: values[match.group(1)], text)
