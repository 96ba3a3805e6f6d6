"""Rules every command of ``promoflow`` keeps, as argo, argocd and kubectl users expect them:
``-h`` is ``--help``; placeholders are in capitals (``RUN``, ``--product PRODUCT``), never
``{run}`` or ``{a|b}``; an unknown option is a usage error (exit 2, one ``error:`` line, no
traceback); every command says what it is for.

The command tree is walked, not listed: a command added anywhere (``cli.py``, a subcommand
group, a step spec, a concurrent change) is held to the rules without touching this file.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Annotated, Any

import pytest
import typer

from tests.unit.invoke import invoke

CAPITALS = re.compile(r"^\[?[A-Z][A-Z0-9_]*(\.\.\.)?\]?$")
"""A placeholder in a usage line: ``RUN``, ``[NODE]``, ``FILES...``."""
FIXED = {"[OPTIONS]", "COMMAND", "[ARGS]..."}
TYPE_TAG = re.compile(
    r"<(str|int|float|bool|path|text|integer|boolean|choice|file|filename|uuid|datetime)\b"
    r"[^>]*>|\{[a-z_-]+(\|[a-z_-]+)+\}"
)
"""What typer shows beside a placeholder unless told otherwise: ``<str>``, ``{a|b}``."""


def walk(command: Any, path: str) -> Iterator[tuple[str, Any]]:
    yield path, command
    for name, sub in sorted((getattr(command, "commands", None) or {}).items()):
        yield from walk(sub, f"{path} {name}")


def tree() -> dict[str, Any]:
    from orchestrator.cli import app

    return dict(walk(typer.main.get_command(app), "promoflow"))


COMMANDS = tree()


def usage_problems(path: str, usage: str) -> list[str]:
    """What is wrong with a usage line (``Usage: promoflow status [OPTIONS] RUN``)."""
    words = usage.split()
    if words[:1] != ["Usage:"] or " ".join(words[1:]).split(" [OPTIONS]")[0] != path:
        return [f"{path}: usage line is {usage!r}"]
    placeholders = words[1 + len(path.split()) :]
    return [
        f"{path}: placeholder {word!r} in the usage line is not in capitals"
        for word in placeholders
        if word not in FIXED and not CAPITALS.match(word)
    ]


def option_problems(path: str, command: Any) -> list[str]:
    """Options whose value placeholder is not in capitals (``<str>``, ``{a|b}``)."""
    ctx = command.make_context(path.split()[-1], ["--help"], resilient_parsing=True)
    problems = []
    for param in command.params:
        if param.param_type_name != "option" or param.is_flag or param.hidden:
            continue
        metavar = param.make_metavar(ctx)
        if not CAPITALS.match(metavar):
            problems.append(f"{path} {param.opts[0]}: placeholder {metavar!r}")
    return problems


def rendered_help(command: Any, ctx: Any) -> str:
    """The help as printed: typer's rich help is printed, not returned."""
    import contextlib
    import io

    shown = io.StringIO()
    with contextlib.redirect_stdout(shown):
        command.get_help(ctx)
    return shown.getvalue()


def usage_line(text: str) -> str:
    return next(line.strip() for line in text.splitlines() if line.strip().startswith("Usage:"))


def argv(path: str) -> list[str]:
    return path.split()[1:]


def test_the_walk_reaches_every_level() -> None:
    assert {
        "promoflow",
        "promoflow status",
        "promoflow version",
        "promoflow logs",
        "promoflow step promote",
        "promoflow plugin serve",
        "promoflow reporter check",
    } <= set(COMMANDS)


@pytest.mark.parametrize("path", sorted(COMMANDS))
def test_h_is_help(path: str) -> None:
    short, long = invoke(*argv(path), "-h"), invoke(*argv(path), "--help")
    assert (short.code, long.code) == (0, 0), short.output + long.output
    assert short.stdout == long.stdout
    assert "Show this message and exit." in short.stdout
    assert short.stderr == ""


@pytest.mark.parametrize("path", sorted(COMMANDS))
def test_placeholders_are_capitals(path: str) -> None:
    text = invoke(*argv(path), "--help").stdout
    assert usage_problems(path, usage_line(text)) == []
    assert "{" not in usage_line(text)
    assert option_problems(path, COMMANDS[path]) == []
    tags = [m.group(0) for m in TYPE_TAG.finditer(text)]
    assert tags == [], f"{path}: a type in lower case beside a placeholder"


@pytest.mark.parametrize("path", sorted(COMMANDS))
def test_an_unknown_option_is_a_usage_error(path: str) -> None:
    result = invoke(*argv(path), "--no-such-option")
    assert result.code == 2, result.output
    assert "Traceback" not in result.output
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert lines[0] == usage_line(invoke(*argv(path), "--help").stdout)
    [message] = lines[1:]
    assert message.startswith("error: No such option: --no-such-option")
    assert message.endswith(f"(see '{path} --help')")


@pytest.mark.parametrize("path", sorted(COMMANDS))
def test_every_command_says_what_it_is_for(path: str) -> None:
    command = COMMANDS[path]
    assert (command.help or "").strip(), f"{path} has no help text"
    assert (command.get_short_help_str(limit=1000) or "").strip()
    assert "\n" not in command.get_short_help_str(limit=1000)


def test_the_rules_catch_a_command_made_without_them() -> None:
    """A plain typer command (not made by ``helpstyle.App``) shows ``{run}`` and ``<str>``:
    the checks above must refuse it, or they would pass whatever the tree holds."""
    plain = typer.Typer()

    @plain.command()
    def status(
        run: Annotated[str, typer.Argument(help="A run.")],
        product: Annotated[str, typer.Option("--product", help="A product.")] = "",
    ) -> None:
        """Show a run."""

    @plain.command()
    def other() -> None:
        """Another, so that ``status`` is a subcommand."""

    command = typer.main.get_command(plain).commands["status"]  # type: ignore[attr-defined]
    ctx = command.make_context("status", ["x"])
    usage = " ".join(command.get_usage(ctx).split()).replace("Usage: status", "Usage: x status")
    assert usage_problems("x status", usage) == [
        "x status: placeholder '{run}' in the usage line is not in capitals"
    ]
    assert option_problems("x status", command) == ["x status --product: placeholder '<str>'"]
    assert TYPE_TAG.search(rendered_help(command, ctx))


def test_the_same_command_made_by_app_keeps_them() -> None:
    from orchestrator.commands.helpstyle import App

    app = App()

    @app.command()
    def status(
        run: Annotated[str, typer.Argument(help="A run.")],
        node: Annotated[str | None, typer.Argument(help="A node.")] = None,
        product: Annotated[str, typer.Option("--product", help="A product.")] = "",
    ) -> None:
        """Show a run.

        Examples:
          $ x status RUN
        """

    @app.command()
    def other() -> None:
        """Another, so that ``status`` is a subcommand."""

    command = typer.main.get_command(app).commands["status"]  # type: ignore[attr-defined]
    ctx = command.make_context("status", ["x"])
    assert " ".join(command.get_usage(ctx).split()) == "Usage: status [OPTIONS] RUN [NODE]"
    assert option_problems("x status", command) == []
    helped = command.make_context("status", ["x"])
    text = rendered_help(command, helped)
    assert [m.group(0) for m in TYPE_TAG.finditer(text)] == []
    assert "RUN" in text and "--product" in text
    assert command.help == "Show a run.\n\n\nExamples:\n  $ x status RUN"


@pytest.mark.parametrize(
    "path", sorted(p for p in COMMANDS if p.startswith(("promoflow step", "promoflow plugin")))
)
def test_the_fast_paths_of_the_console_script_show_the_same_help(path: str) -> None:
    """``promoflow step`` and ``promoflow plugin`` skip the root app (``entry.py``): their
    help, ``-h`` included, is the one the whole tree shows."""
    import contextlib
    import io

    from orchestrator.commands.invoke import run
    from orchestrator.commands.plugin import plugin_app
    from orchestrator.commands.step import step_app

    group = path.split()[1]
    app = step_app if group == "step" else plugin_app
    shown = io.StringIO()
    with contextlib.redirect_stdout(shown):
        code = run(app, [*path.split()[2:], "-h"], f"promoflow {group}")
    assert code == 0
    assert usage_line(shown.getvalue()) == usage_line(invoke(*argv(path), "-h").stdout)
