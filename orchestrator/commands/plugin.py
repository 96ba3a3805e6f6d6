"""``promoflow plugin serve``: the executor plugin, as the agent pod's sidecar runs it.

The chart's ``promoflow-executor-plugin`` ConfigMap starts it; ``orchestrator.plugin``
says what it does. It listens on 127.0.0.1 only: the agent calls ``localhost`` in its
own pod, and nothing else has a reason to reach it.
"""

from __future__ import annotations

import logging
import os
import sys
from pathlib import Path
from typing import Annotated

import typer

from orchestrator.commands.common import fail
from orchestrator.commands.helpstyle import App
from orchestrator.plugin.protocol import PORT

TOKEN_FILE = Path("/var/run/argo/token")

plugin_app = App(
    name="plugin",
    help="Argo Workflows executor plugin: runs the steps of every run in one process.",
    no_args_is_help=True,
    add_completion=False,
)


@plugin_app.callback()
def plugin_group() -> None:
    """Argo Workflows executor plugin: runs the steps of every run in one process."""
    # a callback keeps `serve` a subcommand when this app runs on its own (entry.py)


def _run_step(argv: list[str]) -> int:
    from orchestrator.commands.invoke import run
    from orchestrator.commands.step import step_app

    return run(step_app, argv[1:], "promoflow step")


@plugin_app.command("serve")
def serve_cmd(
    port: Annotated[int, typer.Option(min=1, max=65535, help="Port to listen on.")] = PORT,
    host: Annotated[str, typer.Option(help="Address to listen on.")] = "127.0.0.1",
    token_file: Annotated[
        Path, typer.Option(help="The token Argo's agent sends (written by `agent init`).")
    ] = TOKEN_FILE,
    poll: Annotated[
        float, typer.Option(min=1.0, max=25.0, help="Seconds a call waits for its step.")
    ] = 20.0,
) -> None:
    """Serve the agent's calls until SIGTERM; each step runs in a forked child."""
    import signal
    import socket

    # PID 1 of its container: a signal without a handler is ignored, so until uvicorn
    # installs its own, SIGTERM ends the process here
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(128 + signal.SIGTERM))

    # Listen before the imports below (a second and more): the agent calls as soon as
    # its pod starts, and a refused connection costs it a backoff of 1 s, then 2 s; a
    # call that waits in the backlog costs nothing.
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        listener.bind((host, port))
    except OSError as exc:
        fail(f"cannot listen on {host}:{port}: {exc.strerror}")
    listener.listen(128)

    import uvicorn

    from orchestrator.plugin import warm
    from orchestrator.plugin.app import PluginApp
    from orchestrator.plugin.child import Child, step_env
    from orchestrator.plugin.jobs import Jobs
    from orchestrator.plugin.protocol import StepCall
    from orchestrator.steps import registry

    try:
        token = token_file.read_text().strip()
    except OSError as exc:
        fail(f"{token_file}: cannot read the agent's token: {exc.strerror}")
    if not token:
        fail(f"{token_file}: the agent's token is empty")
    credentials = set(registry.CREDENTIALS.values())
    base = dict(os.environ)
    warmed = False

    def launch(call: StepCall) -> Child:
        nonlocal warmed
        try:
            needs = registry.get(call.step).needs
        except KeyError:
            needs = frozenset()
        keep = {registry.CREDENTIALS[need] for need in needs}
        child = Child(
            list(call.args), step_env(base, keep, credentials), _run_step, deadline=call.deadline
        )
        child.start_watching()
        if not warmed:  # see orchestrator.plugin.warm: while the first step runs
            warmed = True
            programs = {spec.run.__module__ for spec in registry.steps() if spec.run}
            warm.warm(warm.lazy_imports(sorted(programs)))
        return child

    # the steps' modules, imported once here, are what every forked child starts with
    registry.steps()
    from orchestrator.commands import step as _step  # noqa: F401

    logging.basicConfig(level=logging.INFO, stream=sys.stderr, format="%(asctime)s %(message)s")
    app = PluginApp(Jobs(launch, poll=poll), token)
    config = uvicorn.Config(
        app, access_log=False, log_level="warning", lifespan="on", timeout_graceful_shutdown=1
    )
    uvicorn.Server(config).run(sockets=[listener])
