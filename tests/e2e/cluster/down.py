"""``down``: stop every component, last started first; ``--purge`` also forgets the cluster
(etcd data, certificates, tokens, git repositories) but keeps the built binaries."""

from __future__ import annotations

import shutil

from .config import PATHS
from .procs import pid_file, running_pid, stop
from .services import ALL_SERVICES
from .ui import Board, console


def down(purge: bool) -> int:
    with Board() as board:
        for svc in reversed(ALL_SERVICES):  # whichever pods mode started them
            with board.step(svc.name, "stopping") as step:
                if svc.before_stop and running_pid(svc.name) is not None:
                    step.say("cleaning up")
                    svc.before_stop()
                stopped = stop(svc.name, svc.stop_timeout)
                if svc.after_stop:
                    svc.after_stop()
                step.done("stopped" if stopped else "was not running")
                pid_file(svc.name).unlink(missing_ok=True)
    if purge:
        for path in (PATHS.state, PATHS.run):
            shutil.rmtree(path, ignore_errors=True)
        for f in (
            PATHS.kubeconfig,
            PATHS.argocd_token,
            PATHS.argo_token,
            PATHS.argo_token_other,
        ):
            f.unlink(missing_ok=True)
        console.print(f"purged cluster state under {PATHS.home} (binaries kept in {PATHS.bin})")
    return 0
