"""How every promoflow command presents itself: ``-h``, its usage line, its help text.

kubectl, argo and argocd users expect ``-h`` as well as ``--help`` everywhere, placeholders
in capitals (``promoflow status RUN``, ``--product PRODUCT``) and one look for every
command's help. typer leaves each app to ask for these and, left to itself, names
placeholders after the parameter in lower case and in braces (``{run}``, ``<str>``).
:class:`App` is a ``typer.Typer`` that gives every command and group it makes the classes
below, so a command added anywhere (``cli.py``, a subcommand group, the generated ``step``
commands) gets them without asking; ``tests/cli/test_cli_rules.py`` walks the whole tree
and fails for a command that escapes them.

The help text is a docstring: a first paragraph (the summary the command lists show, on
one line) and, after a blank line, the rest, which keeps its own indentation. typer
dedents that rest by the indentation of its second line, so an ``Examples:`` block right
after the summary lost its indentation while one after another paragraph kept it; the
text given to typer starts the rest with a blank line, which makes both keep it.
"""

from __future__ import annotations

import copy
import inspect
from collections.abc import Callable
from typing import Any

import typer
from typer.core import TyperArgument, TyperCommand, TyperGroup
from typer.models import CommandFunctionType

HELP_OPTIONS = {"help_option_names": ["-h", "--help"]}
"""``-h`` as well as ``--help``, as kubectl and argo take it."""


def placeholder(name: str) -> str:
    """``argo_server`` -> ``ARGO_SERVER``: what a parameter's value is called in the help."""
    return name.replace("-", "_").upper()


def conform_params(params: list[Any]) -> None:
    """Name every value placeholder in capitals, unless the command chose a name: an
    argument after itself, an option taking a value after its long flag (``--runs-dir``
    -> ``RUNS_DIR``). Flags take no value and keep none. An argument's type is not shown
    beside its name (typer would add ``<str>``, or ``{a|b}`` for a choice)."""
    for param in params:
        if isinstance(param, TyperArgument):
            param.type = _untagged(param.type)
        if param.metavar is not None or not param.name:
            continue
        if getattr(param, "is_flag", False) or getattr(param, "count", False):
            continue
        long = [opt for opt in param.opts if opt.startswith("--")]
        base = long[0][2:] if long and param.param_type_name == "option" else param.name
        param.metavar = placeholder(base)


_UNTAGGED: dict[type, type] = {}


def _untagged(kind: Any) -> Any:
    """The same parameter type (same conversion, same completion), naming no placeholder
    of its own: typer shows a type's placeholder beside an argument's name."""
    if type(kind) in _UNTAGGED.values():
        return kind
    cls = _UNTAGGED.get(type(kind))
    if cls is None:
        cls = type(f"Untagged{type(kind).__name__}", (type(kind),), {"get_metavar": _no_tag})
        _UNTAGGED[type(kind)] = cls
    quiet = copy.copy(kind)
    quiet.__class__ = cls
    return quiet


def _no_tag(self: Any, param: Any, ctx: Any = None) -> str:
    return ""


def split_help(text: str | None) -> tuple[str, str]:
    """The summary (first paragraph, on one line) and the rest of a help text."""
    cleaned = inspect.cleandoc(text or "")
    summary, _, rest = cleaned.partition("\n\n")
    return " ".join(summary.split()), rest.strip("\n")


def shaped_help(text: str | None) -> str | None:
    """The help text as given to typer: see the module docstring for the blank line."""
    if text is None:
        return None
    summary, rest = split_help(text)
    return f"{summary}\n\n\n{rest}" if rest else summary


def usage_pieces(command: Any, ctx: Any) -> list[str]:
    """click's usage pieces with arguments as ``RUN`` or ``[NODE]``, never ``{run}``."""
    pieces = [command.options_metavar] if command.options_metavar else []
    for param in command.get_params(ctx):
        if isinstance(param, TyperArgument):
            name = param.metavar or placeholder(param.name or "")
            name += "..." if param.nargs != 1 else ""
            pieces.append(name if param.required else f"[{name}]")
        else:
            pieces.extend(param.get_usage_pieces(ctx))
    return pieces


class Command(TyperCommand):
    """A command with promoflow's help: see the module docstring."""

    def __init__(self, name: str | None, **attrs: Any) -> None:
        attrs["help"] = shaped_help(attrs.get("help"))
        attrs["short_help"] = attrs.get("short_help") or split_help(attrs["help"])[0] or None
        super().__init__(name, **attrs)
        conform_params(self.params)

    def collect_usage_pieces(self, ctx: Any) -> list[str]:
        return usage_pieces(self, ctx)


class Group(TyperGroup):
    """A group of commands with promoflow's help: see the module docstring."""

    def __init__(self, **attrs: Any) -> None:
        attrs["help"] = shaped_help(attrs.get("help"))
        attrs["short_help"] = attrs.get("short_help") or split_help(attrs["help"])[0] or None
        super().__init__(**attrs)
        conform_params(self.params)

    def collect_usage_pieces(self, ctx: Any) -> list[str]:
        return [*usage_pieces(self, ctx), self.subcommand_metavar]


class App(typer.Typer):
    """``typer.Typer`` whose groups and commands are :class:`Group` and :class:`Command`,
    with ``-h``, unless a caller asks otherwise."""

    def __init__(self, **options: Any) -> None:
        options.setdefault("cls", Group)
        options.setdefault("context_settings", dict(HELP_OPTIONS))
        options.setdefault("pretty_exceptions_enable", False)
        super().__init__(**options)

    def command(
        self, *args: Any, **options: Any
    ) -> Callable[[CommandFunctionType], CommandFunctionType]:
        options.setdefault("cls", Command)
        return super().command(*args, **options)
