"""Where a YAML path leads in a values file being edited, and what to say when it leads nowhere.

:mod:`orchestrator.model.yamlpath` is the path language and the one lookup every reader uses;
an edit asks more of a path. It needs the collection and key that hold the value, with the
path's selectors resolved to the list indexes the file has, and, for a rule that may create
its path, the keys and list items that are missing made along the way. A path that does not
exist is refused with the existing path it most likely meant, so that a typo is corrected
by its reader instead of adding a key that nothing reads.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable
from typing import Any

from orchestrator.model.yamlpath import (
    PathNotFound,
    PathPart,
    Selector,
    existing_paths,
    format_yaml_path,
    step,
)

Path = tuple[PathPart, ...]
Concrete = tuple[str | int, ...]
"""A path whose selectors are resolved to list indexes."""


def walk(root: Any, path: Concrete) -> tuple[Any, str | int] | None:
    """The collection holding ``path``'s last part; ``None`` when an ancestor is missing."""
    node = root
    for part in path[:-1]:
        try:
            node = node[part]
        except (KeyError, IndexError, TypeError):
            return None
    return node, path[-1]


Place = tuple[Any, str | int, Concrete, bool]
"""(collection, key or index, the concrete path, whether anything was created)."""


def place_of(
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
