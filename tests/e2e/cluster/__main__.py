"""``python -m tests.e2e.cluster {build,up,down,status,env}``: the local e2e control plane."""

from __future__ import annotations

import typer

app = typer.Typer(
    add_completion=False,
    no_args_is_help=True,
    help="Build and run a local Kubernetes + kwok + Argo CD + Argo Workflows on 127.0.0.1.",
)


@app.command()
def build(
    only: list[str] = typer.Option(None, "--only", help="Build just these components."),
    force: bool = typer.Option(False, help="Rebuild even when the stamp says up to date."),
) -> None:
    """Build every binary at its pinned version into the cache (skips what is built)."""
    from .build import build as run

    raise typer.Exit(run(only or None, force))


@app.command()
def built() -> None:
    """Exit 0 when every component is built at its pinned version in the cache; else say
    in one line what is missing and exit 1 (CI runs the e2e suite only then)."""
    from .build import components, is_built
    from .config import PATHS

    missing = [f"{c.name} {c.version}" for c in components() if not is_built(c)]
    if missing:
        typer.echo(f"not built in {PATHS.home}: {', '.join(missing)}")
        raise typer.Exit(1)
    typer.echo(f"every component is built in {PATHS.home}")


@app.command()
def up() -> None:
    """Start the control plane (building first if needed); reports and exits 0 if up."""
    from .ui import console
    from .up import up as run

    try:
        code = run()
    except Exception as e:  # a component failed: say what, not a traceback
        console.print(f"[red]up failed:[/] {e}")
        console.print("`status` shows what runs, `down` stops it; logs are in CACHE/logs.")
        code = 1
    raise typer.Exit(code)


@app.command()
def down(
    purge: bool = typer.Option(False, help="Also delete cluster state (etcd, certs, tokens)."),
) -> None:
    """Stop every component (SIGTERM, then SIGKILL)."""
    from .down import down as run

    raise typer.Exit(run(purge))


@app.command()
def status() -> None:
    """Show each component; exit 1 unless all of them run."""
    from .status import status as run

    raise typer.Exit(run())


@app.command()
def env() -> None:
    """Print `export` lines for the e2e suite: eval "$(python -m tests.e2e.cluster env)"."""
    from .envvars import print_env

    raise typer.Exit(print_env())


if __name__ == "__main__":
    app()
