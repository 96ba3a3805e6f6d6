"""The part of Go's ``reflect`` a template engine leans on: missing values and interfaces.

Go tells apart a missing map key (an invalid ``reflect.Value``: printed ``<no value>``), a
JSON null read from a ``map[string]interface {}`` (a nil *interface*: an error when a field
is read through it), and a plain value. :data:`INVALID` and :class:`Boxed` carry those
distinctions through the executor; builtins that take ``reflect.Value`` see them too.
"""

from __future__ import annotations

from typing import Any, Final

from reporters.gotemplate.values import GoFunc, go_type


class _Invalid:
    """The zero ``reflect.Value``: no value at all."""

    _instance: _Invalid | None = None

    def __new__(cls) -> _Invalid:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "INVALID"


INVALID: Final = _Invalid()


class Boxed:
    """A value held in an ``interface {}`` (a map element, a slice element, a result)."""

    __slots__ = ("value",)

    def __init__(self, value: Any) -> None:
        self.value = value

    def __repr__(self) -> str:
        return f"Boxed({self.value!r})"


def unbox(value: Any) -> Any:
    """indirectInterface: the concrete value in an interface, INVALID for a nil one."""
    if isinstance(value, Boxed):
        return INVALID if value.value is None else value.value
    return value


def static_type(value: Any) -> str:
    """The Go type of the reflect.Value itself (``interface {}`` for a boxed one)."""
    if isinstance(value, Boxed):
        return "interface {}"
    if isinstance(value, GoFunc):
        return value.go_type
    return go_type(value)


def is_true(value: Any) -> bool:
    """Go's template truth: not the zero value of its type."""
    value = unbox(value)
    if value is INVALID or value is None or getattr(value, "go_nil", False):
        return False
    if isinstance(value, bool):
        return value
    if isinstance(value, int | float):
        return value != 0
    if isinstance(value, str | list | dict | bytes | bytearray | tuple):
        return len(value) > 0
    return True
