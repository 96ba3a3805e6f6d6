"""Jinja's immutable sandbox, with every value's size and every render bounded.

Jinja's sandbox keeps a template from reaching Python internals and, immutable, refuses
the methods that change lists, dicts and sets; it neither sizes what a call would make
nor stops a render that runs on. :class:`BoundedEnvironment` checks every operator,
method and filter that can grow a value before it runs (:mod:`.estimates`), counts each
loop iteration, call, filter and operator as a step of the render's budget
(:mod:`.limits`), and builds the output chunk by chunk up to its limit. Notification
templates and conditions, and commit messages, are rendered with it.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import AbstractContextManager
from functools import wraps
from typing import Any

from jinja2 import Template
from jinja2.compiler import CodeGenerator, Frame
from jinja2.nodes import Call, Concat, EnvironmentAttribute, For
from jinja2.sandbox import ImmutableSandboxedEnvironment

from orchestrator.sandbox.estimates import FILTER_BOUNDS, STR_BOUNDS, Bound, format_size
from orchestrator.sandbox.limits import LIMITS, Limits, budget, size_of, step


class BoundedEnvironment(ImmutableSandboxedEnvironment):
    """Jinja's immutable sandbox, with every value's size and every render bounded."""

    intercepted_binops = frozenset({"**", "*", "%", "+"})

    def __init__(self, *args: Any, limits: Limits = LIMITS, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.limits = limits
        self.code_generator_class = _Generator
        for name, func in list(self.filters.items()):
            self.filters[name] = self._bounded_filter(func, FILTER_BOUNDS.get(name))
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
                self.limits.check_length(size_of(seq) * max(count, 0), what)
        elif operator == "%" and isinstance(left, str):
            self.limits.check_length(format_size(left, right), what)
        elif operator == "+":
            self.limits.check_length(size_of(left) + size_of(right), what)
        return self.limits.check_value(super().call_binop(context, operator, left, right), what)

    def wrap_str_format(self, value: Any) -> Callable[..., str] | None:
        wrapped = super().wrap_str_format(value)
        if wrapped is None:
            return None
        text: str = value.__self__

        @wraps(wrapped)
        def bounded(*args: Any, **kwargs: Any) -> str:
            self.limits.check_length(format_size(text, *args, **kwargs), "format")
            return str(self.limits.check_value(wrapped(*args, **kwargs), "format"))

        return bounded

    def call(__self, __context: Any, __obj: Any, *args: Any, **kwargs: Any) -> Any:
        step()
        owner = getattr(__obj, "__self__", None)
        name = getattr(__obj, "__name__", "call")
        if isinstance(owner, str) and name in STR_BOUNDS:
            __self.limits.check_length(STR_BOUNDS[name](owner, *args, **kwargs), name)
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

    def _bounded_filter(self, func: Callable[..., Any], bound: Bound | None) -> Callable[..., Any]:
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
