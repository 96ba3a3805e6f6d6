"""One local promotion: compile, bring up the stand-ins, run the engine, keep the record.

The Workflow run here is the one ``promoflow promote`` would submit, compiled with the
same compiler; only the settings that say where Argo CD is differ (the local stand-in,
unless ``ARGOCD_SERVER`` points at a real one). The run record lands in
``.promoflow/runs/`` as JSON in Argo's vocabulary.

Before it runs, the session works out what stands in for the cluster (:func:`local_setup`):
which nodes' results the Argo CD simulator will give, and which container templates will
start as processes here instead of in their images. The view says both, from the header to
the summary.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Iterator, Mapping
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.prompt import Confirm, Prompt

from orchestrator.compiler import PromotionRequest, compile_product, library_templates
from orchestrator.engine.errors import EngineError
from orchestrator.engine.executor import SubprocessExecutor
from orchestrator.engine.model import ProgressEvent, RunRecord
from orchestrator.engine.runner import Engine, EngineOptions
from orchestrator.engine.suspend import (
    Answer,
    Approver,
    AutoApprover,
    PromptApprover,
    Question,
    answer_values,
)
from orchestrator.engine.templates import Template, Workflow, index_templates, resolve_workflow
from orchestrator.graph.plan import ProductPlan
from orchestrator.loading.config import Config
from orchestrator.local.argocd import LocalArgoCD, local_argocd
from orchestrator.local.plugin import stand_in
from orchestrator.local.preflight import missing_templates, templates_message
from orchestrator.local.standins import stand_ins
from orchestrator.local.status_page import StatusPage, serve_status_page
from orchestrator.local.view import HostStep, LocalSetup, RunView, show_header, summary
from orchestrator.local.view import label as node_label
from orchestrator.localruns import runner, save
from orchestrator.manifest import Manifest
from orchestrator.settings import ArgoCDSettings, StepSettings, load
from orchestrator.urls import scrub_data


@dataclass
class LocalOptions:
    auto_approve: bool = False
    reject: dict[str, str] = field(default_factory=dict)
    """Environments whose approval is answered NO (with this reason)."""
    soak_scale: float = 1.0
    backoff_scale: float = 1.0
    templates: list[Manifest] = field(default_factory=list)
    """The team's own WorkflowTemplates (pre/post actions)."""
    use_stand_ins: bool = False
    runs_dir: Path = Path(".promoflow/runs")
    repos: dict[str, Path] = field(default_factory=dict)
    """Repository URL -> local bare repository, for the Argo CD stand-in."""
    fail_apps: dict[str, str] = field(default_factory=dict)
    """Argo CD apps whose next deployment the stand-in turns Degraded (reason)."""
    stale_images: tuple[str, ...] = ()
    """Argo CD apps whose pods the stand-in keeps on their image, whatever is promoted."""
    argocd_delay: float = 0.3
    extra_env: dict[str, str] = field(default_factory=dict)
    """Variables the steps get besides this process's environment (e.g. GIT_TOKEN)."""
    approver: Approver | None = None
    answer_as: str = ""
    """Who answers approvals in this run, as Argo would record the caller (a subject or an
    e-mail); the workflow's approver check reads it. Default: the requester."""


class _NoOneToAsk:
    """Non-interactive runs without ``--auto-approve``: every approval is answered NO, so
    nothing is promoted without someone's answer (the approver step stops it, as an
    unanswered approval on the cluster is stopped at its timeout)."""

    def answer(self, question: Question) -> Answer:
        reason = "no one to ask (not a terminal); use --auto-approve"
        return Answer(False, reason, answer_values(question, False))


def _ask(console: Console) -> Callable[[Question], tuple[bool, str]]:
    def ask(question: Question) -> tuple[bool, str]:
        console.print(f"[bold]{node_label(question.display_name)}[/]: {question.prompt}")
        approved = Confirm.ask("Approve?", console=console, default=False)
        why = "Why (optional, Enter for none)" if approved else "Why (Enter for no reason)"
        message = Prompt.ask(why, console=console, default="", show_default=False)
        return approved, message

    return ask


def approver_for(options: LocalOptions, console: Console, who: str, view: RunView) -> Approver:
    if options.approver is not None:
        return options.approver
    actor = options.answer_as or who
    if options.auto_approve or options.reject:
        return AutoApprover(options.reject, who=actor, actor=actor, flags=True)
    if console.is_terminal:
        return PromptApprover(_ask(console), actor, pause=view.pause, resume=view.resume)
    return _NoOneToAsk()


def step_settings(argocd: LocalArgoCD | None, real: ArgoCDSettings) -> StepSettings:
    """Where the steps find Argo CD: the stand-in, or the real one from the environment."""
    if argocd is not None:
        server, opts = argocd.server, "--plaintext"
    else:  # only how to connect: an --auth-token in ARGOCD_OPTS stays in this shell
        server, opts = real.server, real.transport_opts
    return load(StepSettings).model_copy(update={"argocd_server": server, "argocd_opts": opts})


@contextmanager
def _argocd(
    plan: ProductPlan, options: LocalOptions, real: ArgoCDSettings
) -> Iterator[LocalArgoCD | None]:
    if real.server:  # a real Argo CD: no stand-in
        yield None
        return
    cache = options.runs_dir.parent / "cache"
    with local_argocd(
        [plan],
        options.repos,
        delay=options.argocd_delay,
        cache=cache,
        fail=options.fail_apps,
        stale_images=options.stale_images,
    ) as argocd:
        yield argocd


def environments_of(plan: ProductPlan) -> list[str]:
    return [env.environment for env in plan.environments]


STAND_IN_LABEL = "promoflow.dev/stand-in"


def _children(body: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    """The tasks of a DAG template, or the steps of a steps template (flattened)."""
    if "dag" in body:
        return list((body.get("dag") or {}).get("tasks") or [])
    steps: list[Mapping[str, Any]] = []
    for group in body.get("steps") or []:
        steps += group if isinstance(group, list) else [group]
    return steps


def _reachable(workflow: Workflow, template: Template, seen: set[str]) -> Iterator[Template]:
    """The container templates ``template`` runs, itself included (each template once)."""
    if template.label in seen:
        return
    seen.add(template.label)
    if template.kind == "container":
        yield template
    for child in _children(template.body):
        try:
            yield from _reachable(workflow, workflow.resolve(child, template.label), seen)
        except EngineError:  # the engine refuses it before the run, with the reason
            continue


def local_setup(
    workflow: Manifest, manifests: list[Manifest], *, simulator: str = "", real_argocd: str = ""
) -> LocalSetup:
    """What this run puts in place of the cluster: the Argo CD simulator at ``simulator``
    (or the real Argo CD at ``real_argocd``), the nodes whose result is Argo CD's, the
    container templates that run as processes on this host (with the image a cluster would
    use) and the stand-ins."""
    library = index_templates(manifests)
    stand_ins = sorted(
        name
        for name, m in library.items()
        if (m.get("metadata", {}).get("labels") or {}).get(STAND_IN_LABEL) == "true"
    )
    argocd_tasks: set[str] = set()
    reached: dict[str, tuple[Template, list[str]]] = {}
    try:
        resolved = resolve_workflow(workflow, library)
        entry = resolved.own(resolved.entrypoint, "entrypoint")
        roots = [(str(t.get("name", "")), t) for t in _children(entry.body)]
        if resolved.on_exit:  # the engine names the handler's nodes onExit.NAME
            handler = resolved.own(resolved.on_exit, "onExit")
            roots += [(f"onExit.{t.get('name', '')}", t) for t in _children(handler.body)]
        for task, step in roots:
            try:
                top = resolved.resolve(step, task)
            except EngineError:
                continue
            for template in _reachable(resolved, top, set()):
                reached.setdefault(template.label, (template, []))[1].append(task)
                args = list(template.body["container"].get("args") or [])
                if args[:2] == ["step", "wait-argocd"]:
                    argocd_tasks.add(task)
    except EngineError:  # said, with the reason, when the engine starts
        pass
    host_steps, stand_in_tasks = [], set()
    for label, (template, tasks) in sorted(reached.items()):
        if template.owner in stand_ins:
            stand_in_tasks.update(tasks)
            continue
        container = template.body["container"]
        argv = [str(a) for a in [*(container.get("command") or []), *(container.get("args") or [])]]
        host_steps.append(
            HostStep(
                template=label,
                image=str(container.get("image") or "(no image)"),
                command=" ".join(argv),
                tasks=tuple(tasks),
                promoflow=argv[:1] == ["promoflow"],
            )
        )
    return LocalSetup(
        argocd=simulator,
        real_argocd="" if simulator else real_argocd,
        argocd_tasks=frozenset(argocd_tasks),
        host_steps=tuple(host_steps),
        stand_ins=tuple(stand_ins),
        stand_in_tasks=frozenset(stand_in_tasks),
    )


def _save_progress(path: Path, record: RunRecord) -> None:
    """The record as it stands, for ``promoflow status --watch`` and ``runs`` while the run
    goes on. Steps run in threads: a record changed while it is read is skipped, the next
    event writes it."""
    try:
        data = record.to_dict()
    except RuntimeError:  # a dict changed size while it was copied
        return
    save(path, {**scrub_data(data), "runner": runner()})


def _tasks(template: Manifest) -> list[str]:
    spec = template["spec"]
    entry = next(t for t in spec["templates"] if t["name"] == spec["entrypoint"])
    return [str(task["name"]) for task in (entry.get("dag") or {}).get("tasks") or []]


def run_local(
    config: Config,
    plan: ProductPlan,
    request: PromotionRequest,
    options: LocalOptions,
    console: Console,
    *,
    announce: Callable[[Mapping[str, str]], None] | None = None,
) -> tuple[RunRecord, Path]:
    """Run one promotion locally; returns the record and where it was saved.
    ``announce`` receives the stand-ins' addresses once they are up."""
    absent = missing_templates(plan, options.templates)
    if absent and not options.use_stand_ins:
        raise EngineError(templates_message(absent))
    real = load(ArgoCDSettings)
    with ExitStack() as stack:
        argocd = stack.enter_context(_argocd(plan, options, real))
        settings = step_settings(argocd, real)
        compiled = compile_product(config, plan.product.name, settings, request)
        assert compiled.workflow is not None
        manifests: list[Manifest] = [
            compiled.template,
            *library_templates(settings),
            *options.templates,
        ]
        status_url = ""
        if absent:
            status_url = stack.enter_context(serve_status_page(StatusPage()))
            manifests += stand_ins(manifests, status_url)
        env = {**os.environ, **options.extra_env, **(argocd.env() if argocd else {})}
        if announce is not None:
            where = {"argocd": argocd.url if argocd else real.server}
            if status_url:
                where["stand-ins"] = status_url
            announce(where)
        started = datetime.now(UTC)
        name = str(compiled.workflow["metadata"]["name"])
        workdir = options.runs_dir / f"{name}-{started:%Y%m%dT%H%M%S}"
        environments = environments_of(plan)
        setup = local_setup(
            compiled.workflow,
            manifests,
            simulator=argocd.url if argocd else "",
            real_argocd=real.server,
        )
        show_header(console, name, setup)
        view = RunView(console, f"{name} (local)", _tasks(compiled.template), environments, setup)
        options.runs_dir.mkdir(parents=True, exist_ok=True)
        path = options.runs_dir / f"{workdir.name}.json"

        saving = threading.Lock()  # steps report from their threads: one snapshot at a time

        def progress(event: ProgressEvent) -> None:
            view.handle(event)
            with saving:
                _save_progress(path, engine.record)

        engine = Engine(
            compiled.workflow,
            manifests,
            workdir=workdir,
            executor=SubprocessExecutor(host_env=env),
            approver=approver_for(options, console, request.requested_by or "you", view),
            options=EngineOptions(
                soak_scale=options.soak_scale,
                backoff_scale=options.backoff_scale,
                plugins=stand_in(settings),
            ),
            on_event=progress,
        )
        with view:
            record = engine.run()
    # a record is shared: no credentials in it (scrubbed value by value, so it stays JSON)
    save(path, scrub_data(record.to_dict()))
    console.print(summary(record, environments, setup))
    return record, path
