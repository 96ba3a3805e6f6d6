"""What each YAML reader makes of one scalar token, as a values file spells it.

promoflow writes image tags and versions into files that four kinds of reader take apart:
PyYAML (YAML 1.1) reads them in promoflow itself, ruamel.yaml (YAML 1.2) in other Python
tools, and Go's YAML in everything that deploys them: ``sigs.k8s.io/yaml`` over yaml.v2 in
Helm's values, Argo CD and kustomize's ``kustomization.yaml``, yaml.v3 in kustomize's kyaml.
They disagree on plain scalars: ``6063e25`` (a short SHA) is a string to YAML 1.1 and the
float 6.063e+28 to the others, ``y`` is true only to yaml.v2, ``0o17`` is 15 everywhere but in
YAML 1.1. A tag is written plain only where every reader reads back the same string.

The two YAML libraries answer for themselves. Go cannot run here, so its resolvers are
mirrored by hand in :mod:`orchestrator.goscalars`, and tests/vectors/goyaml proves the
mirror against what the real libraries return. Go's scanner is a port of libyaml, as
PyYAML's is: which characters make a token and what a quoted token holds is PyYAML's answer
for all four readers, evened out where the two part ways (see :func:`scan`; the vectors
check that too).

Pure functions: one token in, readings out. Tokens with tags, anchors, aliases or block
scalar headers are not resolved here (promoflow never writes them): to Go they read as
:data:`UNREADABLE`, which no string is.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable
from typing import Any, Final, Literal

import yaml
from ruamel.yaml import YAML

from orchestrator.goscalars import GoScalar, resolve_plain

Reader = Literal["YAML 1.1", "YAML 1.2", "Go yaml.v2", "Go yaml.v3"]
READERS: Final[tuple[Reader, ...]] = ("Go yaml.v2", "Go yaml.v3", "YAML 1.2", "YAML 1.1")
"""In the order :func:`misread` asks them: what deploys first, and the cheapest."""
WHO: Final[dict[Reader, str]] = {
    "Go yaml.v2": "Go yaml.v2 (sigs.k8s.io/yaml: Helm, Argo CD, kustomization.yaml)",
    "Go yaml.v3": "Go yaml.v3 (kustomize's kyaml)",
    "YAML 1.2": "YAML 1.2 (ruamel.yaml)",
    "YAML 1.1": "YAML 1.1 (PyYAML)",
}
"""How an error message names each reader."""

Style = Literal["plain", "single", "double", "literal", "folded"]
_STYLES: Final[dict[str | None, Style]] = {
    None: "plain",
    "'": "single",
    '"': "double",
    "|": "literal",
    ">": "folded",
}


class _Unreadable:
    """Marker: the token is not one untagged scalar to this reader (a syntax error, a
    collection, a value its constructor refuses such as ``2024-02-30`` in YAML 1.1)."""

    def __repr__(self) -> str:
        return "UNREADABLE"


UNREADABLE: Final = _Unreadable()


def scan(token: str) -> tuple[Style, str] | None:
    """The style and text of the one scalar ``token`` is (``'it''s'`` is single-quoted
    ``it's``), as Go's scanner reads ``k: TOKEN``; ``None`` when it is not one untagged,
    unanchored scalar to Go.

    PyYAML scans, with the three places where it and libyaml (so Go) part ways evened out:
    a tab inside a plain scalar is text to Go (PyYAML stops there), Go knows the escape
    ``\\'`` and not ``\\/``, and Go refuses escapes of surrogates. Block scalar headers
    (``|``, ``>``) differ too, and promoflow never writes them: such tokens are ``None``.
    """
    if token[:1] in ("|", ">"):
        return None
    text = _go_escapes(token) if token[:1] == '"' else token
    if text is None:
        return None
    tabs = "\t" in text and token[:1] not in ("'", '"')
    document = "k: " + (text.replace("\t", " ") if tabs else text) + "\n"
    try:
        events = list(yaml.parse(document, Loader=yaml.SafeLoader))
    except (yaml.YAMLError, ValueError):  # ValueError: an escape past U+10FFFF
        return None
    if len(events) != 8:  # stream, document, mapping, key, value, and their ends
        return None
    event = events[4]
    if not isinstance(event, yaml.ScalarEvent) or event.anchor or event.tag:
        return None
    if not isinstance(events[5], yaml.MappingEndEvent):
        return None
    style = _STYLES[event.style]
    if tabs and style == "plain" and event.start_mark and event.end_mark:
        # one line, no escapes: the value is the token's own text, tabs and all
        return style, ("k: " + text)[event.start_mark.index : event.end_mark.index]
    return style, event.value


def _go_escapes(token: str) -> str | None:
    """A double-quoted token with Go's escapes spelled as PyYAML knows them: ``\\'`` as
    ``\\x27``; ``None`` where Go refuses an escape (``\\/``, a surrogate, past U+10FFFF)."""
    out = []
    i = 1
    while i < len(token) and token[i] != '"':
        if token[i] != "\\":
            out.append(token[i])
            i += 1
            continue
        code = token[i + 1 : i + 2]
        if code == "/":
            return None
        if code == "'":
            out.append("\\x27")
            i += 2
            continue
        width = {"x": 2, "u": 4, "U": 8}.get(code, 0)
        digits = token[i + 2 : i + 2 + width]
        if width and re.fullmatch("[0-9a-fA-F]+", digits) and len(digits) == width:
            value = int(digits, 16)
            if 0xD800 <= value <= 0xDFFF or value > 0x10FFFF:
                return None
        out.append(token[i : i + 2 + width])
        i += 2 + width
    return '"' + "".join(out) + token[i:]


def yaml11(token: str) -> Any:
    """What PyYAML's safe loader (YAML 1.1) reads."""
    try:
        data = yaml.safe_load(f"k: {token}\n")
    except (yaml.YAMLError, ValueError, TypeError, OverflowError):
        return UNREADABLE
    return _scalar_of(data)


def yaml12(token: str) -> Any:
    """What ruamel.yaml's safe loader (YAML 1.2 core schema) reads."""
    try:
        data = _yaml12().load(f"k: {token}\n")
    except Exception:  # ruamel raises its own errors, ValueError and TypeError alike
        return UNREADABLE
    return _scalar_of(data)


_LOCAL = threading.local()


def _yaml12() -> YAML:
    """One loader a thread: building one costs as much as a load (it resets after each)."""
    loader = getattr(_LOCAL, "yaml12", None)
    if loader is None:
        loader = _LOCAL.yaml12 = YAML(typ="safe", pure=True)
    return loader


def _scalar_of(data: Any) -> Any:
    if not isinstance(data, dict) or list(data) != ["k"]:
        return UNREADABLE
    value = data["k"]
    return UNREADABLE if isinstance(value, dict | list) else value


def go_v2(token: str) -> GoScalar | _Unreadable:
    """What yaml.v2 (as sigs.k8s.io/yaml uses it) resolves ``token`` to."""
    return _go(scan(token), v3=False)


def go_v3(token: str) -> GoScalar | _Unreadable:
    """What yaml.v3 (kustomize's kyaml) resolves ``token`` to."""
    return _go(scan(token), v3=True)


def _go(scanned: tuple[Style, str] | None, v3: bool) -> GoScalar | _Unreadable:
    if scanned is None:
        return UNREADABLE
    style, text = scanned
    if style != "plain":
        return GoScalar("!!str", "string", text)
    return resolve_plain(text, v3=v3)


def readings(token: str) -> dict[Reader, Any]:
    """What each reader holds for ``token``: a Python value, a :class:`GoScalar` or
    :data:`UNREADABLE`."""
    scanned = scan(token)
    return {
        "Go yaml.v2": _go(scanned, v3=False),
        "Go yaml.v3": _go(scanned, v3=True),
        "YAML 1.2": yaml12(token),
        "YAML 1.1": yaml11(token),
    }


def misread(token: str, text: str) -> tuple[Reader, Any] | None:
    """The first reader (in :data:`READERS` order) that does not read ``token`` as the
    string ``text``, with what it reads instead; ``None`` when every reader reads ``text``."""
    scanned = scan(token)
    checks: tuple[tuple[Reader, Callable[[], Any]], ...] = (
        ("Go yaml.v2", lambda: _go(scanned, v3=False)),
        ("Go yaml.v3", lambda: _go(scanned, v3=True)),
        ("YAML 1.2", lambda: yaml12(token)),
        ("YAML 1.1", lambda: yaml11(token)),
    )
    for reader, read in checks:
        reading = read()
        if not reads_as(reading, text):
            return reader, reading
    return None


def reads_as(got: Any, text: str) -> bool:
    """Whether a reading is exactly the string ``text``."""
    if isinstance(got, GoScalar):
        return got.is_string(text)
    return isinstance(got, str) and got == text


def describe(got: Any) -> str:
    """A reading for a message: ``6.063e+28 (float64)``, ``true (bool)``, ``'1.0' (str)``."""
    if got is UNREADABLE:
        return "no single value (the token does not parse)"
    if isinstance(got, GoScalar):
        shown = repr(got.value) if got.type == "string" else _go_text(got.value)
        return f"{shown} ({got.type})"
    return f"{got!r} ({type(got).__name__})"


def _go_text(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)
