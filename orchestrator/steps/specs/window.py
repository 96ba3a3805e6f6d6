"""``window``: hold the promotion until the environment's promotion windows are open.

It runs right before the deploy, after any approval: a change approved on Friday evening
waits for Monday morning, and the commit never lands inside a freeze. A window with
``whenClosed: fail`` fails the environment at once, naming when it opens. The node's log
says why it waits (``frozen until Mon 08:00 Europe/Berlin (weekend)``).
"""

from __future__ import annotations

import json
import sys
import time
from typing import TYPE_CHECKING, NamedTuple

from orchestrator.steps.registry import EXITS, Input, StepSpec, TaskKind, register

if TYPE_CHECKING:
    from pathlib import Path


class Inputs(NamedTuple):
    product: str
    environment: str
    windows: str
    poll: str
    outputs: Path | None


def run(inputs: Inputs) -> None:
    """Wait until open; fail at a ``whenClosed: fail`` window."""
    from pydantic import ValidationError

    from orchestrator.steps import support
    from orchestrator.steps.window import WindowClosed, hold, parse_windows

    poll = support.seconds(inputs.poll, "--poll")
    try:
        windows = parse_windows(inputs.windows)
    except (ValueError, ValidationError) as exc:
        support.usage(f"--windows: {str(exc).splitlines()[0]}", "--windows")
    try:
        state, waited = hold(windows, poll=max(poll, 1.0), sleep=time.sleep, say=support.say)
    except WindowClosed as exc:
        support.fail(f"{inputs.product} into {inputs.environment}: {exc}")
    names = ", ".join(w.name for w in windows) or "none"
    support.say(f"{inputs.environment} is open (windows: {names}); waited {waited:.0f} s")
    sys.stdout.write(
        json.dumps({"environment": inputs.environment, "open": state.open, "waited": waited}) + "\n"
    )


SPEC = register(
    StepSpec(
        name="window",
        summary="Hold the promotion until the environment's promotion windows are open.",
        doc=__doc__ or "",
        inputs=(
            Input("product", short="-p", help="The product (for messages)."),
            Input("environment", help="Target environment (for messages)."),
            Input("windows", "[]", help="JSON: the PromotionWindows that apply here."),
            Input("poll", "60s", help="How often to look again while closed, e.g. 60s."),
        ),
        exits={**EXITS, 1: "a window closed it and says fail (or never opens)"},
        deadline=None,
        run=run,
        takes=Inputs,
        tasks=(TaskKind("window", rank=35),),
    )
)
