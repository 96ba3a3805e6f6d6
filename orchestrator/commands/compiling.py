"""``promoflow compile``: flows into Argo WorkflowTemplates (and a promotion Workflow, the
Argo Events objects, the step library), with no cluster."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from orchestrator.commands.argo import (
    SetOption,
    guarded,
    output_option,
    requester,
    step_settings,
)
from orchestrator.commands.choices import check_product, output_format
from orchestrator.commands.common import ConfigOption, fail, load_valid, out
from orchestrator.commands.promotion import resolve_promotion
from orchestrator.manifest import Manifest

if TYPE_CHECKING:
    from orchestrator.graph.plan import ProductPlan

COMPILE_FORMATS = ("yaml", "json", "name")


def _manifests_text(manifests: list[Manifest], fmt: str) -> str:
    """yaml: one document per object; json: a kubectl ``List``; name: ``kind/name`` lines
    (the form ``apply`` prints and ``kubectl -o name`` uses)."""
    from orchestrator.compiler.compile import dump_all

    if fmt == "json":
        items = {"apiVersion": "v1", "kind": "List", "items": manifests}
        return json.dumps(items, indent=2, ensure_ascii=False) + "\n"
    if fmt == "name":
        return "".join(f"{m['kind'].lower()}/{m['metadata']['name']}\n" for m in manifests)
    return dump_all(manifests)


_KIND_IN_FILE_NAME = ("EventSource", "Sensor")


def _file_name(manifest: Manifest, fmt: str) -> str:
    """``promoflow-shop.yaml`` for Argo Workflows objects, as always; Argo Events objects
    get their kind in front (``sensor-promoflow-shop.yaml``): a Sensor is named like its
    product's WorkflowTemplate and would otherwise overwrite its file."""
    name = manifest["metadata"]["name"]
    kind = manifest.get("kind", "")
    prefix = f"{kind.lower()}-" if kind in _KIND_IN_FILE_NAME else ""
    return f"{prefix}{name}.{fmt}"


def compile_cmd(
    config: ConfigOption = Path("."),
    product: Annotated[
        str | None, typer.Option("--product", "-p", help="One product (default: all).")
    ] = None,
    version: Annotated[
        str | None,
        typer.Option(
            "--version", "-v", help="Also emit the Workflow promoting this version (needs -p)."
        ),
    ] = None,
    source_commit: Annotated[str, typer.Option(help="Commit the version was built from.")] = "",
    requested_by: Annotated[str | None, typer.Option(help="Who asks (default: $USER).")] = None,
    request_id: Annotated[str, typer.Option(help="Makes a repeated promotion a new run.")] = "",
    library: Annotated[
        bool,
        typer.Option(
            "--library",
            help="Include the reusable step templates (and, with PROMOFLOW_EXECUTION=plugin, "
            "the executor plugin's ConfigMap).",
        ),
    ] = False,
    events: Annotated[
        bool,
        typer.Option(
            "--events",
            help="Also emit an Argo Events EventSource and a Sensor per product that start "
            "promotions as promoflow's webhook service does (docs/webhooks.md).",
        ),
    ] = False,
    set_fields: SetOption = None,
    output: Annotated[str | None, output_option(COMPILE_FORMATS, "yaml")] = None,
    output_dir: Annotated[
        Path | None,
        typer.Option(
            "--output-dir",
            help="Write one file per object into this folder (yaml, or json with -o json).",
        ),
    ] = None,
) -> None:
    """Compile flows into Argo WorkflowTemplates (and a promotion Workflow with --version).

    Examples:
      $ promoflow compile -c environments -p shop                  # YAML to stdout
      $ promoflow compile -c environments -p shop -v 1.4.2 --set image.digest=sha256:0f3... -o json
      $ promoflow compile -c environments --library --output-dir argo/
      $ promoflow compile -c environments --events -o name
    """
    from orchestrator.compiler import CompileError, PromotionRequest, compile_product
    from orchestrator.compiler.compile import library_templates, to_yaml

    fmt = output_format(
        output, COMPILE_FORMATS, default="yaml", hint="--output-dir DIR writes files"
    )
    if output_dir is not None and fmt == "name":
        raise typer.BadParameter("--output-dir writes yaml or json files", param_hint="--output")
    if events and version is not None:
        raise typer.BadParameter(
            "--events emits what starts promotions when a request arrives; it takes no "
            "--version (leave --version out, or compile the two separately)",
            param_hint="--events",
        )
    if version is not None and product is None:
        raise typer.BadParameter("--version needs --product", param_hint="--version")
    if product is not None and version is not None:
        asked = resolve_promotion(config, product, version, set_fields)
        loaded, fields = asked.config, asked.fields
    else:
        if set_fields:
            raise typer.BadParameter("--set comes with --version", param_hint="--set")
        loaded, fields = load_valid(config), {}
        if product is not None:
            check_product(loaded, product)
    step = step_settings()
    manifests = library_templates(step) if library else []
    if library and step.execution == "plugin":
        from orchestrator.compiler.executor_plugin import configmap

        manifests.append(configmap(step))  # what runs the plugin steps (docs/execution.md)
    try:
        plans: list[ProductPlan] = []
        for name in [product] if product else sorted(loaded.products):
            request = None
            if version is not None:
                request = PromotionRequest(
                    name, version, source_commit, requester(requested_by), request_id, fields
                )
            compiled = compile_product(loaded, name, step, request=request)
            manifests += compiled.manifests()
            plans.append(compiled.plan)
        if events:
            from orchestrator.compiler.events import events_manifests

            manifests += events_manifests(plans, step)
    except CompileError as exc:
        fail(str(exc))
    guarded(manifests)
    if output_dir is None:
        sys.stdout.write(_manifests_text(manifests, fmt))
        return
    output_dir.mkdir(parents=True, exist_ok=True)
    for manifest in manifests:
        path = output_dir / _file_name(manifest, fmt)
        text = json.dumps(manifest, indent=2) + "\n" if fmt == "json" else to_yaml(manifest)
        path.write_text(text)
        out.print(f"wrote {path}", markup=False)
