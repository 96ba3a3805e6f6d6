"""Values a flag must be one of (an output format, a product): refused with the valid ones.

kubectl, argo and argocd users type ``-o json`` and ``-p NAME`` without reading the help
first; when the value is not one promoflow knows, the usage error lists the ones it does
(and the closest, for a typo), so the next try is the right one. Formats are plain strings
checked here rather than click choices, so every command words the refusal the same way.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING

import typer

if TYPE_CHECKING:
    from orchestrator.loading import Config


def completer(values: Sequence[str]) -> Callable[[], list[str]]:
    """Shell completion of a flag's values (``promoflow runs -o <TAB>``)."""
    return lambda: list(values)


def output_format(
    value: str | None, formats: Sequence[str], *, default: str = "", hint: str = ""
) -> str:
    """``value`` if it is one of ``formats`` (``default`` when not given), else a usage
    error naming the valid ones; ``hint`` is added to the refusal (e.g. where files go)."""
    if value is None or value == "":
        return default
    if value in formats:
        return value
    extra = f" ({hint})" if hint else ""
    raise typer.BadParameter(
        f"unknown format {value!r}; one of: {', '.join(formats)}{extra}",
        param_hint="--output",
    )


def closest(word: str, candidates: Iterable[str]) -> str | None:
    """The candidate ``word`` was probably meant to be, if any is close enough."""
    close = difflib.get_close_matches(word, sorted(candidates), n=1, cutoff=0.6)
    return close[0] if close else None


def check_product(config: Config, product: str) -> None:
    """A usage error for a product the configuration does not define, listing those it does:
    ``unknown product 'shpo' (products: checkout, shop; did you mean shop?)``."""
    if product in config.products:
        return
    known = sorted(config.products)
    listed = f"products: {', '.join(known)}" if known else "the configuration defines none"
    guess = closest(product, known)
    also = f"; did you mean {guess}?" if guess else ""
    raise typer.BadParameter(
        f"unknown product {product!r} ({listed}{also})", param_hint="--product"
    )


def version_fields(values: Iterable[str] | None) -> dict[str, str]:
    """``--set image.digest=sha256:...`` flags as ``path -> value``."""
    from orchestrator.model.yamlpath import split_assignment

    fields: dict[str, str] = {}
    for item in values or []:
        path, value = split_assignment(item) or ("", "")
        if not path.strip() or not value:
            raise typer.BadParameter(f"{item!r} is not PATH=VALUE", param_hint="--set")
        if path.strip() in fields and fields[path.strip()] != value:
            raise typer.BadParameter(
                f"{path.strip()} is given twice, with different values", param_hint="--set"
            )
        fields[path.strip()] = value
    return fields


def check_version_fields(plan_fields: Sequence[str], given: dict[str, str], product: str) -> None:
    """Every field the product's template requires with a version, and no other."""
    unknown = sorted(set(given) - set(plan_fields))
    if unknown:
        known = ", ".join(plan_fields) or "none"
        raise typer.BadParameter(
            f"{unknown[0]!r} is not a field of {product}'s version (fields: {known})",
            param_hint="--set",
        )
    missing = [f for f in plan_fields if f not in given]
    if missing:
        raise typer.BadParameter(
            f"a version of {product} comes with {', '.join(missing)}: add --set {missing[0]}=VALUE",
            param_hint="--set",
        )
