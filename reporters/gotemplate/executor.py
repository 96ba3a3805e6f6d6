"""Executing a parsed template over data, as Go's text/template/exec.go does.

Mirrored by hand, walk for walk, because what a notification says depends on details no
Python template engine shares: a missing key prints ``<no value>``, a field read through a
JSON null is an error, variables are scoped to the end of their block, arguments are
type-checked (``wrong type for value; expected int; got int64``) and every error names the
node it stopped at. Unlike Go, execution is bounded: :class:`Limits` caps the steps, the
output and the depth of template calls, so no template can hang or flood a reporter.
"""

from __future__ import annotations

from typing import Any

from reporters.gotemplate.calls import Calls, prepare_arg
from reporters.gotemplate.errors import TemplateExecError, TemplateLimitError
from reporters.gotemplate.gofmt import Spec, format_value
from reporters.gotemplate.nodes import (
    ActionNode,
    BranchNode,
    BreakNode,
    CommentNode,
    ContinueNode,
    IfNode,
    ListNode,
    Node,
    RangeNode,
    TemplateNode,
    TextNode,
    WithNode,
)
from reporters.gotemplate.reflection import INVALID, Boxed, is_true, unbox
from reporters.gotemplate.state import (
    MISSING,
    BreakLoop,
    ContinueLoop,
    ExecFailure,
    Limits,
    as_gofunc,
)
from reporters.gotemplate.values import (
    GoFunc,
    GoInt,
    IntList,
    StrList,
    StrMap,
)

__all__ = ["MISSING", "Executor", "Limits", "as_gofunc", "prepare_arg"]


class Executor(Calls):
    """One execution of one template over one datum."""

    def execute(self, data: Any) -> str:
        root = self.trees.get(self.tmpl_name)
        if root is None:
            raise TemplateExecError(
                f'template: {self.tmpl_name}: "{self.tmpl_name}" is an incomplete or empty template'
            )
        if data is None:
            data = INVALID
        self.vars = [["$", data]]
        try:
            self.walk(data, root)
        except ExecFailure as fail:
            raise fail.error from None
        except RecursionError:
            raise TemplateLimitError(
                f"template: {self.parse_name}: nested too deeply to execute",
                hint="simplify the template's nesting",
            ) from None
        return "".join(self.out)

    def walk(self, dot: Any, node: Node) -> None:
        self.step()
        self.at(node)
        if isinstance(node, ActionNode):
            val = self.eval_pipeline(dot, node.pipe)
            if not node.pipe.decl:
                self.print_value(node, val)
        elif isinstance(node, TextNode):
            self.write(node.text)
        elif isinstance(node, ListNode):
            for n in node.nodes:
                self.walk(dot, n)
        elif isinstance(node, IfNode | WithNode):
            self.walk_if_or_with(isinstance(node, WithNode), dot, node)
        elif isinstance(node, RangeNode):
            self.walk_range(dot, node)
        elif isinstance(node, TemplateNode):
            self.walk_template(dot, node)
        elif isinstance(node, BreakNode):
            raise BreakLoop
        elif isinstance(node, ContinueNode):
            raise ContinueLoop
        elif isinstance(node, CommentNode):
            pass
        else:  # pragma: no cover
            self.errorf(f"unknown node: {node}")

    def walk_if_or_with(self, is_with: bool, dot: Any, node: BranchNode) -> None:
        mark = self.mark()
        try:
            val = self.eval_pipeline(dot, node.pipe)
            if is_true(val):
                self.walk(val if is_with else dot, node.list)
            elif node.else_list is not None:
                self.walk(dot, node.else_list)
        finally:
            self.pop(mark)

    def walk_range(self, dot: Any, r: RangeNode) -> None:
        self.at(r)
        outer = self.mark()
        try:
            val = unbox(self.eval_pipeline(dot, r.pipe))
            mark = self.mark()
            decl = r.pipe.decl

            def one(index: Any, elem: Any) -> bool:
                self.step()
                if decl:
                    if r.pipe.is_assign:
                        if len(decl) > 1:
                            self.set_var(decl[0].ident[0], index)
                        else:
                            self.set_var(decl[0].ident[0], elem)
                    else:
                        self.set_top_var(1, elem)
                if len(decl) > 1:
                    if r.pipe.is_assign:
                        self.set_var(decl[1].ident[0], elem)
                    else:
                        self.set_top_var(2, index)
                try:
                    self.walk(elem, r.list)
                except ContinueLoop:
                    pass
                finally:
                    self.pop(mark)
                return True

            ran = False
            try:
                if isinstance(val, bool) or val is None:
                    if val is not None:
                        self.errorf(f"range can't iterate over {format_value(val, Spec())}")
                elif isinstance(val, int):
                    if len(decl) > 1:
                        self.errorf(f"can't use {val} to iterate over more than one variable")
                    for i in range(int(val)):
                        ran = one(INVALID, type(val)(i))
                elif isinstance(val, list | bytes):
                    boxed = not isinstance(val, StrList | IntList | bytes)
                    for i, elem in enumerate(val):
                        ran = one(GoInt(i), Boxed(elem) if boxed else elem)
                elif isinstance(val, dict):
                    boxed = not isinstance(val, StrMap)
                    for key in sorted(val):
                        ran = one(key, Boxed(val[key]) if boxed else val[key])
                elif val is INVALID:
                    pass
                else:
                    self.errorf(f"range can't iterate over {format_value(val, Spec())}")
            except BreakLoop:
                return
            if not ran and r.else_list is not None:
                self.walk(dot, r.else_list)
        finally:
            self.pop(outer)

    def walk_template(self, dot: Any, t: TemplateNode) -> None:
        self.at(t)
        root = self.trees.get(t.name)
        if root is None:
            self.errorf(f'template "{t.name}" not defined')
        if self.depth >= self.limits.max_depth:
            raise ExecFailure(
                TemplateLimitError(
                    f"template: {self.parse_name}: exceeded maximum template depth "
                    f"({self.limits.max_depth})",
                    hint="a template calls itself without end",
                )
            )
        new_dot = self.eval_pipeline(dot, t.pipe)
        saved = (self.vars, self.tmpl_name)
        self.vars = [["$", new_dot]]
        self.tmpl_name = t.name
        self.depth += 1
        try:
            assert root is not None
            self.walk(new_dot, root)
        finally:
            self.vars, self.tmpl_name = saved
            self.depth -= 1

    # -- evaluating -----------------------------------------------------------------------------

    def print_value(self, n: Node, v: Any) -> None:
        self.at(n)
        v = unbox(v)
        if v is INVALID:
            self.write("<no value>")
            return
        if isinstance(v, GoFunc) or (callable(v) and not hasattr(v, "go_string")):
            typ = v.go_type if isinstance(v, GoFunc) else "func"
            self.errorf(f"can't print {n} of type {typ}")
        deref = getattr(v, "go_deref", None)  # printableValue: a pointer prints as its value
        self.write(format_value(deref() if callable(deref) else v, Spec()))
