"""Calling Go function values as expr does, through reflection (``OpCall``): a nil argument
becomes the parameter type's zero value (``time.Parse(nil)`` parses ``""``), any other
argument must be of the parameter's type exactly, and the count must match, each refusal in
reflect's words. Argo CD's ``time.Parse`` and the methods of times and durations are such
values (:class:`GoFunc`); a plain Python callable in the environment is called as it is.
"""

from __future__ import annotations

from typing import Any

from orchestrator.golang.durations import Duration
from reporters.expr.builtin_base import Unsupported
from reporters.expr.methods import ZERO_TIME
from reporters.expr.operators import GoPanic
from reporters.expr.values import GoFunc, go_type

ZERO = {"string": "", "int": 0, "int64": 0, "float64": 0.0, "bool": False,
         "time.Time": ZERO_TIME, "time.Duration": Duration(0)}  # fmt: skip


def call(fn: Any, args: list[Any]) -> Any:
    """OpCall: a Go function value called through reflection, or a Python callable."""
    if fn is None:
        raise GoPanic("invalid operation: cannot call nil")
    if isinstance(fn, GoFunc):
        return call_go(fn, args)
    if callable(fn) and not isinstance(fn, type):
        return fn(*args)
    raise GoPanic(f"invalid operation: cannot call non-function of type {go_type(fn)}")


def call_go(fn: GoFunc, args: list[Any]) -> Any:
    """reflect.Value.Call: nil becomes the parameter's zero value, other arguments must be
    of the parameter's type exactly (an interface parameter takes anything)."""
    params = list(fn.params)
    if fn.variadic:
        fixed = params[:-1]
        if len(args) < len(fixed):
            raise GoPanic("reflect: Call with too few input arguments")
        params = fixed + [params[-1]] * (len(args) - len(fixed))
    elif len(args) < len(params):
        raise GoPanic("reflect: Call with too few input arguments")
    elif len(args) > len(params):
        raise GoPanic("reflect: Call with too many input arguments")
    values = []
    for arg, param in zip(args, params, strict=True):
        if arg is None:
            if param not in ZERO and param != "interface {}":
                raise Unsupported(
                    f"calling {fn.name} with nil for a {param}", "default the argument with ??"
                )
            values.append(ZERO.get(param))
        elif param == "interface {}" or go_type(arg) == param:
            values.append(arg)
        else:
            raise GoPanic(f"reflect: Call using {go_type(arg)} as type {param}")
    return fn.fn(*values)


# -- builtins ------------------------------------------------------------------------------
