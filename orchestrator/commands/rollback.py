"""``rollback``: put an environment back on its last verified version (or the one named),
restoring every promoted file and field as they were at that version's commit.

It is a normal run of the product's template (its ``rollback-ENV`` entrypoint): the
environment's policies apply (approvals, windows, gates), Argo CD is waited for, and the
commit is noted verified when its gates pass. What to restore comes from the GitOps
repository's history alone (``promoflow history``).
"""

from __future__ import annotations

import secrets
from pathlib import Path
from typing import Annotated

import typer

from orchestrator.commands.argo import ArgoServerOption, NamespaceOption, requester, submit
from orchestrator.commands.choices import check_product
from orchestrator.commands.common import (
    RUNS_DIR,
    ConfigOption,
    LocalTemplatesOption,
    RunsDirOption,
    StandInsOption,
    fail,
    finite,
    load_valid,
    out,
)


def rollback_cmd(
    product: Annotated[str, typer.Option("--product", "-p", help="The product.")],
    environment: Annotated[
        str, typer.Option("--environment", "-e", help="The environment to roll back.")
    ],
    to: Annotated[
        str | None,
        typer.Option(
            "--to",
            metavar="VERSION",
            help="This version (default: the last one verified there before the current).",
        ),
    ] = None,
    reason: Annotated[str, typer.Option(help="Why; written in the rollback's commit.")] = "",
    force: Annotated[
        bool, typer.Option("--force", help="Allow a version never verified there (recorded).")
    ] = False,
    config: ConfigOption = Path("."),
    requested_by: Annotated[str | None, typer.Option(help="Who asks (default: $USER).")] = None,
    argo_server: ArgoServerOption = None,
    namespace: NamespaceOption = None,
    dry_run: Annotated[
        bool, typer.Option("--dry-run", help="Print the Workflow instead of submitting it.")
    ] = False,
    local: Annotated[
        bool, typer.Option("--local", help="Run it here with the local engine, no cluster.")
    ] = False,
    auto_approve: Annotated[
        bool, typer.Option("--auto-approve", help="Local: approve every approval.")
    ] = False,
    answer_as: Annotated[str, typer.Option("--as", help="Local: who answers approvals.")] = "",
    soak_scale: Annotated[
        float, typer.Option(min=0.0, help="Local: multiply soak durations (0.01 = 100x faster).")
    ] = 1.0,
    templates: LocalTemplatesOption = None,
    stand_ins: StandInsOption = False,
    runs_dir: RunsDirOption = RUNS_DIR,
    cache: Annotated[
        Path | None, typer.Option(metavar="DIR", help="Where fetched history is kept.")
    ] = None,
) -> None:
    """Roll an environment back to its last verified version, or to --to VERSION, through
    the environment's policies (approvals, windows, gates), as a run of its own.

    Examples:
      $ promoflow rollback -c environments -p shop -e prod-eu --reason "SHOP-431: 5xx"
      $ promoflow rollback -c environments -p shop -e prod-eu --to 1.4.1 --dry-run
      $ promoflow rollback --local -c environments -p shop -e dev --auto-approve
    """
    from orchestrator.commands.history import history_of
    from orchestrator.compiler import CompileError, PromotionRequest
    from orchestrator.compiler.workflow import RollbackOf
    from orchestrator.graph.plan import plan_product
    from orchestrator.history.choose import NoRollback, choose

    loaded = load_valid(config)
    check_product(loaded, product)
    try:
        plan = plan_product(loaded, product)
    except CompileError as exc:
        fail(str(exc))
    names = [e.environment for e in plan.environments]
    if environment not in names:
        raise typer.BadParameter(
            f"{environment!r} is not an environment of {product} ({', '.join(names)})",
            param_hint="'--environment'",
        )
    if plan.environment(environment).policy.action == "none":
        fail(f"{product} commits nothing in {environment} (action: none): nothing to roll back")
    found = history_of(plan, None, cache, [environment])
    try:
        choice = choose(found.promotions, environment, to, force)
    except NoRollback as exc:
        fail(f"{product}: {exc}")
    target = choice.target
    why = reason.strip()
    if choice.forced:
        why = f"forced: {target.version} was never verified in {environment}" + (
            f"; {why}" if why else ""
        )
    now = choice.current.version if choice.current else "?"
    out.print(
        f"{product} in {environment}: {now} -> {target.version} (restoring "
        f"{target.commit[:12]}, {'never verified' if choice.forced else 'verified'} there)",
        markup=False,
    )
    back = RollbackOf(environment, target.commit, why)
    if local:
        from orchestrator.commands.local import MAX_SOAK_SCALE, promote_local
        from orchestrator.commands.promotion import Promotion

        finite(soak_scale, "--soak-scale", 0, MAX_SOAK_SCALE)
        asked = Promotion(loaded, plan, target.version, {})
        promote_local(
            asked, "", requester(requested_by), "", auto_approve=auto_approve, reject=[],
            soak_scale=soak_scale, templates=templates, stand_ins=stand_ins,
            runs_dir=runs_dir, answer_as=answer_as, rollback=back,
        )  # fmt: skip
        return
    request = PromotionRequest(
        product, target.version, "", requester(requested_by), secrets.token_hex(4), {},
        rollback=back,
    )  # fmt: skip
    submit(loaded, request, dry_run, argo_server, namespace)
