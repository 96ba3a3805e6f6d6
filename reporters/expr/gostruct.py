"""A Go struct (or pointer to one) as expr's ``runtime.Fetch`` reads it.

``repo.GetCommitMetadata(sha)`` and ``repo.GetAppDetails()`` return ``any`` holding a Go
struct, so a condition reads it through reflection at run time: a method by name first
(``Helm.GetParameterValueByName``), then an exported field; anything else is ``cannot
fetch X from T``, and so is a field read through a nil pointer (expr does not dereference
a nil one). A method called through a nil pointer panics as Go does.
"""

from __future__ import annotations

from typing import Any

from reporters.expr.operators import GoPanic
from reporters.expr.values import GoFunc, TypedList, go_format
from reporters.notifications.reposhapes import Method, Strings, Struct, panicking


def expr_value(value: Any) -> Any:
    """A struct field's value as expr holds it (times are already expr's)."""
    if isinstance(value, Struct):
        return ExprStruct(value)
    if isinstance(value, Strings):
        return TypedList(value, "string")
    if isinstance(value, list):
        return [expr_value(v) for v in value]
    return value


def _method(name: str, method: Method) -> GoFunc:
    return GoFunc(name, method.params, method.result, panicking(method, GoPanic))


class ExprStruct:
    """One :class:`Struct` seen by expr's evaluator."""

    __slots__ = ("shape",)

    def __init__(self, shape: Struct) -> None:
        self.shape = shape

    @property
    def go_type(self) -> str:
        return self.shape.go_type

    @property
    def go_nil(self) -> bool:
        return self.shape.nil

    def expr_fetch(self, key: Any) -> Any:
        """``runtime.Fetch(struct, key)``."""
        if type(key) is str:
            method = self.shape.methods.get(key)
            if method is not None:
                return _method(key, method)
            if not self.shape.nil and key in self.shape.fields:
                return expr_value(self.shape.fields[key])
        raise GoPanic(f"cannot fetch {go_format(key)} from {self.go_type}")

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ExprStruct) and other.shape == self.shape

    def __hash__(self) -> int:
        return id(self.shape)
