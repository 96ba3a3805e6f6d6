"""Commands that submit Argo objects to the Argo Server, and what every Argo command shares.

``compile`` (:mod:`orchestrator.commands.compiling`) needs no cluster; ``apply`` and
``promote`` (and ``runs``/``status`` in
:mod:`orchestrator.commands.runs`) read the Argo Server connection as the argo CLI does
(ARGO_SERVER, ARGO_TOKEN, ARGO_NAMESPACE, ...), with ``--argo-server URL`` to override the
address.
"""

from __future__ import annotations

import getpass
import json
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from orchestrator.commands.choices import check_product, completer
from orchestrator.commands.common import (
    RUNS_DIR,
    ConfigOption,
    LocalTemplatesOption,
    RunsDirOption,
    StandInsOption,
    err,
    fail,
    finite,
    load_valid,
    out,
    settings,
)
from orchestrator.commands.promotion import resolve_promotion
from orchestrator.manifest import Manifest

if TYPE_CHECKING:
    from orchestrator.adapters.argo import ArgoClient
    from orchestrator.compiler import PromotionRequest
    from orchestrator.loading import Config
    from orchestrator.settings import ArgoSettings, StepSettings


ProductOption = Annotated[str, typer.Option("--product", "-p", help="Product to promote.")]
ArgoServerOption = Annotated[
    str | None,
    typer.Option(
        "--argo-server",
        metavar="URL",
        help="Argo Server URL (https://host:port) or host:port; default: $ARGO_SERVER.",
        show_default=False,
    ),
]
NamespaceOption = Annotated[
    str | None,
    typer.Option("--namespace", "-n", help="Argo namespace; default: $ARGO_NAMESPACE or argo."),
]

SetOption = Annotated[
    list[str] | None,
    typer.Option(
        "--set",
        help="A field that comes with the version, as PATH=VALUE (e.g. "
        "image.digest=sha256:...); the template's versionSource.fields lists them.",
    ),
]
RUNS_FORMATS = ("wide", "json", "yaml", "name")
STATUS_FORMATS = ("wide", "json", "yaml")


def output_option(formats: tuple[str, ...], default: str) -> Any:
    """``-o/--output FORMAT`` as kubectl and argo take it; the value is checked in the
    command (``choices.output_format``), so every refusal is worded alike."""
    return typer.Option(
        "--output",
        "-o",
        metavar="FORMAT",
        help=f"Output format: {', '.join(formats)} (default: {default}).",
        autocompletion=completer(formats),
        show_default=False,
    )


def data_text(data: Any, fmt: str) -> str:
    """Summaries as JSON or YAML, every string scrubbed of credentials like all output."""
    from orchestrator.urls import scrub_data

    data = scrub_data(data)
    if fmt == "json":
        return json.dumps(data, indent=2, ensure_ascii=False) + "\n"
    import yaml

    return yaml.safe_dump(data, sort_keys=False, allow_unicode=True, default_flow_style=False)


def argo_settings(argo_server: str | None, namespace: str | None) -> ArgoSettings:
    """The Argo Server connection as the argo CLI reads it, with ``--argo-server`` and
    ``--namespace`` over it; ``--argo-server`` is checked first, so an error names the
    flag (and never repeats its value: it may carry a password)."""
    from orchestrator.names import check_namespace
    from orchestrator.settings import ArgoSettings
    from orchestrator.urls import UrlError, server_url

    overrides: dict[str, str] = {}
    if argo_server:
        try:
            server_url(argo_server, hint="use ARGO_TOKEN for the token")
        except UrlError as exc:
            fail(f"--argo-server: {exc}", 2)
        overrides["server"] = argo_server
    if namespace:
        try:
            check_namespace(namespace)
        except ValueError as exc:
            fail(f"--namespace: {exc}", 2)
        overrides["namespace"] = namespace
    return settings(ArgoSettings, **overrides)


def client_for(argo_server: str | None, namespace: str | None) -> ArgoClient:
    """The Argo Server client; ``--argo-server`` is checked first, so an error names the
    flag (and never repeats its value: it may carry a password)."""
    from orchestrator.adapters.argo import ArgoClient, ArgoError

    try:
        return ArgoClient(argo_settings(argo_server, namespace))
    except ArgoError as exc:
        fail(str(exc), 2)


def step_settings() -> StepSettings:
    """What compiled workflows run with (``PROMOFLOW_*``), or a usage error naming the
    variable that is wrong."""
    from orchestrator.settings import StepSettings

    return settings(StepSettings)


def guarded(manifests: list[Manifest]) -> list[Manifest]:
    """The manifests, if no string in them carries a credential; else an error naming where.

    The configuration and the settings refuse credentials where they enter; this is the last
    line before YAML is printed or submitted, so a credential that found another way in is
    refused rather than published (and never repeated in the message)."""
    from orchestrator.model.errors import dotted
    from orchestrator.urls import find_credentials

    for manifest in manifests:
        for loc in find_credentials(manifest):
            name = manifest.get("metadata", {}).get("name", "?")
            fail(
                f"{manifest.get('kind', 'manifest')} {name}: {dotted(loc)} would carry a "
                "credential (a password or token in a URL); keep credentials in Secrets"
            )
    return manifests


def requester(requested_by: str | None) -> str:
    if requested_by:
        return requested_by
    try:
        return os.environ.get("PROMOFLOW_REQUESTED_BY") or getpass.getuser()
    except (KeyError, OSError):
        return ""


def apply_cmd(
    config: ConfigOption = Path("."),
    product: Annotated[
        str | None, typer.Option("--product", "-p", help="One product (default: all).")
    ] = None,
    argo_server: ArgoServerOption = None,
    namespace: NamespaceOption = None,
    steps: Annotated[
        bool,
        typer.Option(
            "--steps/--no-steps",
            help="Also the step templates (--no-steps: where Helm installs them).",
        ),
    ] = True,
) -> None:
    """Create or update the step templates and the products' WorkflowTemplates.

    Examples:
      $ promoflow apply -c environments
      $ promoflow apply -c environments -p shop -n promotions
      $ promoflow apply -c /etc/promoflow/config --no-steps
    """
    from orchestrator.compiler import CompileError, compile_product
    from orchestrator.compiler.compile import library_templates

    loaded = load_valid(config)
    if product is not None:
        check_product(loaded, product)
    step = step_settings()
    try:
        manifests = library_templates(step) if steps else []
        for name in [product] if product else sorted(loaded.products):
            manifests.append(compile_product(loaded, name, step).template)
    except CompileError as exc:
        fail(str(exc))
    guarded(manifests)
    client = client_for(argo_server, namespace)
    check_server_version(client)
    for manifest in manifests:
        result = client.apply_template(manifest)
        out.print(f"workflowtemplate/{manifest['metadata']['name']} {result}", markup=False)
    if steps and step.execution == "plugin":
        err.print(
            "note: plugin steps run in the executor plugin, whose ConfigMap the Argo Server "
            "cannot install: the chart does (workflows.execution=plugin), or "
            "`promoflow compile --library | kubectl apply -f -` (docs/execution.md)",
            markup=False,
        )


def check_server_version(client: ArgoClient) -> None:
    """Refuse an Argo Server older than promoflow needs before anything is applied: an
    older controller drops ``synchronization.mutexes`` in silence, and two promotions of
    one product then run at once (``orchestrator.compat``). A build that names no release
    is let through with a warning."""
    from orchestrator.adapters.argo import ArgoError
    from orchestrator.compat import MIN_ARGO_WORKFLOWS, is_prerelease, parse_version
    from orchestrator.compat import version_text as shown

    try:
        text = str(client.server_version().get("version") or "")
    except ArgoError as exc:
        fail(str(exc))
    found = parse_version(text)
    if found is None:
        err.print(
            f"warning: the Argo Server's version {text or '(none)'!r} names no release; "
            f"promoflow needs Argo Workflows {shown(MIN_ARGO_WORKFLOWS)} or later",
            markup=False,
        )
        return
    if found < MIN_ARGO_WORKFLOWS or (found == MIN_ARGO_WORKFLOWS and is_prerelease(text)):
        fail(
            f"the Argo Server runs Argo Workflows {text}; promoflow needs "
            f"{shown(MIN_ARGO_WORKFLOWS)} or later (its promotions take their product's lock "
            "with synchronization.mutexes, which older controllers drop): upgrade Argo Workflows"
        )


def promote_cmd(
    product: ProductOption,
    version: Annotated[str, typer.Option("--version", "-v", help="Version to promote.")],
    config: ConfigOption = Path("."),
    source_commit: Annotated[str, typer.Option(help="Commit the version was built from.")] = "",
    requested_by: Annotated[str | None, typer.Option(help="Who asks (default: $USER).")] = None,
    request_id: Annotated[str, typer.Option(help="Makes a repeated promotion a new run.")] = "",
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
    reject: Annotated[
        list[str] | None, typer.Option(help="Local: answer ENV[=REASON]'s approval NO.")
    ] = None,
    soak_scale: Annotated[
        float, typer.Option(min=0.0, help="Local: multiply soak durations (0.01 = 100x faster).")
    ] = 1.0,
    templates: LocalTemplatesOption = None,
    stand_ins: StandInsOption = False,
    runs_dir: RunsDirOption = RUNS_DIR,
    answer_as: Annotated[
        str,
        typer.Option(
            "--as",
            help="Local: who answers approvals (a user or e-mail the approver check reads; "
            "default: the requester).",
        ),
    ] = "",
    set_fields: SetOption = None,
) -> None:
    """Start a promotion: submit its Workflow and print the run's UI link (or run it here
    with --local).

    Examples:
      $ promoflow promote -c environments -p shop -v 1.4.2 --set image.digest=sha256:0f3...
      $ promoflow promote -c environments -p shop -v 1.4.2 --dry-run
      $ promoflow promote --local -c environments -p shop -v 1.4.2 --templates ./argo-templates
    """
    if local:
        from orchestrator.commands.local import MAX_SOAK_SCALE, promote_local

        asked = resolve_promotion(config, product, version, set_fields)
        finite(soak_scale, "--soak-scale", 0, MAX_SOAK_SCALE)
        promote_local(
            asked, source_commit, requester(requested_by), request_id,
            auto_approve=auto_approve, reject=reject or [], soak_scale=soak_scale,
            templates=templates, stand_ins=stand_ins, runs_dir=runs_dir, answer_as=answer_as,
        )  # fmt: skip
        return
    asked = resolve_promotion(config, product, version, set_fields)
    from orchestrator.compiler import PromotionRequest

    request = PromotionRequest(
        product, version, source_commit, requester(requested_by), request_id, asked.fields
    )
    submit(asked.config, request, dry_run, argo_server, namespace)


def submit(
    config: Config,
    request: PromotionRequest,
    dry_run: bool,
    argo_server: str | None,
    namespace: str | None,
) -> None:
    """Compile ``request``'s Workflow and submit it (``--dry-run``: print it), as
    ``promote`` and ``rollback`` both do; prints the run and its UI link."""
    from orchestrator.adapters.argo import AlreadyRunning, ArgoError
    from orchestrator.compiler import CompileError, compile_product
    from orchestrator.compiler.compile import to_yaml

    try:
        workflow = compile_product(config, request.product, step_settings(), request).workflow
    except CompileError as exc:
        fail(str(exc))
    assert workflow is not None
    guarded([workflow])
    if dry_run:
        sys.stdout.write(to_yaml(workflow))
        return
    client = client_for(argo_server, namespace)
    name = workflow["metadata"]["name"]
    try:
        client.create_workflow(workflow)
    except AlreadyRunning:
        out.print(f"{name} already running (same product, version and request)", markup=False)
        out.print(client.ui_link(name), markup=False)
        return
    except ArgoError as exc:
        hint = "; run `promoflow apply` to install the templates" if "not found" in str(exc) else ""
        fail(f"{exc}{hint}")
    out.print(f"{name} submitted", markup=False)
    out.print(client.ui_link(name), markup=False)
