"""Which resources a file meant to define, read from its raw text when it failed to load.

When a document cannot be loaded (a YAML syntax error, a mistyped apiVersion, a file that is
not UTF-8, a Python module that raises), every reference to what it defines turns into an
"unknown PromotionFlow 'standard'" elsewhere, and those knock-on errors used to outnumber
and precede the one line that says what to fix. A cheap text scan recovers the kinds and
names the failed file was written to define, so validation can mark such a reference as a
consequence of the failure and list it right after its cause.

The scan is a guess by design (the text did not parse): it reads only top-level ``kind:``
and ``metadata.name`` (or the name given to a :mod:`orchestrator.dsl` call), and it is used
only to annotate references that are unknown anyway, never to define anything.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterator
from dataclasses import dataclass

from orchestrator.loading.ours import KINDS

_DOC_START = re.compile(r"^---", re.MULTILINE)
_KIND = re.compile(r"""^kind:[ \t]*["']?([A-Za-z]\w*)""", re.MULTILINE)
_FLOW_METADATA = re.compile(r"""^metadata:[ \t]*\{[^}]*?\bname:[ \t]*["']?([^"',}\s#]+)""", re.M)
_BLOCK_METADATA = re.compile(r"^metadata:[ \t]*(?:#.*)?$", re.MULTILINE)
_NAME = re.compile(r"""^([ \t]+)name:[ \t]*["']?([^"',}\s#]+)""")
_DSL_FUNCTIONS = {
    "environment": "Environment",
    "product": "Product",
    "template": "PromotionTemplate",
    "flow": "PromotionFlow",
    "policy": "PromotionPolicy",
    "window": "PromotionWindow",
}
_DSL_CALL = re.compile(
    r"""\b(environment|product|template|flow|policy|window|"""
    r"""Environment\.build|Product\.build|PromotionTemplate\.build|PromotionFlow\.build|"""
    r"""PromotionPolicy\.build|PromotionWindow\.build)\(\s*(?:name\s*=\s*)?["']([^"'\n]+)["']"""
)


@dataclass(frozen=True)
class Intended:
    """A resource a failed file was written to define, and the lines its text spans."""

    kind: str
    name: str
    first_line: int
    last_line: int


def _kind(written: str) -> str | None:
    """The promoflow kind meant, allowing for a typo (``PromotionFlwo``)."""
    if written in KINDS:
        return written
    close = difflib.get_close_matches(written, KINDS, n=1, cutoff=0.8)
    return close[0] if close else None


def _block_name(chunk: str) -> str | None:
    """``name:`` at the first indentation level under a block ``metadata:``."""
    found = _BLOCK_METADATA.search(chunk)
    if found is None:
        return None
    indent: str | None = None
    for line in chunk[found.end() :].splitlines()[1:]:
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        if not line[:1].isspace():
            return None  # the block ended without a name
        width = line[: len(line) - len(line.lstrip())]
        indent = indent if indent is not None else width
        named = _NAME.match(line)
        if named and named.group(1) == indent:
            return named.group(2)
    return None


def _yaml(text: str) -> Iterator[Intended]:
    starts = [0] + [m.start() for m in _DOC_START.finditer(text) if m.start() > 0]
    ends = [*starts[1:], len(text)]
    for start, end in zip(starts, ends, strict=True):
        chunk = text[start:end]
        kind_match = _KIND.search(chunk)
        kind = _kind(kind_match.group(1)) if kind_match else None
        flow_name = _FLOW_METADATA.search(chunk)
        name = flow_name.group(1) if flow_name else _block_name(chunk)
        if kind and name:
            first = text.count("\n", 0, start) + 1
            yield Intended(kind, name, first, first + chunk.count("\n"))


def _python(text: str) -> Iterator[Intended]:
    last = text.count("\n") + 1
    for call in _DSL_CALL.finditer(text):
        function = call.group(1)
        kind = _DSL_FUNCTIONS.get(function) or function.removesuffix(".build")
        yield Intended(kind, call.group(2), 1, last)  # a module fails as a whole


def intended(text: str, python: bool = False) -> list[Intended]:
    """The resources ``text`` appears to define, in the order written."""
    return list(_python(text) if python else _yaml(text))
