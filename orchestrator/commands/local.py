"""``promoflow promote --local`` and ``promoflow demo``: runs on this machine."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from orchestrator.commands.choices import check_product
from orchestrator.commands.common import (
    err,
    fail,
    finite,
    load_valid,
)

if TYPE_CHECKING:
    from rich.console import Console

    from orchestrator.commands.promotion import Promotion
    from orchestrator.compiler.workflow import RollbackOf
    from orchestrator.graph.plan import ProductPlan
    from orchestrator.loading import Config
    from orchestrator.model.gates import GateSettings


MAX_SOAK_SECONDS = 3600.0
MAX_SOAK_SCALE = 1000.0

# Not the shared --config: that one reads $PROMOFLOW_CONFIG and defaults to the current
# directory, while the demo promotes through the example configuration wherever it is run.
DemoConfigOption = Annotated[
    Path | None,
    typer.Option(
        "--config",
        "-c",
        help="Configuration to promote through (default: the example configuration that "
        "comes with promoflow, the environments/ folder of its source tree).",
        show_default=False,
    ),
]


def example_config() -> Path | None:
    """The example configuration, ``environments/`` beside the ``orchestrator`` package: there
    in a source checkout and its editable install (``make demo``), not in a wheel."""
    import orchestrator

    path = Path(orchestrator.__file__).resolve().parent.parent / "environments"
    return path if path.is_dir() else None


def demo_config(config: Path | None) -> Path:
    """``--config``, or the example configuration; a usage error that says what to pass
    when this installation has none."""
    if config is not None:
        return config
    example = example_config()
    if example is None:
        raise typer.BadParameter(
            "this installation of promoflow has no example configuration; pass --config DIR "
            "(the environments/ folder of a promoflow source checkout, or your own)",
            param_hint="--config",
        )
    return example


def _console() -> Console:
    """A real Console: the live tree and the approval prompt need all of it."""
    from rich.console import Console

    return Console(highlight=False, soft_wrap=True, emoji=False)


def parse_rejections(values: list[str]) -> dict[str, str]:
    """``--reject prod-us`` or ``--reject "prod-us=not today"``."""
    result = {}
    for value in values:
        env, _, reason = value.partition("=")
        if not env.strip():
            raise typer.BadParameter(
                f"{value!r}: expected ENV or ENV=REASON", param_hint="--reject"
            )
        result[env.strip()] = reason.strip()
    return result


def check_environments(
    plan: ProductPlan, option: str, names: list[str], gate: type[GateSettings] | None = None
) -> None:
    """Each of ``names`` must be an environment of the product's flow (with ``gate``)."""
    flow = [env.environment for env in plan.environments]
    for name in names:
        if name not in flow:
            raise typer.BadParameter(
                f"{name!r} is not in the flow of {plan.product.name} ({', '.join(flow)})",
                param_hint=option,
            )
        if gate and plan.environment(name).policy.gate(gate) is None:
            raise typer.BadParameter(f"{name!r} has no {gate.KIND} gate", param_hint=option)


def load_templates(directory: Path | None) -> list[dict[str, Any]]:
    """WorkflowTemplates from every YAML file under ``directory``."""
    if directory is None:
        return []
    import yaml

    if not directory.is_dir():
        raise typer.BadParameter(f"{directory}: not a directory", param_hint="--templates")
    found: list[dict[str, Any]] = []
    from orchestrator.nesting import yaml_too_deep
    from orchestrator.yamltabs import MESSAGE as TABS
    from orchestrator.yamltabs import tab_problem

    for path in sorted([*directory.rglob("*.yaml"), *directory.rglob("*.yml")]):
        text = ""
        try:
            text = path.read_text()
            deep = yaml_too_deep(text)
            if deep is not None:
                err.print(f"{path}:{deep.line}:{deep.col}: error: {deep.message}", markup=False)
                raise typer.Exit(1)
            docs = list(yaml.safe_load_all(text))
        except (yaml.YAMLError, OSError, UnicodeDecodeError) as exc:
            mark = getattr(exc, "problem_mark", None)
            where = f"{path}:{mark.line + 1}:{mark.column + 1}" if mark else f"{path}:1:1"
            reason = getattr(exc, "problem", None) or getattr(exc, "strerror", None) or exc
            tab = tab_problem(text, mark.line if mark else None, getattr(exc, "problem", None))
            if tab is not None:
                where, reason = f"{path}:{tab.line}:{tab.column}", TABS
            err.print(f"{where}: error: cannot read WorkflowTemplates: {reason}", markup=False)
            raise typer.Exit(1) from None
        kinds = ("WorkflowTemplate", "ClusterWorkflowTemplate")
        found += [d for d in docs if isinstance(d, dict) and d.get("kind") in kinds]
    return found


def promote_local(
    asked: Promotion,
    source_commit: str,
    requested_by: str,
    request_id: str,
    *,
    auto_approve: bool,
    reject: list[str],
    soak_scale: float,
    templates: Path | None,
    stand_ins: bool,
    runs_dir: Path,
    answer_as: str = "",
    rollback: RollbackOf | None = None,
) -> None:
    """Run the promotion ``promote`` resolved (see orchestrator.commands.promotion) with the
    local engine (see orchestrator.local), once the repository has answered; with
    ``rollback``, the rollback of one environment ``rollback`` resolved."""
    import os
    import secrets

    from orchestrator.adapters.git import GitError
    from orchestrator.local.preflight import (
        RepositoryError,
        check_repository,
        missing_templates,
        template_problems,
        templates_message,
    )

    plan = asked.plan
    rejections = parse_rejections(reject)
    from orchestrator.model.gates.approval import ApprovalGate

    check_environments(plan, "--reject", list(rejections), gate=ApprovalGate)
    loaded_templates = load_templates(templates)
    absent = missing_templates(plan, loaded_templates)
    if absent and not stand_ins:
        fail(templates_message(absent))
    try:  # before the compiler, the engine and the stand-ins start: in about a second
        check_repository(plan, os.environ)
        problems = template_problems(plan, os.environ)
    except RepositoryError as exc:
        fail(str(exc))
    except GitError as exc:
        fail(f"cannot promote {plan.product.name}: {exc}")
    if problems:  # a typo in the template: refused before any environment is promoted
        for problem in problems:
            err.print(str(problem), markup=False)
        fail(f"{plan.product.name}: the template's paths do not match the repository's files")
    from orchestrator.compiler import CompileError, PromotionRequest
    from orchestrator.engine.errors import EngineError
    from orchestrator.engine.model import Phase
    from orchestrator.local.session import LocalOptions, run_local
    from orchestrator.settings import SettingsError

    options = LocalOptions(
        auto_approve=auto_approve,
        reject=rejections,
        soak_scale=soak_scale,
        templates=loaded_templates,
        use_stand_ins=stand_ins,
        runs_dir=runs_dir,
        answer_as=answer_as,
    )
    assert asked.version is not None
    request = PromotionRequest(
        asked.product,
        asked.version,
        source_commit,
        requested_by,
        request_id or secrets.token_hex(4),
        asked.fields,
        rollback,
    )
    console = _console()
    try:
        record, path = run_local(asked.config, plan, request, options, console)
    except SettingsError as exc:
        fail(str(exc), 2)
    except (CompileError, EngineError) as exc:
        fail(str(exc))
    console.print(f"run record: {path}", markup=False)
    if record.phase is not Phase.SUCCEEDED:
        raise typer.Exit(1)


def demo_cmd(
    config: DemoConfigOption = None,
    product: Annotated[str, typer.Option("--product", "-p", help="Product to promote.")] = "shop",
    version: Annotated[str, typer.Option("--version", "-v", help="Version to promote.")] = "1.5.0",
    keep: Annotated[
        Path | None, typer.Option(help="Keep the GitOps repository (and run record) here.")
    ] = None,
    fail_env: Annotated[
        str | None,
        typer.Option("--fail", help="Make the Argo CD simulator fail this environment's app."),
    ] = None,
    reject: Annotated[
        str | None, typer.Option(help="Reject the approval of this environment.")
    ] = None,
    stale_image: Annotated[
        str | None,
        typer.Option(
            "--stale-image",
            help="Keep this environment's pods on their image in the Argo CD simulator, as "
            "a chart that ignores the promoted value would: the image check fails the gate.",
        ),
    ] = None,
    soak: Annotated[float, typer.Option(help="Seconds the longest soak is shortened to.")] = 2.0,
    answer_as: Annotated[
        str | None,
        typer.Option(
            "--as",
            help="Who answers the approvals (default: a listed approver); someone else is "
            "stopped by the workflow's approver check.",
        ),
    ] = None,
    webhook: Annotated[
        bool,
        typer.Option(
            "--webhook",
            help="Start the promotion from a signed Git push sent to promoflow serve --local.",
        ),
    ] = False,
) -> None:
    """Promote a new version through the example environments, locally, in seconds.

    No cluster: a local Git server, an Argo CD simulator and the local engine stand in for
    them, and the output says so.

    Examples:
      $ promoflow demo
      $ promoflow demo --keep /tmp/pf-demo    # then: git --git-dir /tmp/pf-demo/gitops.git log
      $ promoflow demo --fail prod-us         # a failed gate, with the reason
      $ promoflow demo --stale-image staging  # Healthy, but not the promoted image
      $ promoflow demo --reject prod-eu       # a rejected approval
      $ promoflow demo --webhook              # a signed push starts it, exactly once
    """
    from orchestrator.compiler import CompileError
    from orchestrator.demo.local import DemoOptions, run_demo, succeeded
    from orchestrator.engine.errors import EngineError
    from orchestrator.graph.plan import plan_product
    from orchestrator.settings import SettingsError

    finite(soak, "--soak", 0, MAX_SOAK_SECONDS)
    path = demo_config(config)
    loaded = load_valid(path)
    check_product(loaded, product)
    if keep is not None and keep.exists() and any(keep.iterdir()):
        raise typer.BadParameter(
            f"{keep} exists and is not empty; choose a new directory", param_hint="--keep"
        )
    loaded = _open_windows(loaded, product)
    plan = plan_product(loaded, product)
    check_environments(plan, "--fail", [fail_env] if fail_env else [])
    from orchestrator.model.gates.approval import ApprovalGate

    check_environments(plan, "--reject", [reject] if reject else [], gate=ApprovalGate)
    if stale_image:
        check_environments(plan, "--stale-image", [stale_image])
        if not plan.environment(stale_image).checks_image:
            raise typer.BadParameter(
                f"{stale_image!r} does not check its image (its template names none, or a "
                "policy turns the check off)",
                param_hint="--stale-image",
            )
    options = DemoOptions(
        product, version, keep, fail_env, reject, soak, answer_as, stale_image=stale_image
    )
    console = _console()
    if config is None:
        console.print(
            f"configuration: {path} (the example; --config DIR for another)", markup=False
        )
    try:
        if webhook:
            from orchestrator.demo.webhook import run_webhook_demo

            if run_webhook_demo(loaded, options, console).succeeded:
                return
            raise typer.Exit(1)
        result = run_demo(loaded, options, console)
    except SettingsError as exc:
        fail(str(exc), 2)
    except (CompileError, EngineError) as exc:
        fail(str(exc))
    if not succeeded(result):
        raise typer.Exit(1)


def _open_windows(loaded: Config, product: str) -> Config:
    """The demo is a demonstration, not a release: where a promotion window is closed now
    (the example's year-end freeze), it would wait for days, so it runs without the
    windows, and says so. ``promote --local`` always keeps them."""
    from dataclasses import replace
    from datetime import UTC, datetime

    from orchestrator.model import PromotionWindow
    from orchestrator.windows.outlook import outlook

    closed = [o for o in outlook(loaded, datetime.now(UTC)) if o.product == product]
    closed = [o for o in closed if not o.state.open]
    if not closed:
        return loaded
    for found in closed:
        err.print(f"{found.line()}: the demo runs without its promotion windows", markup=False)
    kept = [r for r in loaded.resources if not isinstance(r, PromotionWindow)]
    return replace(loaded, resources=kept)
