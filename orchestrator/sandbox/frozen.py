"""Read-only template data: what a template is given cannot be changed by it.

Jinja's sandbox keeps a template from reaching Python internals, but not from changing the
data it is given: ``{{ context.update(...) }}`` in one notification changed the link in
every later one. Every render is given a read-only copy (:func:`freeze`), made lazily so
that an event's app is copied only as far as its templates look into it.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any, NoReturn


class FrozenDict(dict[Any, Any]):
    """A dict that refuses to change: what a template is given cannot be changed by it
    for anything else. Still a dict to ``tojson`` and ``repr``, so templates print it as
    before.

    Made by :func:`freeze` as a shallow copy; each value is frozen in turn when it is
    first read, so an event's app is copied only as far as its templates look into it.
    """

    def _refuse(self, *args: Any, **kwargs: Any) -> NoReturn:
        raise TypeError("template data is read-only")

    __setitem__ = __delitem__ = __ior__ = _refuse
    clear = pop = popitem = setdefault = update = _refuse

    def __getitem__(self, key: Any) -> Any:
        value = dict.__getitem__(self, key)
        if type(value) not in _PLAIN:
            value = freeze(value)
            dict.__setitem__(self, key, value)
        return value

    def get(self, key: Any, default: Any = None) -> Any:
        try:
            return self[key]
        except KeyError:
            return default

    def values(self) -> list[Any]:  # type: ignore[override]
        return [self[key] for key in self]

    def items(self) -> list[tuple[Any, Any]]:  # type: ignore[override]
        return [(key, self[key]) for key in self]

    def copy(self) -> FrozenDict:
        return self


class FrozenList(list[Any]):
    """A list that refuses to change, its items frozen as they are read (see
    :class:`FrozenDict`)."""

    def _refuse(self, *args: Any, **kwargs: Any) -> NoReturn:
        raise TypeError("template data is read-only")

    __setitem__ = __delitem__ = __iadd__ = __imul__ = _refuse
    append = extend = insert = pop = remove = clear = sort = reverse = _refuse

    def _item(self, index: int) -> Any:
        value = list.__getitem__(self, index)
        if type(value) not in _PLAIN:
            value = freeze(value)
            list.__setitem__(self, index, value)
        return value

    def __getitem__(self, index: Any) -> Any:
        if isinstance(index, slice):
            return FrozenList(list.__getitem__(self, index))
        return self._item(index)

    def __iter__(self) -> Iterator[Any]:
        for index in range(len(self)):
            yield self._item(index)

    def __reversed__(self) -> Iterator[Any]:
        for index in range(len(self) - 1, -1, -1):
            yield self._item(index)

    def copy(self) -> FrozenList:
        return self


_PLAIN = frozenset({str, int, float, bool, type(None), FrozenDict, FrozenList})
"""Types :func:`freeze` keeps as they are: immutable, or frozen already."""


def freeze(value: Any) -> Any:
    """A read-only copy of JSON-like ``value``: dicts and lists as :class:`FrozenDict`
    and :class:`FrozenList` (their contents copied in turn as they are read), everything
    else as it is."""
    kind = type(value)
    if kind in _PLAIN:
        return value
    if kind is dict or isinstance(value, Mapping):
        return FrozenDict(value)
    if kind is list or kind is tuple or isinstance(value, list | tuple):
        return FrozenList(value)
    return value
