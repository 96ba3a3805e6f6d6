"""Jinja2 sandboxes with limits, for every template and expression a user writes.

Jinja's sandbox keeps a template from reaching Python internals, but not from changing
the data it is given (``{{ context.update(...) }}`` in one notification changed the link
in every later one) nor from running forever: ``9**(9**10)`` is one multiplication too
long to ever finish, and nested loops over ``range(99999)`` never yield. Promoflow renders
notification templates and conditions on the reporter's single pipeline thread, and commit
messages in the promote step, so each render here is bounded:

- the data is read-only (:func:`freeze`) and the environment refuses the methods that
  change lists, dicts and sets (Jinja's :class:`ImmutableSandboxedEnvironment`);
- every operator, method and filter that can make a value much larger than its operands
  (``**``, ``*``, ``%``, ``~``, ``center``, ``join``, ``replace``, ``format`` ...) is
  checked *before* it runs, since a single C-level call cannot be interrupted: no value
  may exceed :attr:`Limits.max_length` characters or items, no integer
  :attr:`Limits.max_int_bits` bits;
- every loop iteration, call, filter and operator is a step, each bounded in
  size by the above; a render's steps are counted and the clock read at each, up to
  :attr:`Limits.max_steps` and :attr:`Limits.max_seconds`;
- the output is built chunk by chunk and refused beyond :attr:`Limits.max_length`.

What breaks a limit raises :class:`LimitError` (a Jinja ``SecurityError``) naming the
limit; callers name the template. The limits are in this one module so that every
template language promoflow accepts shares them: :class:`Limits` checks sizes,
:func:`budget` and :func:`step` count and time a render, :func:`freeze` makes its data
read-only, whatever engine renders.
"""

from __future__ import annotations

import math
import re
import sys
import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import AbstractContextManager, contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from functools import wraps
from typing import Any, NoReturn

from jinja2 import Template
from jinja2.compiler import CodeGenerator, Frame
from jinja2.exceptions import SecurityError
from jinja2.nodes import Call, Concat, EnvironmentAttribute, For
from jinja2.sandbox import ImmutableSandboxedEnvironment


@dataclass(frozen=True)
class Limits:
    """What one render may use. The defaults leave room for any message a chat, an issue
    tracker or a webhook receiver accepts (Slack: 40,000 characters) and for loops over
    every resource of a large app, while a runaway render is stopped within a second."""

    max_length: int = 262_144
    """Characters of the output, and characters or items of any value made on the way."""
    max_int_bits: int = 4_096
    """Bits of any integer computed (a 1,233-digit number)."""
    max_steps: int = 200_000
    """Steps of one render: loop iterations, calls, filters and operators."""
    max_seconds: float = 1.0
    """Wall time of one render."""

    def check_length(self, size: int, what: str) -> None:
        """Refuse to make ``what`` if it would be ``size`` characters or items long."""
        if size >= UNBOUNDED:
            raise LimitError(f"{what} would be longer than the limit of {self.max_length:,}")
        if size > self.max_length:
            raise LimitError(
                f"{what} would be {size:,} long, over the limit of {self.max_length:,}"
            )

    def check_bits(self, bits: int, what: str) -> None:
        if bits > self.max_int_bits:
            raise LimitError(f"{what} makes a number over {self.max_int_bits:,} bits")

    def check_value(self, value: Any, what: str) -> Any:
        """``value``, made by ``what``, if it is within the limits."""
        if isinstance(value, int):
            self.check_bits(value.bit_length(), what)
        else:
            self.check_length(_size(value), what)
        return value


LIMITS = Limits()


UNBOUNDED = sys.maxsize
"""What a size estimate says of a result it cannot bound."""
MAX_INDENT = 16
"""The widest indent ``tojson`` takes."""


class LimitError(SecurityError):
    """A render refused or stopped: it would have gone past one of its :class:`Limits`."""


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


def _size(value: Any) -> int:
    return len(value) if isinstance(value, str | bytes | list | tuple | dict | set) else 0


def _text_size(value: Any) -> int:
    """At most how long ``value`` prints, for the sizes checked before a call."""
    if isinstance(value, str):
        return len(value)
    if isinstance(value, int):
        return value.bit_length() // 3 + 2
    if isinstance(value, float):
        return 24
    return _size(value)


_NUMBER = re.compile(r"\d+")
_NESTED = re.compile(r"\{[^{}]*\{")


def _format_size(text: str, *args: Any, **kwargs: Any) -> int:
    """At most what ``text % args`` or ``text.format(*args)`` prints: every field the
    longest argument, padded to the widest number in the format or among the arguments
    (``%*d``)."""
    flat: list[Any] = []
    for value in [*args, *kwargs.values()]:
        if isinstance(value, tuple | list):
            flat += value
        elif isinstance(value, Mapping):
            flat += value.values()
        else:
            flat.append(value)
    numbers = _NUMBER.findall(text)
    if any(len(n) > 9 for n in numbers):
        return UNBOUNDED
    widths = [int(n) for n in numbers]
    if "*" in text or _NESTED.search(text):  # widths taken from the arguments
        widths += [abs(v) for v in flat if isinstance(v, int)]
    width = max(widths, default=0)
    longest = max((_text_size(v) for v in flat), default=0)
    fields = text.count("%") + text.count("{")
    return len(text) + fields * (longest + width)


class BoundedEnvironment(ImmutableSandboxedEnvironment):
    """Jinja's immutable sandbox, with every value's size and every render bounded."""

    intercepted_binops = frozenset({"**", "*", "%", "+"})

    def __init__(self, *args: Any, limits: Limits = LIMITS, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.limits = limits
        self.code_generator_class = _Generator
        for name, func in list(self.filters.items()):
            self.filters[name] = self._bounded_filter(func, _FILTER_BOUNDS.get(name))
        del self.globals["lipsum"]  # paragraphs of filler, as many as asked: no use here

    # -- sizes ------------------------------------------------------------------------

    def call_binop(self, context: Any, operator: str, left: Any, right: Any) -> Any:
        """Each operator that can grow a value, checked before it runs: its result is
        computed in one C call that nothing can interrupt."""
        step()
        what = f"{operator!r}"
        ints = isinstance(left, int) and isinstance(right, int)
        if operator == "**" and ints and right > 0 and abs(left) > 1:
            self.limits.check_bits(int(right * math.log2(abs(left))) + 1, what)
        elif operator == "*" and ints:
            self.limits.check_bits(left.bit_length() + right.bit_length(), what)
        elif operator == "*":
            count, seq = (right, left) if isinstance(right, int) else (left, right)
            if isinstance(count, int):
                self.limits.check_length(_size(seq) * max(count, 0), what)
        elif operator == "%" and isinstance(left, str):
            self.limits.check_length(_format_size(left, right), what)
        elif operator == "+":
            self.limits.check_length(_size(left) + _size(right), what)
        return self.limits.check_value(super().call_binop(context, operator, left, right), what)

    def wrap_str_format(self, value: Any) -> Callable[..., str] | None:
        wrapped = super().wrap_str_format(value)
        if wrapped is None:
            return None
        text: str = value.__self__

        @wraps(wrapped)
        def bounded(*args: Any, **kwargs: Any) -> str:
            self.limits.check_length(_format_size(text, *args, **kwargs), "format")
            return str(self.limits.check_value(wrapped(*args, **kwargs), "format"))

        return bounded

    def call(__self, __context: Any, __obj: Any, *args: Any, **kwargs: Any) -> Any:
        step()
        owner = getattr(__obj, "__self__", None)
        name = getattr(__obj, "__name__", "call")
        if isinstance(owner, str) and name in _STR_BOUNDS:
            __self.limits.check_length(_STR_BOUNDS[name](owner, *args, **kwargs), name)
        elif isinstance(owner, int) and name == "to_bytes":
            __self.limits.check_length(int(args[0]) if args else int(kwargs.get("length", 1)), name)
        return __self.limits.check_value(super().call(__context, __obj, *args, **kwargs), name)

    def concat(self, parts: Iterable[Any]) -> str:
        """``a ~ b``: the joined length checked as it grows."""
        out: list[str] = []
        size = 0
        for part in parts:
            step()
            text = str(part)
            size += len(text)
            self.limits.check_length(size, "'~'")
            out.append(text)
        return "".join(out)

    def _bounded_filter(self, func: Callable[..., Any], bound: _Bound | None) -> Callable[..., Any]:
        """``func`` counted as a step; with ``bound``, refused before it runs if its
        result would be too long; its result checked after."""
        passes = getattr(func, "jinja_pass_arg", None)
        name = getattr(func, "__name__", "filter").removeprefix("do_").removeprefix("sync_do_")

        @wraps(func)
        def bounded(*args: Any, **kwargs: Any) -> Any:
            step()
            if bound is not None:
                own = args[1:] if passes is not None else args
                self.limits.check_length(bound(*own, **kwargs), name)
            return self.limits.check_value(func(*args, **kwargs), name)

        return bounded

    # -- rendering --------------------------------------------------------------------

    def render(self, template: Template, context: Mapping[str, Any]) -> str:
        """``template`` rendered with ``context``, within the limits."""
        out: list[str] = []
        size = 0
        limit = self.limits.max_length
        with self.bounded():
            try:  # as Template.render does, with the output's length checked as it grows
                for chunk in template.root_render_func(template.new_context(dict(context))):
                    size += len(chunk)
                    if size > limit:
                        self.limits.check_length(size, "the output")
                    out.append(chunk)
            except Exception:
                self.handle_exception()
        return "".join(out)

    def bounded(self) -> AbstractContextManager[None]:
        return budget(self.limits)

    def counted(self, iterable: Iterable[Any]) -> Iterator[Any]:
        """What a ``{% for %}`` loop iterates, one step per item."""
        for item in iterable:
            step()
            yield item


class _Budget:
    """The steps and time left to one render."""

    def __init__(self, limits: Limits) -> None:
        self.steps = 0
        self.max_steps = limits.max_steps
        self.seconds = limits.max_seconds
        self.deadline = time.monotonic() + limits.max_seconds

    def stop(self) -> NoReturn:
        if self.steps > self.max_steps:
            raise LimitError(f"stopped after {self.max_steps:,} steps")
        raise LimitError(f"stopped after {self.seconds:g} s")


_BUDGET: ContextVar[_Budget | None] = ContextVar("template_budget", default=None)
"""The budget of the render running in this context, if any (compiling a template
folds constants through the same filters, outside any render)."""


@contextmanager
def budget(limits: Limits = LIMITS) -> Iterator[None]:
    """Count and time the steps run in this context (this thread) until the block ends:
    any template engine calls :func:`step` at each unit of its work inside."""
    token = _BUDGET.set(_Budget(limits))
    try:
        yield
    finally:
        _BUDGET.reset(token)


def step() -> None:
    """One unit of a render's work: a loop's iteration, a call (of a macro too), a filter,
    an operator. Each is bounded in size, so counting them and reading the clock at each
    bounds the whole render (a filter's own loop over a bounded list, looking up an
    attribute of each item, is one step)."""
    current = _BUDGET.get()
    if current is not None:
        current.steps += 1
        if current.steps > current.max_steps or time.monotonic() > current.deadline:
            current.stop()


class _Generator(CodeGenerator):
    """Jinja's code generator, with ``~`` through :meth:`BoundedEnvironment.concat` and
    every loop through :meth:`BoundedEnvironment.counted`."""

    def visit_For(self, node: For, frame: Frame) -> None:
        counted = Call(EnvironmentAttribute("counted"), [node.iter], [], None, None)
        loop = For(node.target, counted, node.body, node.else_, node.test, node.recursive)
        loop.set_lineno(node.lineno)
        super().visit_For(loop, frame)

    def visit_Concat(self, node: Concat, frame: Frame) -> None:
        if frame.eval_ctx.volatile or frame.eval_ctx.autoescape:
            super().visit_Concat(node, frame)
            return
        self.write("environment.concat((")
        for arg in node.nodes:
            self.visit(arg, frame)
            self.write(", ")
        self.write("))")


_Bound = Callable[..., int]


def _int(value: Any, default: int = 0) -> int:
    try:
        return abs(int(value))
    except (TypeError, ValueError, OverflowError):
        return default


def _replace_size(s: Any, old: Any = "", new: Any = "", count: Any = None, *_: Any) -> int:
    text, old, new = str(s), str(old), str(new)
    times = text.count(old) if old else len(text) + 1
    if count is not None and _int(count, -1) >= 0:
        times = min(times, _int(count))
    return len(text) + times * max(len(new) - len(old), 0)


def _join_size(sep: Any, items: Any, *_: Any, **__: Any) -> int:
    if not isinstance(items, Mapping | str | list | tuple | range | set | frozenset):
        return 0  # a generator: the result is checked once made
    separators = len(str(sep)) * max(len(items) - 1, 0)
    if separators > LIMITS.max_length:
        return separators
    return separators + sum(map(len, map(str, items)))  # no Python call per item


def _padded(s: Any, width: Any = 0, *_: Any, **__: Any) -> int:
    return max(_text_size(s), _int(width))


def _expandtabs(s: str, tabsize: Any = 8) -> int:
    return len(s) + s.count("\t") * _int(tabsize)


def _translate(s: str, table: Any = None) -> int:
    if isinstance(table, Mapping):
        longest = max((_text_size(v) for v in table.values()), default=1)
        return len(s) * max(longest, 1)
    return len(s)


def _indent(s: Any, width: Any = 4, *_: Any, **__: Any) -> int:
    text = str(s)
    pad = len(width) if isinstance(width, str) else _int(width)
    return len(text) + (text.count("\n") + 1) * pad


def _wordwrap(s: Any, width: Any = 79, _long: Any = True, wrapstring: Any = None,
              *_: Any, **kwargs: Any) -> int:  # fmt: skip
    wrap = kwargs.get("wrapstring", wrapstring)
    return len(str(s)) * (1 + len(str(wrap) if wrap is not None else "\n"))


def _format(s: Any, *args: Any, **kwargs: Any) -> int:
    return _format_size(str(s), *args, **kwargs)


def _batch(value: Any, linecount: Any = 1, *_: Any, **__: Any) -> int:
    return max(_size(value), _int(linecount))


def _truncate(s: Any, length: Any = 255, _kill: Any = False, end: Any = "...",
              *_: Any, **kwargs: Any) -> int:  # fmt: skip
    return len(str(s)) + len(str(kwargs.get("end", end)))


def _tojson(value: Any, indent: Any = None) -> int:
    """Indented JSON grows with the indent times the depth of every line: a small one
    only (Go's and Python's pretty printers use 2 or 4)."""
    return UNBOUNDED if indent is not None and _int(indent) > MAX_INDENT else 0


_STR_BOUNDS: dict[str, _Bound] = {
    "center": _padded,
    "ljust": _padded,
    "rjust": _padded,
    "zfill": _padded,
    "expandtabs": _expandtabs,
    "replace": lambda s, *a, **k: _replace_size(s, *a, **k),
    "join": _join_size,
    "translate": _translate,
}
"""str methods whose result can be much longer than the string, and that length."""

_FILTER_BOUNDS: dict[str, _Bound] = {
    "center": _padded,
    "indent": _indent,
    "wordwrap": _wordwrap,
    "format": _format,
    "join": lambda value, d="", *_, **k: _join_size(k.get("d", d), value),
    "replace": _replace_size,
    "batch": _batch,
    "slice": _batch,
    "tojson": _tojson,
    "truncate": _truncate,
}
"""Jinja's filters whose result can be much longer than their input, and that length."""
