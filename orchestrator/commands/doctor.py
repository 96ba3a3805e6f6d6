"""``promoflow doctor``: check an installation with the services' own settings, and say
what to change. Exit 0 when nothing fails, 1 when something does, 2 for usage errors.

The settings are the webhook service's and the steps' (``ARGO_*``, ``ARGOCD_*`` or
``PROMOFLOW_ARGOCD_*``, ``GIT_TOKEN``, ``PROMOFLOW_*``), so the chart's ``helm test`` pod
runs it with the environment the services run with.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from orchestrator.commands.argo import ArgoServerOption, NamespaceOption, output_option
from orchestrator.commands.common import ConfigOption, out, settings
from orchestrator.commands.configgit import ConfigGitBranchOption, ConfigGitPathOption, git_env

if TYPE_CHECKING:
    from orchestrator.adapters.kubeobjects import KubeObjects
    from orchestrator.doctor.report import Line
    from orchestrator.loading import Config
    from orchestrator.settings import ArgoCDSettings

FORMATS = ("text", "json")
MARKS = {"ok": "[green]ok[/]", "warn": "[yellow]warn[/]", "fail": "[red]fail[/]"}


def doctor_cmd(
    config: ConfigOption = Path("."),
    argo_server: ArgoServerOption = None,
    namespace: NamespaceOption = None,
    providers: Annotated[
        str,
        typer.Option(
            "--webhook-providers",
            envvar="PROMOFLOW_WEBHOOK_PROVIDERS",
            help="Webhook providers the service accepts, comma-separated (github,gitlab): "
            "each must have its secret.",
        ),
    ] = "",
    reporter_state: Annotated[
        str,
        typer.Option(
            "--reporter-state",
            envvar="PROMOFLOW_REPORTER_STATE",
            help="The reporters' store file (their --state): checked writable.",
        ),
    ] = "",
    config_git: Annotated[
        str,
        typer.Option(
            envvar="PROMOFLOW_CONFIG_GIT_URL",
            help="Read the configuration from this Git repository instead of --config, as "
            "`serve --config-git` follows it (token: PROMOFLOW_CONFIG_GIT_TOKEN or GIT_TOKEN).",
            show_default=False,
        ),
    ] = "",
    config_git_branch: ConfigGitBranchOption = "main",
    config_git_path: ConfigGitPathOption = "",
    output: Annotated[str | None, output_option(FORMATS, "text")] = None,
) -> None:
    """Check that promotions can run here: Argo Server, Argo CD and its Applications, Git
    credentials, the step Secrets, webhook secrets; each line ok, warn or fail with the fix.

    Examples:
      $ promoflow doctor -c environments
      $ promoflow doctor -c environments --webhook-providers github -o json
    """
    from orchestrator.adapters.gitcreds import Credentials
    from orchestrator.adapters.liveprobes import LiveProbes
    from orchestrator.commands.argo import argo_settings
    from orchestrator.commands.choices import output_format
    from orchestrator.doctor.context import Context
    from orchestrator.doctor.families import examine
    from orchestrator.doctor.report import exit_code
    from orchestrator.settings import StepSettings

    fmt = output_format(output, FORMATS, default="text")
    if not config_git and not config.exists():
        raise typer.BadParameter(f"{config} does not exist", param_hint="--config")
    argo = argo_settings(argo_server, namespace)
    argocd = argocd_settings()
    steps = settings(StepSettings)
    kube, kube_problem = _kube()
    credentials = Credentials.from_env()
    probes = LiveProbes(argo, argocd, credentials, kube)
    if config_git:
        loaded, problems, source = _git_configuration(
            config_git, config_git_branch, config_git_path
        )
    else:
        (loaded, problems), source = _configuration(config), str(config)
    context = Context(
        argo=argo,
        argocd=argocd,
        steps=steps,
        probes=probes,
        config=loaded,
        config_problems=problems,
        config_source=source,
        providers=_names(providers),
        env=dict(os.environ),
        reporter_state=reporter_state,
        git_token=bool(credentials.token),
        kube=kube_problem,
    )
    try:
        lines = examine(context)
    finally:
        probes.close()
    secrets = _secrets(argo.authorization or "", argocd, credentials.token)
    lines = [_scrubbed(line, secrets) for line in lines]
    if fmt == "json":
        from orchestrator.doctor.report import as_json

        sys.stdout.write(json.dumps(as_json(lines), indent=2, ensure_ascii=False) + "\n")
    else:
        draw(lines)
    raise typer.Exit(exit_code(lines))


def argocd_settings() -> ArgoCDSettings:
    """``ARGOCD_*`` as the argocd CLI reads them; without ARGOCD_SERVER, the steps'
    ``PROMOFLOW_ARGOCD_SERVER`` and ``PROMOFLOW_ARGOCD_OPTS`` (the chart sets those)."""
    from orchestrator.settings import ArgoCDSettings

    found = settings(ArgoCDSettings)
    if found.server:
        return found
    server = os.environ.get("PROMOFLOW_ARGOCD_SERVER", "")
    opts = os.environ.get("PROMOFLOW_ARGOCD_OPTS", "")
    return settings(ArgoCDSettings, server=server, opts=opts, auth_token=found.auth_token)


def _kube() -> tuple[KubeObjects | None, str]:
    from orchestrator.adapters.kubeclient import NoCredentials
    from orchestrator.adapters.kubeobjects import KubeObjects
    from orchestrator.settings import GateSettings

    gate = settings(GateSettings)
    try:
        kube = KubeObjects.connect(
            gate.kube_api,
            gate.kube_token.get_secret_value(),
            ca_file=gate.kube_ca,
            insecure=gate.kube_insecure,
        )
    except NoCredentials as exc:
        return None, str(exc)
    return kube, ""


def _configuration(config: Path) -> tuple[Config | None, tuple[str, ...]]:
    """The configuration as ``promoflow validate`` reads it; its errors as lines."""
    from orchestrator.graph import validate
    from orchestrator.loading import load_config
    from orchestrator.problems import sort_problems
    from orchestrator.settings import ConfigSettings

    loaded, problems = load_config(config, settings(ConfigSettings).python)
    found = sort_problems([*problems, *validate(loaded)])
    errors = tuple(str(p) for p in found if p.severity == "error")
    return (None, errors) if errors else (loaded, ())


def _git_configuration(
    url: str, branch: str, path: str
) -> tuple[Config | None, tuple[str, ...], str]:
    """The configuration at the branch's tip, read and checked as the webhook service
    reads it when it follows Git; what cannot be read is the configuration's error."""
    import tempfile

    from orchestrator.adapters.gitcreds import Credentials
    from orchestrator.adapters.giterrors import GitError
    from orchestrator.settings import ConfigSettings
    from orchestrator.webhooks.configsource import GitSource

    python = settings(ConfigSettings).python
    with tempfile.TemporaryDirectory(prefix="promoflow-doctor-") as cache:
        try:
            credentials = Credentials.from_env(git_env())
            source = GitSource(url, branch, path, credentials, Path(cache), python)
        except GitError as exc:
            return None, (f"--config-git: {exc}",), url
        try:
            candidate = source.read()
        except GitError as exc:
            return None, (f"{source.describe()}: {exc}",), source.describe()
        finally:
            source.close()
    errors = tuple(str(p) for p in candidate.errors)
    where = f"{source.describe()} at {candidate.revision[:12]}"
    return (None, errors, where) if errors else (candidate.config, (), where)


def _names(text: str) -> tuple[str, ...]:
    return tuple(dict.fromkeys(n.strip() for n in text.replace(" ", ",").split(",") if n.strip()))


def _secrets(authorization: str, argocd: ArgoCDSettings, git_token: str) -> tuple[str, ...]:
    found = (authorization.split(" ", 1)[-1], argocd.auth_token.get_secret_value(), git_token)
    return tuple(s.strip() for s in found if s.strip())


def _scrubbed(line: Line, secrets: tuple[str, ...]) -> Line:
    from dataclasses import replace

    from orchestrator.urls import scrub

    return replace(line, detail=scrub(line.detail, secrets), fix=scrub(line.fix, secrets))


def draw(lines: list[Line]) -> None:
    """One table, a section per family; the fix under what is wrong."""
    from rich.markup import escape
    from rich.table import Table

    table = Table(show_header=True, header_style="bold", show_lines=False, expand=False)
    table.add_column("", no_wrap=True)
    table.add_column("check", overflow="fold")
    table.add_column("finding", overflow="fold")
    family = ""
    for line in lines:
        if line.family != family:
            family = line.family
            table.add_row("", f"[bold]{escape(family)}[/]", "", end_section=False)
        text = escape(line.detail)
        if line.fix:
            text += f"\n[cyan]fix:[/] {escape(line.fix)}"
        table.add_row(MARKS[line.status], escape(line.check), text)
    out.print(table)
    counts = {s: sum(line.status == s for line in lines) for s in MARKS}
    out.print(f"{counts['ok']} ok, {counts['warn']} warn, {counts['fail']} fail")
