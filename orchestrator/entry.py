"""Console-script entry point, kept tiny so ``promoflow step ...`` starts fast.

Workflow pods run a step per node; they go straight to the step commands without importing
the rest of the CLI (Argo commands, rendering, the compiler). How errors are printed:
:mod:`orchestrator.commands.invoke`.
"""

from __future__ import annotations

import sys


def main() -> None:
    # httpx imports its own command line client (rich, click, pygments) when those are
    # installed; promoflow never runs it, and skipping it saves ~30 ms per step start.
    sys.modules.setdefault("httpx._main", None)  # type: ignore[arg-type]
    from orchestrator.commands.invoke import run

    if len(sys.argv) > 1 and sys.argv[1] == "step":
        from orchestrator.commands.step import step_app

        sys.exit(run(step_app, sys.argv[2:], "promoflow step"))
    if len(sys.argv) > 1 and sys.argv[1] == "plugin":  # the agent waits for it to listen
        from orchestrator.commands.plugin import plugin_app

        sys.exit(run(plugin_app, sys.argv[2:], "promoflow plugin"))
    from orchestrator.cli import app

    sys.exit(run(app, sys.argv[1:], "promoflow"))


if __name__ == "__main__":
    main()
