"""``promoflow reporter``: the options are the reporter's own (``reporters.run``), so
``python -m reporters`` and this command take the same ones."""

from __future__ import annotations

import typer


def reporter_cmd(ctx: typer.Context) -> None:
    """Watch Argo CD Applications and report every real change (--help for options).

    Examples:
      $ promoflow reporter --sink stdout
      $ promoflow reporter -n argocd --sink https://hooks.example.com/argocd
    """
    from reporters.run import main

    raise typer.Exit(main(ctx.args))
