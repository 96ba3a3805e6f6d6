"""``promoflow step ...``: the programs the workflow's containers run, one per step kind.

The commands and their options are generated from the step registry
(``orchestrator/steps/specs``): each declared input becomes an option with its flag, type,
default and help, and the command calls the step's ``run``. So the CLI cannot drift from
the templates that call it, and a new step needs no edit here.

Each step takes the resolved form the compiler writes into the workflow (every value as a
flag); ``promote`` also takes ``--config PATH --product P`` to resolve the same request
locally. Results go to stdout as one JSON line and, with ``--outputs DIR``, to one file per
Argo output parameter. Exit codes: 0 done, 1 cannot be done as asked, 2 usage error, 75
transient (the workflow's retryStrategy retries only that one).
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any

import typer

from orchestrator.commands.helpstyle import App
from orchestrator.steps import registry
from orchestrator.steps.registry import Input, StepSpec

_TYPES: dict[str, Any] = {
    "str": str,
    "int": int,
    "bool": bool,
    "path": Path | None,
    "config": Path | None,
}


def _parameter(item: Input) -> inspect.Parameter:
    """The typer option of one declared input, as a keyword parameter."""
    decls = [item.option, *([item.short] if item.short else [])]
    extra: dict[str, Any] = {}
    if item.minimum is not None:
        extra["min"] = item.minimum
    if item.maximum is not None:
        extra["max"] = item.maximum
    if item.envvar:
        extra["envvar"] = item.envvar
    option = typer.Option(*decls, help=item.help, **extra)
    return inspect.Parameter(
        item.key,
        inspect.Parameter.KEYWORD_ONLY,
        default=inspect.Parameter.empty if item.required_on_cli else item.cli_default(),
        annotation=Annotated[_TYPES[item.type], option],
    )


def command(spec: StepSpec) -> Callable[..., None]:
    """A typer command for ``spec``: its signature is built from the declared inputs.

    The program raises ``StepFailed``/``StepUsageError`` (it never imports typer); a usage
    error becomes click's, naming the option, and any other failure reaches
    :func:`orchestrator.commands.invoke.run`, which prints it and exits with its code. A
    ``config`` input is
    loaded and validated here, so the program gets the configuration itself."""
    run, takes = spec.run, spec.takes
    if run is None or takes is None:
        raise ValueError(f"step {spec.name!r} has no program")

    configs = [item.key for item in spec.cli_inputs if item.type == "config"]

    def step(**values: Any) -> None:
        from orchestrator.commands.common import load_valid
        from orchestrator.steps.support import StepUsageError

        for key in configs:
            if values[key] is not None:
                values[key] = load_valid(values[key])
        try:
            run(takes(**values))
        except StepUsageError as exc:
            raise typer.BadParameter(exc.message, param_hint=exc.option) from None

    parameters = [_parameter(item) for item in spec.program_inputs]
    step.__signature__ = inspect.Signature(parameters)  # type: ignore[attr-defined]
    step.__annotations__ = {p.name: p.annotation for p in parameters} | {"return": None}
    step.__name__ = step.__qualname__ = f"{spec.name.replace('-', '_')}_cmd"
    step.__doc__ = spec.summary
    return step


def make_step_app() -> App:
    """``promoflow step``: one command per registered step that has a program."""
    app = App(
        name="step",
        help="Programs the promotion workflow runs (one per step kind).",
        no_args_is_help=True,
        add_completion=False,  # `promoflow --install-completion` covers `promoflow step` too
    )
    for spec in registry.steps():
        if spec.run is not None:
            app.command(spec.name)(command(spec))
    return app


step_app = make_step_app()
