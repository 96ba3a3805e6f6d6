"""A Go struct (or pointer to one) as a template reads it: fields, methods, nil pointers.

text/template reads a struct's exported field by name and calls its methods; a field the
type does not have is ``can't evaluate field X in type T`` (no ``<no value>`` as for a
map), a field read through a nil pointer is ``nil pointer evaluating *T.X``, and a nil
pointer is false in ``if``. The executor asks a value for these through ``go_field``,
``go_methods`` and ``go_nil`` (:mod:`reporters.gotemplate.evaluation`); this class answers
them for :class:`~reporters.notifications.reposhapes.Struct`, the values Argo CD's
``repo.GetCommitMetadata`` and ``repo.GetAppDetails`` return.
"""

from __future__ import annotations

from typing import Any

from orchestrator.golang.gotime import Time
from reporters.gotemplate.gotime import GoTime
from reporters.gotemplate.values import GoFunc, GoPanic, StrList
from reporters.notifications.reposhapes import Method, Strings, Struct, panicking


def template_value(value: Any) -> Any:
    """A struct field's value as the template engine holds it."""
    if isinstance(value, Struct):
        return GoStruct(value)
    if isinstance(value, Time):
        return GoTime(value.seconds, value.nanos, value.zone)
    if isinstance(value, Strings):
        return StrList(value)
    if isinstance(value, list):
        return [template_value(v) for v in value]
    return value


def _method(name: str, method: Method) -> GoFunc:
    return GoFunc(panicking(method, GoPanic), method.params, returns=method.result, name=name)


class GoStruct:
    """One :class:`Struct` seen by the executor."""

    __slots__ = ("shape",)

    def __init__(self, shape: Struct) -> None:
        self.shape = shape

    @property
    def go_type(self) -> str:
        return self.shape.go_type

    @property
    def go_kind(self) -> str:
        return "ptr" if self.shape.pointer else "struct"

    @property
    def go_nil(self) -> bool:
        return self.shape.nil

    def go_field(self, name: str) -> tuple[bool, Any]:
        if name not in self.shape.fields:
            return False, None
        return True, template_value(self.shape.fields[name])

    def go_deref(self) -> GoStruct:
        """The value a non-nil pointer points to (text/template prints that)."""
        shape = self.shape
        if not shape.pointer or shape.nil:
            return self
        return GoStruct(Struct(shape.name, shape.fields, shape.methods))

    def go_methods(self) -> dict[str, GoFunc]:
        return {name: _method(name, m) for name, m in self.shape.methods.items()}

    def __eq__(self, other: object) -> bool:
        return isinstance(other, GoStruct) and other.shape == self.shape

    def __hash__(self) -> int:
        return id(self.shape)

    def __str__(self) -> str:
        """``%v``: ``{f1 f2}`` (``&{...}`` for a pointer, ``<nil>`` for a nil one). Go
        prints a pointer inside a struct as its address, which has no meaning here: it
        is printed as ``&{...}`` too."""
        if self.shape.nil:
            return "<nil>"
        from reporters.gotemplate.gofmt import Spec, format_value

        parts = [format_value(template_value(v), Spec()) for v in self.shape.fields.values()]
        return ("&" if self.shape.pointer else "") + "{" + " ".join(parts) + "}"
