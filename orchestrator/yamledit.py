"""Edit values inside YAML files so that a reviewer's diff shows only the promoted values.

A scalar is replaced in the original text, at the position ruamel.yaml reports for it, in
the quoting style the target file already uses (when that style can hold the new value):
comments, key order, indentation and every other byte stay as they were. Only edits that
text replacement cannot express (a missing key, a whole mapping or list) go through a
ruamel.yaml round trip. Every result is re-parsed and compared with the intended data
before it is returned, so a promotion never writes a file that means something else.
Where a path leads is :mod:`orchestrator.yamlplaces`'s question; where a scalar's token is
and how a string is spelled as one, :mod:`orchestrator.yamltokens`'s.

A string is written plain only when every reader of the file reads that same string back:
YAML 1.1 (PyYAML), YAML 1.2 (ruamel.yaml) and Go's YAML as Helm, Argo CD and kustomize read
it (:mod:`orchestrator.yamlscalars`). ``6063e25``, ``1e3``, ``0o17`` or ``y`` are strings
to YAML 1.1 and a float, an int or a boolean to Go, so they are quoted.
"""

from __future__ import annotations

import copy
import io
import json
from collections.abc import Collection, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

import yaml
from ruamel.yaml import YAML
from ruamel.yaml.comments import CommentedMap, CommentedSeq
from ruamel.yaml.constructor import RoundTripConstructor
from ruamel.yaml.error import YAMLError as RuamelError
from ruamel.yaml.scalarstring import DoubleQuotedScalarString, SingleQuotedScalarString

from orchestrator import yamlscalars
from orchestrator.model.yamlpath import PathNotFound, format_yaml_path, parse_yaml_path, resolve
from orchestrator.nesting import yaml_too_deep
from orchestrator.yamlplaces import Concrete, Path, not_found, place_of
from orchestrator.yamltabs import MESSAGE as TABS
from orchestrator.yamltabs import tab_problem
from orchestrator.yamltokens import Span, Style, locate, misread_at, quote_style, spelled


class YamlEditError(ValueError):
    """A file cannot be read or edited as asked; the message names the file and path."""


@dataclass(frozen=True)
class Value:
    """A value read from a file: its data and, for scalars, how it was written."""

    data: Any
    token: str | None = None
    style: Style = "other"


_TIMESTAMP = "tag:yaml.org,2002:timestamp"


class _SafeLoader(yaml.SafeLoader):
    """PyYAML's safe loader, except that a date that does not exist (``2024-02-30``)
    stays the text it is, as Go's YAML reads it (Helm and kustomize take such files),
    instead of raising ValueError."""


def _timestamp(loader: yaml.SafeLoader, node: yaml.ScalarNode) -> Any:
    try:
        return yaml.SafeLoader.construct_yaml_timestamp(loader, node)
    except (ValueError, OverflowError):
        return loader.construct_scalar(node)


_SafeLoader.add_constructor(_TIMESTAMP, _timestamp)


class _RoundTrip(RoundTripConstructor):
    """ruamel.yaml's round trip, with the same tolerance of dates that do not exist."""


def _rt_timestamp(constructor: RoundTripConstructor, node: Any) -> Any:
    try:
        return RoundTripConstructor.construct_yaml_timestamp(constructor, node)
    except (ValueError, OverflowError):
        return constructor.construct_scalar(node)


_RoundTrip.add_constructor(_TIMESTAMP, _rt_timestamp)


def _rt() -> YAML:
    rt = YAML(typ="rt")
    rt.Constructor = _RoundTrip
    rt.preserve_quotes = True
    return rt


def _not_too_deep(text: str, name: str) -> None:
    """Both YAML libraries recurse once per nesting level (RecursionError, or a crash in
    libyaml's C composer): a values file nested past the bound is refused before parsing."""
    deep = yaml_too_deep(text)
    if deep is not None:
        raise YamlEditError(f"{name}:{deep.line}:{deep.col}: invalid YAML ({deep.message})")


def _load_rt(text: str, name: str) -> Any:
    _not_too_deep(text, name)
    try:
        return _rt().load(text)
    except RuamelError as exc:
        _tab(exc, text, name)
        raise YamlEditError(f"{name}: invalid YAML ({type(exc).__name__}: {exc})") from None


def _safe(text: str, name: str) -> Any:
    _not_too_deep(text, name)
    try:
        return yaml.load(text, Loader=_SafeLoader)
    except yaml.YAMLError as exc:
        _tab(exc, text, name)
        raise YamlEditError(f"{name}: invalid YAML ({exc})") from None


def _tab(exc: Exception, text: str, name: str) -> None:
    """Either library's error, when a tab in the indentation caused it, named as such."""
    mark = getattr(exc, "problem_mark", None)
    tab = tab_problem(text, getattr(mark, "line", None), getattr(exc, "problem", None))
    if tab is not None:
        raise YamlEditError(f"{name}:{tab.line}:{tab.column}: {TABS}") from None


def read(text: str, path: str, name: str = "<yaml>") -> Value:
    """The value at ``path`` (``image.tag``); :class:`YamlEditError` if it is absent, naming
    the nearest path the file has."""
    parts = parse_yaml_path(path)
    data = _safe(text, name)
    try:
        concrete, data = resolve(data, parts)
    except PathNotFound as exc:
        raise YamlEditError(not_found(name, path, _safe(text, name), exc)) from None
    if isinstance(data, dict | list):
        return Value(data)
    span = locate(text, _load_rt(text, name), concrete)
    if span is None:
        return Value(data)
    return Value(data, text[span.start : span.end], span.style)


def exists(text: str, path: str, name: str = "<yaml>") -> bool:
    """Whether ``path`` names a value (invalid YAML is still an error)."""
    try:
        resolve(_safe(text, name), parse_yaml_path(path))
    except PathNotFound:
        return False
    return True


def _scalar_yaml(token: str) -> Any:
    try:
        return yaml.load(f"k: {token}\n", Loader=_SafeLoader)["k"]
    except (yaml.YAMLError, TypeError, KeyError):
        return _Invalid


class _Invalid:
    """Marker: a token that does not parse as a scalar value."""


def render(value: Value, style: Style) -> str | None:
    """``value`` written in ``style`` if that style can hold it exactly, else ``None``.

    A string is held only when every reader reads it back as that string: YAML 1.1, YAML
    1.2 and Go's yaml.v2 and yaml.v3 (``6063e25`` plain is a float to all but YAML 1.1).
    Other scalars keep the token they were read with.
    """
    data = value.data
    if isinstance(data, dict | list):
        return None
    if not isinstance(data, str):
        token = value.token if value.token is not None else json.dumps(data)
        return token if _same(_scalar_yaml(token), data) else None
    text = spelled(data, style)
    if text is not None and yamlscalars.misread(text, data) is None:
        return text
    return None


def _quoted(value: Value, text: str) -> str | None:
    """A string that its token's style cannot hold, in the file's quotes or else the other."""
    if not isinstance(value.data, str):
        return None
    first = quote_style(text)
    second: Style = "double" if first == "single" else "single"
    return render(value, first) or render(value, second)


def _quotes_marked(data: Any, text: str) -> Any:
    """``data`` for ruamel.yaml's round trip, with every string that a reader would misread
    plain marked to be written in the file's quotes (ruamel.yaml alone would write ``y``
    plain, a boolean to Go's yaml.v2). Text over several lines is left to ruamel.yaml,
    which keeps a block scalar a block scalar and never writes such text plain."""
    if isinstance(data, str):
        if "\n" in data or yamlscalars.misread(data, data) is None:
            return data
        if quote_style(text) == "single" and render(Value(data), "single") is not None:
            return SingleQuotedScalarString(data)
        return DoubleQuotedScalarString(data)
    if isinstance(data, dict):
        return {_quotes_marked(k, text): _quotes_marked(v, text) for k, v in data.items()}
    if isinstance(data, list):
        return [_quotes_marked(v, text) for v in data]
    return data


def _same(a: Any, b: Any) -> bool:
    return type(a) is type(b) and a == b


Update = Value | None
"""A value to write at a path, or ``None``: remove the key (nothing when it is absent)."""


def edit(
    text: str,
    updates: Mapping[str, Update],
    name: str = "<yaml>",
    *,
    create: Collection[str] = (),
) -> str:
    """Set each YAML path to its value; returns the new text (unchanged bytes elsewhere).

    Every path must already exist in the file, up to its last key: a mistyped path
    (``images[0].newtag`` for ``newTag``) would otherwise add a key that nothing reads,
    and the promotion would "succeed" while the old version keeps running. Only the paths
    in ``create`` may add what they miss (keys, a list item ``[field=value]``)."""
    parsed = {path: parse_yaml_path(path) for path in updates}
    expected = _safe(text, name)
    if not isinstance(expected, dict):
        raise YamlEditError(f"{name}: the document must be a mapping")
    original = copy.deepcopy(expected)
    structural: dict[str, Update] = {}
    replacements: list[tuple[Span, str]] = []
    root = _load_rt(text, name)
    for path, value in updates.items():
        parts = parsed[path]
        try:
            place = place_of(expected, parts, creating=path in create, removing=value is None)
        except PathNotFound as exc:
            raise YamlEditError(_refused(name, path, original, exc)) from None
        if place is None:
            continue  # a removal of something absent
        holder, key, concrete, made = place
        if value is None:
            del holder[key]
            structural[path] = None
            continue
        holder[key] = copy.deepcopy(value.data)
        span = None if made else locate(text, root, concrete)
        token = render(value, span.style) if span else None
        if token is None and span is not None:
            token = _quoted(value, text)
        if span is None or token is None:
            structural[path] = Value(_quotes_marked(value.data, text), value.token, value.style)
        else:
            replacements.append((span, token))
    for span, token in sorted(replacements, key=lambda r: r[0].start, reverse=True):
        text = text[: span.start] + token + text[span.end :]
    if structural:
        text = _round_trip(text, {parsed[p]: (v, p in create) for p, v in structural.items()}, name)
    if _safe(text, name) != expected:
        raise YamlEditError(f"{name}: the edit did not produce the intended values")
    _read_back(text, {parsed[p]: v for p, v in updates.items() if v is not None}, name)
    return text


def _refused(name: str, path: str, data: Any, problem: PathNotFound) -> str:
    """Why ``path`` cannot be set: not there (with the nearest path that is), or through
    something that cannot hold it (a scalar where a mapping should be)."""
    if problem.blocked:
        return f"{name}: cannot set {path!r}: {problem.reason}"
    return not_found(name, path, data, problem)


def _read_back(text: str, updates: dict[Path, Value], name: str) -> None:
    """Every string just written reads back as that string in every reader, not only in
    the YAML 1.1 the check above parses with: YAML 1.2 and Go's yaml.v2 and yaml.v3 too.
    The error names the file, the path and the reader that reads something else."""
    root = _load_rt(text, name)
    data = _safe(text, name)
    for parts, value in updates.items():
        concrete, _ = resolve(data, parts)  # it exists: the data was just compared
        for leaf, wanted in _strings(concrete, value.data):
            wrong = misread_at(text, root, leaf, wanted)
            if wrong is not None:
                reader, got = wrong
                raise YamlEditError(
                    f"{name}: {format_yaml_path(leaf)} would not read back as {wanted!r}: "
                    f"{yamlscalars.WHO[reader]} reads {yamlscalars.describe(got)}"
                )


def _strings(path: Concrete, data: Any) -> Iterator[tuple[Concrete, str]]:
    if isinstance(data, str):
        yield path, data
    elif isinstance(data, dict):
        for key, item in data.items():
            yield from _strings((*path, key), item)
    elif isinstance(data, list):
        for index, item in enumerate(data):
            yield from _strings((*path, index), item)


def _round_trip(text: str, updates: dict[Path, tuple[Update, bool]], name: str) -> str:
    """Structural edits (new keys, list items, whole subtrees, removals) through
    ruamel.yaml's round trip."""
    rt = _rt()
    rt.width = 4096
    rt.indent(mapping=2, sequence=_sequence_indent(text), offset=_sequence_indent(text) - 2)
    root = _load_rt(text, name)
    for path, (value, creating) in updates.items():
        try:
            place = place_of(
                root,
                path,
                creating=creating,
                removing=value is None,
                new_map=CommentedMap,
                new_list=CommentedSeq,
            )
        except PathNotFound as exc:  # checked on the plain data already
            raise YamlEditError(f"{name}: cannot set {format_yaml_path(path)!r}: {exc}") from None
        if place is None:
            continue
        holder, key, _, _ = place
        if value is None:
            del holder[key]
        else:
            holder[key] = copy.deepcopy(value.data)
    out = io.StringIO()
    rt.dump(root, out)
    return out.getvalue()


def _sequence_indent(text: str) -> int:
    """2 when list items sit under their key (``key:\\n- a``), 4 when indented past it."""
    lines = text.splitlines()
    for i, line in enumerate(lines[1:], start=1):
        stripped = line.lstrip()
        if stripped.startswith("- ") and lines[i - 1].rstrip().endswith(":"):
            key_indent = len(lines[i - 1]) - len(lines[i - 1].lstrip())
            return 4 if len(line) - len(stripped) > key_indent else 2
    return 2
