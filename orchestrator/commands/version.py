"""``promoflow version``: this client's version and, when they answer, the Argo Server's
and Argo CD's, as ``argo version`` and ``argocd version`` show theirs.

The servers are asked with the settings every other command uses (ARGO_SERVER, ARGO_TOKEN
and the rest, ``--argo-server`` over them; ARGOCD_SERVER, ARGOCD_AUTH_TOKEN, ARGOCD_OPTS),
both at once and briefly: a server that does not answer is reported as unreachable, with
the reason, and the command still exits 0. Both servers tell their version to anyone, so
each is also asked something that needs the token: a refused token shows under the
server's version (``Credentials: refused (check ARGO_TOKEN)``), the token itself never.
"""

from __future__ import annotations

import sys
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING, Annotated

import typer

from orchestrator.commands.argo import ArgoServerOption, argo_settings, data_text, output_option
from orchestrator.commands.choices import output_format
from orchestrator.commands.common import settings

if TYPE_CHECKING:
    from orchestrator.settings import ArgoCDSettings, ArgoSettings
    from orchestrator.versioninfo import Server

VERSION_FORMATS = ("json", "yaml")
REFUSED = "refused (check {})"
TIMEOUT = 5.0
"""Seconds each server may take to answer: ``version`` is a quick look."""


def version_cmd(
    short: Annotated[bool, typer.Option("--short", help="Versions only, one line each.")] = False,
    client_only: Annotated[
        bool, typer.Option("--client", help="The client's version only; no server is asked.")
    ] = False,
    output: Annotated[str | None, output_option(VERSION_FORMATS, "text")] = None,
    argo_server: ArgoServerOption = None,
) -> None:
    """Print the client's version and the Argo Server's and Argo CD's, when they answer.

    A server that is not configured or does not answer is shown as such; the exit code is
    0 all the same.

    Examples:
      $ promoflow version
      $ promoflow version --short
      $ promoflow version --client
      $ promoflow version -o json | jq -r .argoServer.version
    """
    from orchestrator import __version__
    from orchestrator.settings import ArgoCDSettings
    from orchestrator.versioninfo import as_data, as_text, client_info

    fmt = output_format(output, VERSION_FORMATS)
    answered: list[Server] = []
    if not client_only:
        argo = argo_settings(argo_server, None)
        argocd = settings(ArgoCDSettings)
        with ThreadPoolExecutor(max_workers=2) as pool:
            servers = [pool.submit(ask_argo, argo), pool.submit(ask_argocd, argocd)]
            answered = [future.result() for future in servers]
    client = client_info(__version__)
    if fmt:
        sys.stdout.write(data_text(as_data(client, answered, short=short), fmt))
        return
    from orchestrator.urls import scrub

    sys.stdout.write(scrub(as_text(client, answered, short=short)))


def ask_argo(argo: ArgoSettings) -> Server:
    from orchestrator.adapters.argo import ArgoClient, ArgoError
    from orchestrator.versioninfo import ARGO, Server

    if not argo.server:
        return Server(ARGO, configured=False, setting="ARGO_SERVER or --argo-server")
    try:
        client = ArgoClient(argo)
        answer = client.server_version(timeout=TIMEOUT)
        refused = client.token_refused(timeout=TIMEOUT)
    except ArgoError as exc:
        return Server(ARGO, error=str(exc).removeprefix("version: "))
    return Server(ARGO, answer=answer, credentials=REFUSED.format("ARGO_TOKEN") if refused else "")


def ask_argocd(argocd: ArgoCDSettings) -> Server:
    from orchestrator.adapters.argocd import ArgoCDClient, ArgoCDError
    from orchestrator.versioninfo import ARGOCD, Server

    if not argocd.server:
        return Server(ARGOCD, configured=False, setting="ARGOCD_SERVER")
    try:
        with ArgoCDClient(argocd, timeout=TIMEOUT) as client:
            answer = client.version()
            refused = not client.logged_in()
    except ArgoCDError as exc:
        return Server(ARGOCD, error=str(exc).removeprefix("Argo CD version: "))
    credentials = REFUSED.format("ARGOCD_AUTH_TOKEN") if refused else ""
    return Server(ARGOCD, answer=answer, credentials=credentials)
