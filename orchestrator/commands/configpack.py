"""``promoflow config pack DIR``: a configuration directory as a ConfigMap that keeps its
folders (:mod:`orchestrator.loading.packed` says why ``kubectl create configmap
--from-file`` cannot)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated, Any

import typer
import yaml

from orchestrator.commands.common import fail
from orchestrator.commands.helpstyle import App

config_app = App(
    name="config",
    help="Package the configuration for the cluster.",
    add_completion=False,
    no_args_is_help=True,
)


@config_app.command("pack")
def pack_cmd(
    directory: Annotated[Path, typer.Argument(help="The configuration directory.")],
    name: Annotated[
        str, typer.Option("--name", metavar="NAME", help="The ConfigMap's name.")
    ] = "promoflow-config",
    namespace: Annotated[
        str, typer.Option("--namespace", "-n", help="Its namespace (default: none set).")
    ] = "",
) -> None:
    """Print a ConfigMap of every configuration file under DIRECTORY, folders included,
    with a manifest the webhook service and the apply job check: a ConfigMap that lost a
    file is refused, not half-loaded.

    Examples:
      $ promoflow config pack environments/ -n promoflow | kubectl apply -f -
      $ promoflow config pack environments/ > promoflow-config.yaml
    """
    from orchestrator.loading.packed import PackError, configmap, files_under, pack
    from orchestrator.names import check_dns_label, check_namespace

    if not directory.is_dir():
        raise typer.BadParameter(f"{directory} is not a directory", param_hint="DIRECTORY")
    try:
        check_dns_label(name, what="ConfigMap name")
    except ValueError as exc:
        fail(f"--name: {exc}", 2)
    if namespace:
        try:
            check_namespace(namespace)
        except ValueError as exc:
            fail(f"--namespace: {exc}", 2)
    try:
        data = pack(files_under(directory))
    except PackError as exc:
        fail(str(exc))
    sys.stdout.write(yaml.dump(configmap(name, namespace, data), Dumper=_Readable, sort_keys=False))


def _block(dumper: Any, text: str) -> Any:
    """Files as ``|`` blocks, as they read in the directory (PyYAML falls back to quoting
    a text it cannot write so, such as one with trailing spaces)."""
    style = "|" if "\n" in text else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", text, style=style)


class _Readable(yaml.SafeDumper):
    pass


_Readable.add_representer(str, _block)
