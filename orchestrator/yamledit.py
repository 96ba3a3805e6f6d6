"""Edit values inside YAML files so that a reviewer's diff shows only the promoted values.

A scalar is replaced in the original text, at the position ruamel.yaml reports for it, in
the quoting style the target file already uses (when that style can hold the new value):
comments, key order, indentation and every other byte stay as they were. Only edits that
text replacement cannot express (a missing key, a whole mapping or list) go through a
ruamel.yaml round trip. Every result is re-parsed and compared with the intended data
before it is returned, so a promotion never writes a file that means something else.

A string is written plain only when every reader of the file reads that same string back:
YAML 1.1 (PyYAML), YAML 1.2 (ruamel.yaml) and Go's YAML as Helm, Argo CD and kustomize read
it (:mod:`orchestrator.yamlscalars`). ``6063e25``, ``1e3``, ``0o17`` or ``y`` are strings
to YAML 1.1 and a float, an int or a boolean to Go, so they are quoted.
"""

from __future__ import annotations

import copy
import difflib
import functools
import io
import json
from collections.abc import Callable, Collection, Iterator, Mapping
from dataclasses import dataclass
from typing import Any, Literal

import yaml
from ruamel.yaml import YAML
from ruamel.yaml.comments import CommentedMap, CommentedSeq
from ruamel.yaml.constructor import RoundTripConstructor
from ruamel.yaml.error import YAMLError as RuamelError
from ruamel.yaml.scalarstring import (
    DoubleQuotedScalarString,
    FoldedScalarString,
    LiteralScalarString,
    SingleQuotedScalarString,
)

from orchestrator import goscalars, yamlscalars
from orchestrator.model.yamlpath import (
    PathNotFound,
    PathPart,
    Selector,
    existing_paths,
    format_yaml_path,
    parse_yaml_path,
    resolve,
    step,
)
from orchestrator.nesting import yaml_too_deep

Style = Literal["plain", "single", "double", "other"]
Path = tuple[PathPart, ...]
Concrete = tuple[str | int, ...]
"""A path whose selectors are resolved to list indexes."""


class YamlEditError(ValueError):
    """A file cannot be read or edited as asked; the message names the file and path."""


@dataclass(frozen=True)
class Value:
    """A value read from a file: its data and, for scalars, how it was written."""

    data: Any
    token: str | None = None
    style: Style = "other"


@dataclass(frozen=True)
class _Span:
    start: int
    end: int
    style: Style


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
        raise YamlEditError(f"{name}: invalid YAML ({type(exc).__name__}: {exc})") from None


def _safe(text: str, name: str) -> Any:
    _not_too_deep(text, name)
    try:
        return yaml.load(text, Loader=_SafeLoader)
    except yaml.YAMLError as exc:
        raise YamlEditError(f"{name}: invalid YAML ({exc})") from None


def _walk(root: Any, path: Concrete) -> tuple[Any, str | int] | None:
    """The collection holding ``path``'s last part; ``None`` when an ancestor is missing."""
    node = root
    for part in path[:-1]:
        try:
            node = node[part]
        except (KeyError, IndexError, TypeError):
            return None
    return node, path[-1]


def _offset(text: str, line: int, col: int) -> int:
    starts = [0]
    for i, ch in enumerate(text):
        if ch == "\n":
            starts.append(i + 1)
    return starts[line] + col


def _span(text: str, start: int, flow: bool) -> _Span | None:
    """Extent of the scalar token starting at ``start``; ``None`` for styles we don't edit."""
    first = text[start : start + 1]
    if first == '"':
        i = start + 1
        while i < len(text) and text[i] != '"':
            if text[i] == "\n":
                return None
            i += 2 if text[i] == "\\" else 1
        return _Span(start, i + 1, "double") if i < len(text) else None
    if first == "'":
        i = start + 1
        while i < len(text):
            if text[i] == "\n":
                return None
            if text[i] == "'":
                if text[i + 1 : i + 2] == "'":
                    i += 2
                    continue
                return _Span(start, i + 1, "single")
            i += 1
        return None
    if not first or first in "|>&!*\n":
        return None
    end = text.find("\n", start)
    end = len(text) if end == -1 else end
    stops = [text.find(" #", start, end)]
    if flow:
        stops += [text.find(c, start, end) for c in ",]}"]
    found = [s for s in stops if s != -1]
    end = min(found) if found else end
    return _Span(start, len(text[start:end].rstrip()) + start, "plain")


_NULLS = ("~", "null", "Null", "NULL")


def _locate(text: str, root: Any, path: Concrete) -> _Span | None:
    found = _walk(root, path)
    if found is None:
        return None
    parent, last = found
    try:
        if isinstance(parent, CommentedMap):
            if last not in parent:
                return None
            line, col = parent.lc.value(last)
        elif isinstance(parent, CommentedSeq) and isinstance(last, int) and last < len(parent):
            line, col = parent.lc.item(last)
        else:
            return None
    except (KeyError, TypeError):
        return None
    flow = bool(parent.fa.flow_style())
    span = _span(text, _offset(text, line, col), flow)
    if span is not None and parent[last] is None:
        # an empty value (``key:``) has no token of its own: the position is whatever
        # follows, so only an explicit null is replaced in place
        token = text[span.start : span.end]
        return span if token in _NULLS else None
    return span


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
    span = _locate(text, _load_rt(text, name), concrete)
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


def not_found(name: str, path: str, data: Any, problem: PathNotFound) -> str:
    """``FILE: YAML path 'P' not found: why; did you mean Q?`` with the existing path
    closest to ``path``, spelled as it was written (a selector stays a selector)."""
    message = f"{name}: YAML path {path!r} not found: {problem.reason}"
    guess = nearest(data, problem.path, problem.depth)
    return message + (f"; did you mean {guess}?" if guess else "")


def _common_prefix(a: str, b: str) -> int:
    """How many leading characters ``a`` and ``b`` share."""
    n = 0
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        n += 1
    return n


def nearest(data: Any, parts: Path, depth: int) -> str | None:
    """The existing path a mistyped ``parts`` most likely meant: one whose spelling differs
    little where it differs (``image.newTag`` -> ``images[0].newTag``, ``images[0].newtag``
    -> ``images[0].newTag``), else a key close to the one missing at ``depth`` among its
    siblings (``image.tg`` -> ``image.tag``)."""
    wanted = format_yaml_path(parts)
    paths = {
        format_yaml_path(p): p
        for p in existing_paths(data, like=parts)
        if p != parts[: len(p)]  # an ancestor of the path is no correction of it
    }
    best, score = None, (0.7, 0)
    folded = wanted.lower()
    for text in paths:
        other = text.lower()
        common = _common_prefix(folded, other)
        ratio = difflib.SequenceMatcher(None, folded[common:], other[common:]).ratio()
        if (ratio, common) > score:
            best, score = text, (ratio, common)
    if best is not None:
        return best
    missing = parts[depth]
    if not isinstance(missing, str):
        return None
    prefix = parts[:depth]
    siblings = [p[depth] for p in paths.values() if len(p) == depth + 1 and p[:depth] == prefix]
    keys = [k for k in siblings if isinstance(k, str)]
    key = difflib.get_close_matches(missing, keys, n=1, cutoff=0.6)
    if not key:
        return None
    fixed = (*prefix, key[0], *parts[depth + 1 :])
    return format_yaml_path(fixed if format_yaml_path(fixed) in paths else (*prefix, key[0]))


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
    text = _spelled(data, style)
    if text is not None and yamlscalars.misread(text, data) is None:
        return text
    return None


def _spelled(data: str, style: Style) -> str | None:
    if style == "plain":
        return data if "\n" not in data else None
    if style == "single":  # line breaks would fold: only double quotes escape them
        return "'" + data.replace("'", "''") + "'" if "\n" not in data else None
    if style == "double":
        return _double_quoted(data)
    return None


_ESCAPES = {'"': '\\"', "\\": "\\\\", "\t": "\\t", "\n": "\\n", "\r": "\\r"}


def _double_quoted(data: str) -> str:
    """``data`` in double quotes on one line: what YAML does not allow raw (control
    characters, line and paragraph separators, a byte order mark) is escaped."""
    out = []
    for ch in data:
        code = ord(ch)
        if ch in _ESCAPES:
            out.append(_ESCAPES[ch])
        elif (
            0x20 <= code <= 0x7E
            or code >= 0x10000
            or (
                0xA0 <= code <= 0xFFFD
                and code not in (0x2028, 0x2029, 0xFEFF)
                and not 0xD800 <= code <= 0xDFFF
            )
        ):
            out.append(ch)
        else:
            out.append(f"\\x{code:02x}" if code <= 0xFF else f"\\u{code:04x}")
    return '"' + "".join(out) + '"'


@functools.lru_cache(maxsize=8)
def _quote_style(text: str) -> Literal["single", "double"]:
    """The quotes a file uses most for its scalars (double when it uses none, or as many of
    each): a value that must become quoted is quoted as its neighbours are."""
    counts = {"'": 0, '"': 0}
    try:
        for event in yaml.parse(text, Loader=yaml.SafeLoader):
            if isinstance(event, yaml.ScalarEvent) and event.style in counts:
                counts[event.style] += 1
    except yaml.YAMLError:
        pass
    return "single" if counts["'"] > counts['"'] else "double"


def _quoted(value: Value, text: str) -> str | None:
    """A string that its token's style cannot hold, in the file's quotes or else the other."""
    if not isinstance(value.data, str):
        return None
    first = _quote_style(text)
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
        if _quote_style(text) == "single" and render(Value(data), "single") is not None:
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
    replacements: list[tuple[_Span, str]] = []
    root = _load_rt(text, name)
    for path, value in updates.items():
        parts = parsed[path]
        try:
            place = _place(expected, parts, creating=path in create, removing=value is None)
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
        span = None if made else _locate(text, root, concrete)
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
            wrong = _misread_at(text, root, leaf, wanted)
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


_QUOTED_OR_BLOCK = (
    SingleQuotedScalarString,
    DoubleQuotedScalarString,
    LiteralScalarString,
    FoldedScalarString,
)


def _misread_at(
    text: str, root: Any, path: Concrete, wanted: str
) -> tuple[yamlscalars.Reader, Any] | None:
    span = _locate(text, root, path)
    if span is not None:
        return yamlscalars.misread(text[span.start : span.end], wanted)
    # no one-line token: a block scalar, or a scalar over several lines. ruamel.yaml's
    # round-trip reading is YAML 1.2's; quoted and block scalars are strings to Go, and a
    # plain one is resolved as it reads.
    found = _walk(root, path)
    try:
        node = found[0][found[1]] if found else None
    except (KeyError, IndexError, TypeError):
        node = None
    if not isinstance(node, str) or str(node) != wanted:
        return "YAML 1.2", node
    if isinstance(node, _QUOTED_OR_BLOCK):
        return None
    go: tuple[tuple[yamlscalars.Reader, bool], ...] = (("Go yaml.v2", False), ("Go yaml.v3", True))
    for reader, v3 in go:
        got = goscalars.resolve_plain(wanted, v3=v3)
        if not got.is_string(wanted):
            return reader, got
    return None


Place = tuple[Any, str | int, Concrete, bool]
"""(collection, key or index, the concrete path, whether anything was created)."""


def _place(
    root: Any,
    path: Path,
    *,
    creating: bool,
    removing: bool = False,
    new_map: Callable[[], Any] = dict,
    new_list: Callable[[], Any] = list,
) -> Place | None:
    """Where ``path``'s value lives in ``root``, creating what is missing when ``creating``
    (mappings for keys, a ``{field: value}`` item for a selector); :class:`PathNotFound`
    when it is not there otherwise. ``removing``: ``None`` when the path's parent is absent
    (there is nothing to remove)."""
    node = root
    concrete: list[str | int] = []
    made = False
    for depth, part in enumerate(path):
        last = depth == len(path) - 1
        found = list(step(node, part))
        if len(found) > 1:
            raise PathNotFound.at(path, depth, node, len(found))
        if found and not last:
            key, child = found[0]
            if child is None and creating and isinstance(key, str):
                node[key] = child = _container(path, depth + 1, new_map, new_list)
                made = True
            node = child
            concrete.append(key)
            continue
        if found:
            concrete.append(found[0][0])
            return node, found[0][0], tuple(concrete), made
        if removing:
            return None  # nothing there to remove
        if not creating:
            raise PathNotFound.at(path, depth, node)
        if isinstance(part, str) and isinstance(node, dict):
            if last:
                concrete.append(part)
                return node, part, tuple(concrete), True
            node[part] = _container(path, depth + 1, new_map, new_list)
            key = part
        elif isinstance(part, Selector) and isinstance(node, list):
            item = new_map()
            item[part.field] = part.value
            node.append(item)
            key = len(node) - 1
        else:
            raise PathNotFound.at(path, depth, node)
        made = True
        concrete.append(key)
        if last:
            return node, key, tuple(concrete), True
        node = node[key]
    raise AssertionError("a path has at least one part")


def _container(
    path: Path, depth: int, new_map: Callable[[], Any], new_list: Callable[[], Any]
) -> Any:
    """What a created key holds: a list when the next part selects an item, else a mapping
    (an index names an item that exists: ``[3]`` of a new list cannot)."""
    following = path[depth]
    if isinstance(following, int):
        where = format_yaml_path(path[:depth])
        raise PathNotFound(path, depth, f"{where} is a new list, with no item [{following}]")
    return new_list() if isinstance(following, Selector) else new_map()


def _round_trip(text: str, updates: dict[Path, tuple[Update, bool]], name: str) -> str:
    """Structural edits (new keys, list items, whole subtrees, removals) through
    ruamel.yaml's round trip."""
    rt = _rt()
    rt.width = 4096
    rt.indent(mapping=2, sequence=_sequence_indent(text), offset=_sequence_indent(text) - 2)
    root = _load_rt(text, name)
    for path, (value, creating) in updates.items():
        try:
            place = _place(
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
