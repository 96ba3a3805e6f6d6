"""``status``: one row per component and where the credentials are; exit 1 unless all run."""

from __future__ import annotations

from rich.table import Table

from .config import PATHS
from .procs import log_file, running_pid
from .services import SERVICES
from .ui import console


def status() -> int:
    table = Table(title=f"promoflow e2e cluster ({PATHS.home})")
    for col in ("component", "state", "pid", "address", "log"):
        table.add_column(col)
    all_up = True
    for svc in SERVICES:
        pid = running_pid(svc.name)
        all_up &= pid is not None
        state = "[green]running[/]" if pid else "[red]stopped[/]"
        table.add_row(svc.name, state, str(pid or "-"), svc.address, str(log_file(svc.name)))
    console.print(table)
    files = {
        "kubeconfig": PATHS.kubeconfig,
        "Argo CD token (account promoflow)": PATHS.argocd_token,
        "Argo CD admin password": PATHS.argocd_admin_password,
        "Argo token (promoflow-e2e)": PATHS.argo_token,
        "Argo token (promoflow-e2e-other)": PATHS.argo_token_other,
        "git repositories": PATHS.git_root,
    }
    for label, path in files.items():
        mark = "" if path.exists() else " [red](missing)[/]"
        console.print(f"{label}: {path}{mark}")
    return 0 if all_up else 1
