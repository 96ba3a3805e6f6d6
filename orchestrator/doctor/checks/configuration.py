"""The promoflow configuration, read by the same loader as ``promoflow validate``: the
products whose apps and repositories the later families check."""

from __future__ import annotations

from orchestrator.doctor.context import Context
from orchestrator.doctor.report import Line, fail, ok

ORDER = 10
TITLE = "Configuration"


def run(context: Context, earlier: list[Line]) -> list[Line]:
    where = context.config_source or "the configuration"
    if context.config_problems:
        shown = context.config_problems[0]
        more = len(context.config_problems) - 1
        detail = shown + (f" (and {more} more)" if more > 0 else "")
        if "://" in where:  # followed in Git: the service refuses the same revision
            fix = "fix the configuration in Git (or the access the detail names)"
        else:
            fix = f"run: promoflow validate -c {where}"
        return [fail(TITLE, "valid", detail, fix)]
    if context.config is None:
        return [fail(TITLE, "valid", f"{where}: not read", "give the configuration with -c")]
    products = sorted(context.config.products)
    if not products:
        return [
            fail(TITLE, "products", f"{where} defines no Product", "add a Product (see the README)")
        ]
    return [ok(TITLE, "products", f"{len(products)} in {where}: {', '.join(products)}")]
