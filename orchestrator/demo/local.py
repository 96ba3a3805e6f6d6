"""``promoflow demo``: the whole job on a laptop, in well under a minute.

A GitOps repository is created from the example configuration and served over smart HTTP
(``git http-backend``, with a token), an Argo CD stand-in follows it, and a new version of
a product is promoted along its flow by the local engine, running the same compiled
Workflow a cluster would run: commits pushed by the promote step, the wait step watching
the stand-in over HTTP, the approval answered automatically, the soak shortened, the HTTP
gate and the team's own templates calling a local status page. Then ``git log`` shows
what landed where.
"""

from __future__ import annotations

import secrets
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pygit2
from rich.console import Console
from rich.table import Table

from orchestrator.compiler import PromotionRequest
from orchestrator.demo.seed import commit_files, field_value, product_files
from orchestrator.engine.model import Phase, RunRecord
from orchestrator.graph.plan import ProductPlan, plan_product
from orchestrator.loading.config import Config
from orchestrator.local.localize import localize
from orchestrator.local.session import LocalOptions, run_local
from orchestrator.local.status_page import StatusPage, serve_status_page
from orchestrator.model.gates.approval import ApprovalGate
from orchestrator.model.gates.soak import SoakGate
from orchestrator.simulator.git_http import GitHttpServer, init_bare_repo

SEED_VERSION = "1.4.1"
GIT_USER = "promoflow-demo"


@dataclass(frozen=True)
class DemoOptions:
    product: str = "shop"
    version: str = "1.5.0"
    keep: Path | None = None
    fail: str | None = None
    """Environment whose app the Argo CD stand-in turns Degraded (shows a failed gate)."""
    reject: str | None = None
    """Environment whose approval is answered NO."""
    soak_seconds: float = 2.0
    """What the longest soak of the flow is shortened to."""
    answer_as: str | None = None
    """Who answers the approvals (default: an approver the policies list)."""
    stale_image: str | None = None
    """Environment whose app keeps running its image whatever is promoted, as a chart that
    reads another value would (shows the image check failing the gate)."""


@dataclass(frozen=True)
class DemoResult:
    record: RunRecord
    repo: Path
    record_path: Path
    seed: str


def seed_repository(config: Config, bare: Path) -> str:
    """Every product's files in every environment at SEED_VERSION; one commit."""
    files: dict[str, bytes] = {}
    branches = set()
    for name in sorted(config.products):
        plan = plan_product(config, name)
        files.update(product_files(plan, SEED_VERSION))
        branches.add(plan.product.spec.repo.branch)
    files["README.md"] = b"# GitOps repository created by `promoflow demo`\n"
    return commit_files(bare, files, f"Environments at {SEED_VERSION}", sorted(branches)[0])


def soak_scale(config: Config, product: str, seconds: float) -> float:
    plan = plan_product(config, product)
    longest = max(
        (
            soak.duration.total_seconds()
            for env in plan.environments
            if (soak := env.policy.gate(SoakGate)) is not None
        ),
        default=0.0,
    )
    return seconds / longest if longest else 1.0


def promotion_log(bare: Path, since: str, branch: str) -> list[tuple[str, str, list[str]]]:
    """``(sha, subject, files)`` of every commit after ``since``, oldest first."""
    repo = pygit2.Repository(str(bare))
    head = repo.references[f"refs/heads/{branch}"].target
    out = []
    for commit in repo.walk(head, pygit2.enums.SortMode.TOPOLOGICAL):
        if str(commit.id) == since:
            break
        parent = commit.parents[0] if commit.parents else None
        diff = repo.diff(parent, commit) if parent else commit.tree.diff_to_tree()
        files = sorted({delta.new_file.path for delta in diff.deltas})
        out.append((str(commit.id), commit.message.splitlines()[0], files))
    return list(reversed(out))


def show_log(console: Console, log: list[tuple[str, str, list[str]]]) -> None:
    table = Table(title="git log of the promotion commits", title_justify="left")
    for column in ("commit", "message", "files"):
        table.add_column(column)
    for sha, subject, files in log:
        table.add_row(sha[:12], subject, "\n".join(files))
    console.print(table)


def _announce(console: Console, changes: list[str]) -> None:
    for change in changes:
        console.print(f"  [dim]·[/] {change}", highlight=False)


@dataclass(frozen=True)
class DemoWorld:
    """What a demo runs against: a served GitOps repository, the configuration pointed at
    it, and the local run options that make the stand-ins follow it."""

    root: Path
    bare: Path
    url: str
    username: str
    token: str
    config: Config
    plan: ProductPlan
    seed: str
    run_options: LocalOptions


@contextmanager
def demo_world(config: Config, options: DemoOptions, console: Console) -> Iterator[DemoWorld]:
    """Seed and serve the repository, start the status page, localize the configuration;
    everything is removed afterwards unless ``--keep`` names a directory."""
    root = options.keep or Path(tempfile.mkdtemp(prefix="promoflow-demo-"))
    root.mkdir(parents=True, exist_ok=True)
    bare = root / "gitops.git"
    if bare.exists():
        shutil.rmtree(bare)
    init_bare_repo(bare)
    seed = seed_repository(config, bare)
    token = secrets.token_urlsafe(24)
    page = StatusPage()
    try:
        with (
            GitHttpServer(root, username=GIT_USER, password=token) as git,
            serve_status_page(page) as status,
        ):
            url = git.repo_url("gitops")
            local = localize(config, url, status + page.status_url)
            plan = plan_product(local.config, options.product)
            console.print(
                f"[bold]promoflow demo[/]: {options.product} {options.version}, {plan.route()}"
            )
            console.print(f"  [dim]·[/] GitOps repository {bare} served at {url} (token auth)")
            _announce(console, local.changes)
            fail = {}
            if options.fail:
                app = plan.environment(options.fail).app.argocd_app
                fail[app] = f"simulated failure: {app} pods crash-looping"
                console.print(f"  [dim]·[/] the Argo CD simulator will fail {app}")
            stale: tuple[str, ...] = ()
            if options.stale_image:
                app = plan.environment(options.stale_image).app.argocd_app
                stale = (app,)
                console.print(
                    f"  [dim]·[/] the Argo CD simulator will keep {app}'s pods on their image "
                    "(a chart that ignores the promoted value)"
                )
            run_options = LocalOptions(
                auto_approve=True,
                answer_as=options.answer_as or listed_approver(plan),
                reject={options.reject: "rejected in the demo"} if options.reject else {},
                soak_scale=soak_scale(local.config, options.product, options.soak_seconds),
                backoff_scale=0.05,
                use_stand_ins=True,
                runs_dir=root / ".promoflow" / "runs",
                repos={url: bare},
                fail_apps=fail,
                stale_images=stale,
                extra_env={"GIT_USERNAME": GIT_USER, "GIT_TOKEN": token},
            )
            yield DemoWorld(root, bare, url, GIT_USER, token, local.config, plan, seed, run_options)
    finally:
        if options.keep is None:
            shutil.rmtree(root, ignore_errors=True)


def approvals_line(console: Console, world: DemoWorld, options: DemoOptions) -> None:
    console.print(
        f"  [dim]·[/] approvals answered automatically as {world.run_options.answer_as}; "
        f"soak shortened to {options.soak_seconds:g}s"
    )


def run_demo(config: Config, options: DemoOptions, console: Console) -> DemoResult:
    with demo_world(config, options, console) as world:
        plan = world.plan
        source = plan.template.spec.version_source
        request = PromotionRequest(
            options.product,
            options.version,
            version_fields={
                f: field_value(f, options.version) for f in (source.fields if source else [])
            },
            source_commit="",  # no application build behind the demo's version
            requested_by="demo",
            request_id=secrets.token_hex(4),
        )
        record, path = run_local(
            world.config,
            plan,
            request,
            world.run_options,
            console,
            # where Argo CD is (the simulator) follows in the run's own header
            announce=lambda _: approvals_line(console, world, options),
        )
        show_log(console, promotion_log(world.bare, world.seed, plan.product.spec.repo.branch))
        if options.keep:
            console.print(f"run record: {path}", highlight=False)
            console.print(
                f"kept: {world.bare} (try: git --git-dir {world.bare} log --stat)",
                highlight=False,
            )
        else:
            console.print("(--keep DIR keeps the repository and the run record)")
        return DemoResult(record, world.bare, path, world.seed)


def listed_approver(plan: ProductPlan) -> str:
    """Someone the flow's policies list as an approver (the workflow checks who answered),
    so the demo's automatic answers pass that check as a real approver's would."""
    for env in plan.environments:
        approval = env.policy.gate(ApprovalGate)
        entries: list[str] = list(approval.approvers) if approval is not None else []
        for entry in entries:
            if not entry.startswith("group:"):
                return entry.removeprefix("user:").removeprefix("email:")
    return "demo"


def succeeded(result: DemoResult) -> bool:
    return result.record.phase is Phase.SUCCEEDED
