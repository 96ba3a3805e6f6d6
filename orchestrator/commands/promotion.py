"""What a command is asked to promote, resolved and checked in one place.

``promote``, ``promote --local``, ``compile --version`` and ``diff`` all take a product, a
version and the version's fields (``--set PATH=VALUE``). They must accept and refuse
exactly the same requests: a ``diff`` that shows a change ``promote`` then refuses (a field
the template does not declare, a version without its digest) is a diff of nothing. Each
calls :func:`resolve_promotion`, so the checks, their order and their words are the same.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import typer

from orchestrator.commands.choices import check_product, check_version_fields, version_fields
from orchestrator.commands.common import fail, load_valid

if TYPE_CHECKING:
    from orchestrator.graph.plan import ProductPlan
    from orchestrator.loading import Config


@dataclass(frozen=True)
class Promotion:
    """A checked request: the configuration, the product's plan, the version (``None``:
    none asked, for ``diff`` into an environment that copies from another) and its
    fields."""

    config: Config
    plan: ProductPlan
    version: str | None
    fields: dict[str, str]

    @property
    def product(self) -> str:
        return self.plan.product.name


def resolve_promotion(
    config: Path, product: str, version: str | None, set_fields: list[str] | None
) -> Promotion:
    """Load ``config`` and check a request for ``product``: the version is not empty and
    is one the product's template accepts (``versionPattern``), every
    ``--set`` is ``PATH=VALUE`` and given once, and with a version, the fields are exactly
    those the product's template declares (``versionSource.fields``). A usage error (exit
    2) or the configuration's problems (exit 1) otherwise."""
    from orchestrator.graph.plan import CompileError, plan_product

    if version is not None and not version.strip():
        raise typer.BadParameter("the version cannot be empty", param_hint="--version")
    fields = version_fields(set_fields)
    if fields and version is None:
        raise typer.BadParameter("--set comes with --version", param_hint="--set")
    loaded = load_valid(config)
    check_product(loaded, product)
    try:
        plan = plan_product(loaded, product)
    except CompileError as exc:
        fail(str(exc))
    if version is not None:
        from orchestrator.model.template import version_rule

        refusal = version_rule(plan.template).refusal(version)
        if refusal is not None:
            raise typer.BadParameter(refusal, param_hint="--version")
        source = plan.template.spec.version_source
        check_version_fields(source.fields if source else [], fields, product)
    return Promotion(loaded, plan, version, fields)
