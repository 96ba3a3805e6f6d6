"""``promoflow approve`` and ``promoflow reject``: answer a run's approval through Argo.

The answer goes through the Argo Server's ``set`` API, as the UI's approve button does, so
Argo's RBAC decides who may answer and the run records who did and why.
"""

from __future__ import annotations

from typing import Annotated

import typer

from orchestrator.commands.argo import ArgoServerOption, NamespaceOption, client_for
from orchestrator.commands.common import out

RunArgument = Annotated[str, typer.Argument(help="Run (workflow) name.")]
EnvOption = Annotated[str, typer.Option("--env", "-e", help="Environment waiting for approval.")]


def _answer(
    run: str, env: str, approve: bool, message: str, argo_server: str | None, ns: str | None
) -> None:
    from orchestrator.approvals import Identity, answer

    client = client_for(argo_server, ns)
    workflow = client.get_workflow(run)
    info = client.user_info()
    identity = Identity.from_userinfo(info) if info else None
    decision = answer(workflow, env, approve=approve, message=message, identity=identity)
    client.set_node(
        run,
        decision.node_selector,
        phase=decision.phase,
        message=decision.message,
        output_parameters=decision.output_parameters,
    )
    out.print(f"{run}: {env} {decision.message}", markup=False)
    out.print(client.ui_link(run), markup=False)


def approve_cmd(
    run: RunArgument,
    env: EnvOption,
    message: Annotated[str, typer.Option("--message", "-m", help="Why (recorded).")] = "",
    argo_server: ArgoServerOption = None,
    namespace: NamespaceOption = None,
) -> None:
    """Approve the promotion of a run into an environment.

    Examples:
      $ promoflow approve shop-1-4-2-3f9a1c2e --env prod-eu -m "canary is clean"
    """
    _answer(run, env, True, message, argo_server, namespace)


def reject_cmd(
    run: RunArgument,
    env: EnvOption,
    message: Annotated[str, typer.Option("--message", "-m", help="Why (required, recorded).")],
    argo_server: ArgoServerOption = None,
    namespace: NamespaceOption = None,
) -> None:
    """Reject the promotion of a run into an environment; its dependants do not run.

    Examples:
      $ promoflow reject shop-1-4-2-3f9a1c2e --env prod-eu -m "error budget spent"
    """
    if not message.strip():
        raise typer.BadParameter("say why the promotion is rejected", param_hint="--message")
    _answer(run, env, False, message, argo_server, namespace)
