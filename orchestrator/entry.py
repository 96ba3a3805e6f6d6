"""Console-script entry point, kept tiny so ``promoflow step ...`` starts fast.

Workflow pods run a step per node; they go straight to the step commands without importing
the rest of the CLI (Argo commands, rendering, the compiler).
"""

from __future__ import annotations

import sys


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "step":
        from orchestrator.commands.step import step_app

        step_app(args=sys.argv[2:], prog_name="promoflow step")
        return
    from orchestrator.cli import app

    app()


if __name__ == "__main__":
    main()
