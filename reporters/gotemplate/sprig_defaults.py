"""sprig's defaults, flow control and reflection (defaults.go, reflect.go, v3.3.0).

``default``, ``empty``, ``coalesce``, ``ternary``, ``all``, ``any``, ``fail``, and the type
questions (``typeOf`` prints Go's ``%T``, ``kindOf`` reflect's kind), which a template uses
to branch on what Argo CD sent.
"""

from __future__ import annotations

from typing import Any

from reporters.gotemplate.sprig_convert import ANY, empty
from reporters.gotemplate.sprig_lists import deep_equal
from reporters.gotemplate.values import GoError, GoFunc, go_kind, go_type


def _default(d: Any, *given: Any) -> Any:
    if not given or empty(given[0]):
        return d
    return given[0]


def _coalesce(*v: Any) -> Any:
    return next((x for x in v if not empty(x)), None)


def _fail(msg: str) -> str:
    raise GoError(msg)


def _type_of(v: Any) -> str:
    return go_type(v)


def _kind_of(v: Any) -> str:
    return go_kind(v)


FUNCS: dict[str, GoFunc] = {
    "default": GoFunc(_default, (ANY, ANY), variadic=True, returns=ANY),
    "empty": GoFunc(empty, (ANY,), returns="bool"),
    "coalesce": GoFunc(_coalesce, (ANY,), variadic=True, returns=ANY),
    "all": GoFunc(lambda *v: all(not empty(x) for x in v), (ANY,), variadic=True, returns="bool"),
    "any": GoFunc(lambda *v: any(not empty(x) for x in v), (ANY,), variadic=True, returns="bool"),
    "ternary": GoFunc(lambda t, f, c: t if c else f, (ANY, ANY, "bool"), returns=ANY),
    "fail": GoFunc(_fail, ("string",), returns="string"),
    "typeOf": GoFunc(_type_of, (ANY,), returns="string"),
    "typeIs": GoFunc(lambda t, v: t == _type_of(v), ("string", ANY), returns="bool"),
    "typeIsLike": GoFunc(lambda t, v: _type_of(v) in (t, "*" + t), ("string", ANY), returns="bool"),
    "kindOf": GoFunc(_kind_of, (ANY,), returns="string"),
    "kindIs": GoFunc(lambda t, v: t == _kind_of(v), ("string", ANY), returns="bool"),
    "deepEqual": GoFunc(deep_equal, (ANY, ANY), returns="bool"),
}
