"""Which Go type each Python value stands for, as a template sees it.

A template's data arrives as JSON (Argo CD's unstructured Application): objects are
``map[string]interface {}``, arrays ``[]interface {}``, integers ``int64``, other numbers
``float64``. Functions return other Go types (sprig's ``len`` an ``int``, ``splitList`` a
``[]string``), and Go's template engine checks argument types, prints each type its own way
and refuses to pass an ``int64`` where an ``int`` is wanted. The classes here tag a Python
value with the Go type it has where the plain Python type would be ambiguous:

=================  ===========================
Python             Go
=================  ===========================
``bool``           ``bool``
``int``            ``int64``
:class:`GoInt`     ``int``
``float``          ``float64``
``str``            ``string``
``bytes``          ``[]uint8`` (Secret data)
``None``           nil
``dict``           ``map[string]interface {}``
:class:`StrMap`    ``map[string]string``
``list``           ``[]interface {}``
:class:`StrList`   ``[]string``
:class:`IntList`   ``[]int``
=================  ===========================

Times, durations and semantic versions are in :mod:`reporters.gotemplate.gotime` and
:mod:`reporters.gotemplate.sprig_semver`; they report their Go type through ``go_type``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


class GoInt(int):
    """A Go ``int`` (``len``, ``atoi``, integer literals): distinct from ``int64``."""

    __str__ = int.__repr__


class GoUint8(int):
    """A Go ``uint8`` (a byte of a string, as ``index`` returns it)."""


class StrList(list[str]):
    """A Go ``[]string``."""


class IntList(list[int]):
    """A Go ``[]int``."""


class StrMap(dict[str, str]):
    """A Go ``map[string]string``."""


class GoFunc:
    """A Go function: its parameter types, whether the last is variadic, what it returns.

    ``params`` are Go type names (``string``, ``int``, ``interface {}``, ``reflect.Value``);
    a variadic function lists the element type of its ``...`` parameter last. ``fn`` gets
    Python values and returns one, or raises :class:`GoPanic` / :class:`GoError`.
    """

    def __init__(
        self,
        fn: Callable[..., Any],
        params: tuple[str, ...],
        *,
        variadic: bool = False,
        returns: str = "interface {}",
        name: str = "",
    ) -> None:
        self.fn = fn
        self.params = params
        self.variadic = variadic
        self.returns = returns
        self.name = name or getattr(fn, "__name__", "func")

    def __call__(self, *args: Any) -> Any:
        return self.fn(*args)

    @property
    def go_type(self) -> str:
        params = list(self.params)
        if self.variadic:
            params[-1] = "..." + params[-1]
        return f"func({', '.join(params)}) {self.returns}"


class GoError(Exception):
    """A Go function returned a non-nil error (the template says "error calling X: ...")."""


class GoPanic(Exception):
    """A Go function panicked; text/template recovers and reports it like an error."""


def go_type(value: Any) -> str:
    """The dynamic Go type name of a value, as ``%T`` and error messages print it."""
    if value is None:
        return "<nil>"
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, GoInt):
        return "int"
    if isinstance(value, GoUint8):
        return "uint8"
    if isinstance(value, int):
        return getattr(value, "go_type", "int64")
    if isinstance(value, float):
        return "float64"
    if isinstance(value, complex):
        return "complex128"
    if isinstance(value, str):
        return "string"
    if isinstance(value, bytes | bytearray):
        return "[]uint8"
    if isinstance(value, StrMap):
        return "map[string]string"
    if isinstance(value, dict):
        return "map[string]interface {}"
    if isinstance(value, StrList):
        return "[]string"
    if isinstance(value, IntList):
        return "[]int"
    if isinstance(value, list):
        return "[]interface {}"
    typ = getattr(value, "go_type", None)
    if isinstance(typ, str):
        return typ
    if callable(value):
        return "func(...) interface {}"
    return "interface {}"


def go_kind(value: Any) -> str:
    """reflect.Kind's name for a value (``kindOf``, ``kindIs``, comparisons)."""
    if value is None:
        return "invalid"
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, GoInt):
        return "int"
    if isinstance(value, GoUint8):
        return "uint8"
    if isinstance(value, int):
        return getattr(value, "go_kind", "int64")
    if isinstance(value, float):
        return "float64"
    if isinstance(value, str):
        return "string"
    if isinstance(value, dict):
        return "map"
    if isinstance(value, list | bytes | bytearray):
        return "slice"
    kind = getattr(value, "go_kind", None)
    if isinstance(kind, str):
        return kind
    if callable(value):
        return "func"
    return "struct"
