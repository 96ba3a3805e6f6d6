"""``up``: build what is missing, make certs once, start every service in order, waiting
for each to be ready before the next one, and hand out the API tokens.

Idempotent: services already running are left alone (and reported), so ``up`` on a running
cluster just confirms it and exits 0; after ``down`` it is a warm start from existing state.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable

from . import node
from .build import build, components, is_built, link_argocd
from .config import LOOPBACK, PATHS, REAL_PODS
from .kube import NotReady, tcp_ok, wait_for
from .kubeconfig import write_kubeconfigs
from .pki import ensure_pki
from .procs import log_file, log_tail, running_pid, start, why_not_running
from .services import SERVICES
from .ui import Board, console, fmt_seconds

UP_TIMES = PATHS.state / "up-times.json"


def up() -> int:
    started = time.monotonic()
    link_argocd()
    if all(running_pid(s.name) for s in SERVICES):
        # tools the services run from their PATH, added since the cluster started
        tools = [c.name for c in components() if c.hot and not is_built(c)]
        if tools and build(tools) != 0:
            return 1
        if REAL_PODS:  # the step image follows the checkout
            node.load_images()
        console.print("[green]already up[/]: every component is running (see `status`).")
        return 0
    missing = [c.name for c in components() if not is_built(c)]
    if missing:
        console.print(f"building first: {', '.join(missing)}")
        if build(missing) != 0:
            return 1
    for d in (PATHS.state, PATHS.etcd_data, PATHS.git_root, PATHS.run, PATHS.logs):
        d.mkdir(parents=True, exist_ok=True)
    PATHS.etcd_data.chmod(0o700)
    cold = ensure_pki()
    write_kubeconfigs()
    # A start time only means something when the control plane itself was started (not
    # when, say, only the pod runner was missing).
    timed = running_pid(SERVICES[0].name) is None
    with Board() as board:
        for svc in SERVICES:
            with board.step(svc.name, "starting") as step:
                pid = running_pid(svc.name)
                if pid is not None:
                    if svc.after:
                        svc.after()
                    step.done(f"already running (pid {pid})")
                    continue
                busy = [p for p in svc.ports if tcp_ok(LOOPBACK, p)]
                if busy:
                    raise RuntimeError(
                        f"{svc.name}: port(s) {busy} already in use by another process "
                        "(`ss -ltnp` says which)"
                    )
                if svc.before:
                    step.say("configuring")
                    svc.before()
                pid = start(svc.name, svc.command(), env=svc.env(), expect=svc.expect)
                step.say(f"starting (pid {pid})")
                try:
                    wait_for(
                        svc.ready,
                        what=svc.name,
                        timeout=svc.timeout,
                        alive=_alive(svc.name),
                    )
                except NotReady:
                    reason = why_not_running.get(svc.name, "")
                    console.print(f"[red]{svc.name}[/] {reason}; log {log_file(svc.name)}:")
                    console.print(log_tail(svc.name), markup=False, highlight=False)
                    raise
                if running_pid(svc.name) is None:
                    raise NotReady(f"{svc.name}: exited right after becoming ready")
                if svc.after:
                    step.say("issuing tokens")
                    svc.after()
                step.done(f"ready at {svc.address} (pid {pid})")
    if REAL_PODS:  # before any pod: the images, and a step image of this checkout
        node.load_images()
    seconds = time.monotonic() - started
    if timed:
        _record(seconds, cold)
    console.print(
        f"[green]up[/] in {fmt_seconds(seconds)} ({'first start' if cold else 'warm start'}). "
        f'KUBECONFIG={PATHS.kubeconfig}; eval "$(python -m tests.e2e.cluster env)"'
    )
    return 0


def _alive(name: str) -> Callable[[], bool]:
    return lambda: running_pid(name) is not None


def _record(seconds: float, cold: bool) -> None:
    try:
        times = json.loads(UP_TIMES.read_text())
    except (OSError, ValueError):
        times = {}
    times["first" if cold else "warm"] = round(seconds, 1)
    UP_TIMES.write_text(json.dumps(times, indent=2) + "\n")
