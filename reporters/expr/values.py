"""Go's values as a condition sees them, in Python.

expr runs on Go's ``any``: an Application decoded the way Kubernetes decodes JSON gives
``map[string]interface{}``, ``[]interface{}``, ``string``, ``bool``, ``int64`` and ``float64``;
expr's own literals are ``int`` and ``float64``; Argo CD's functions give ``time.Time`` and
``time.Duration``. The distinctions matter: ``int64 + int`` is an ``int``, ``-int64`` stays
``int64``, ``map[string]string`` (``context``) gives ``""`` for a missing key, ``%v`` prints a
float as ``1e+06``. Python's own types stand for the common ones (``None``, ``bool``,
``int`` for Go's ``int``, ``float``, ``str``, ``list`` for ``[]interface{}``, ``dict`` for
``map[string]interface{}``) and the small classes below for the rest.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from orchestrator.golang import jsonenc
from orchestrator.golang.durations import Duration
from orchestrator.golang.floats import format_float
from orchestrator.golang.fmt import Printer, Spec
from orchestrator.golang.gotime import Month, Time, Weekday


class Int64(int):
    """Go's ``int64``: the integers of a decoded Kubernetes object."""


class Uint8(int):
    """Go's ``uint8`` (``byte``): what indexing a string gives."""


class TypedList(list[Any]):
    """A slice of a concrete element type (``[]string`` from ``split``, ``[]int`` from a
    range): it prints, compares and converts as that type does in Go."""

    def __init__(self, items: Any = (), elem: str = "interface {}") -> None:
        super().__init__(items)
        self.elem = elem


class NilSlice(list[Any]):
    """A nil ``[]interface {}``: empty, but JSON ``null`` (``concat`` of empty slices)."""


class StringMap(dict[str, str]):
    """``map[string]string``, such as Argo CD's ``context``: a missing key gives ``""``."""


class AnyMap(dict[Any, Any]):
    """``map[interface {}]interface {}``, what ``fromPairs`` builds."""


class GroupMap(dict[Any, list[Any]]):
    """What ``groupBy`` builds: ``map[interface {}][]interface {}``."""


@dataclass(frozen=True)
class GoFunc:
    """A Go function value: expr calls it through reflection, so its parameter types decide
    what nil arguments become (the zero value) and which arguments are refused."""

    name: str
    params: tuple[str, ...]
    result: str
    fn: Callable[..., Any] = field(compare=False)
    variadic: bool = False


def go_type(value: Any) -> str:
    """``%T``."""
    match value:
        case None:
            return "<nil>"
        case bool():
            return "bool"
        case Int64():
            return "int64"
        case Uint8():
            return "uint8"
        case Duration():
            return "time.Duration"
        case Month():
            return "time.Month"
        case Weekday():
            return "time.Weekday"
        case int():
            return "int"
        case float():
            return "float64"
        case str():
            return "string"
        case Time():
            return "time.Time"
        case TypedList():
            return "[]" + value.elem
        case list():
            return "[]interface {}"
        case StringMap():
            return "map[string]string"
        case GroupMap():
            return "map[interface {}][]interface {}"
        case AnyMap():
            return "map[interface {}]interface {}"
        case dict():
            return "map[string]interface {}"
        case GoFunc():
            return f"func({', '.join(value.params)}) {value.result}".rstrip()
    named = getattr(value, "go_type", None)
    return named if isinstance(named, str) else "unknown"


def go_format(value: Any, top: bool = True) -> str:
    """``fmt.Sprintf("%v", value)``, as ``string()`` and Argo CD's ``oncePer`` use it."""
    return _PRINTER.format_value(value, Spec())


class Unmarshalable(ValueError):
    """encoding/json cannot write the value (a function, an infinite float, ...)."""


def to_json(value: Any) -> Any:
    """The value as ``json.Marshal`` would write it, as plain Python data (floats that Go
    writes as integers stay floats; they compare equal)."""
    match value:
        case None | bool() | str():
            return value
        case Duration() | Month() | Weekday() | int():
            return int(value)
        case float():
            if math.isnan(value) or math.isinf(value):
                raise Unmarshalable(f"json: unsupported value: {format_float(value)}")
            return value
        case Time():
            return value.format("2006-01-02T15:04:05.999999999Z07:00")
        case NilSlice():
            return None
        case list():
            return [to_json(item) for item in value]
        case GroupMap() | AnyMap():
            raise Unmarshalable(f"json: unsupported type: {go_type(value)}")
        case dict():
            return {str(k): to_json(v) for k, v in value.items()}
    raise Unmarshalable(f"json: unsupported type: {go_type(value)}")


def marshal(value: Any, indent: bool = False) -> str:
    """``json.Marshal`` (or ``MarshalIndent(v, "", "  ")``): sorted keys, HTML escaped."""
    return jsonenc.marshal(to_json(value), indent="  " if indent else None)


def decode_object(value: Any) -> Any:
    """JSON data as Kubernetes' unstructured decoder gives it: integers are ``int64``."""
    if isinstance(value, bool) or value is None or isinstance(value, str | float):
        return value
    if isinstance(value, int):
        return Int64(value) if -(2**63) <= value < 2**63 else float(value)
    if isinstance(value, Mapping):
        return {str(k): decode_object(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [decode_object(v) for v in value]
    raise TypeError(f"not JSON data: {type(value).__name__}")


_PRINTER = Printer(go_type, lambda value: isinstance(value, GoFunc))
