"""``wait-argocd``: wait until Argo CD has synced the promoted commit and the apps are
Healthy, and, given the promoted image (``--image``), that they run it.

The template's activeDeadlineSeconds comes from the gate timeouts, so a stuck sync fails
the node in the UI with the step's last progress message.
"""

from __future__ import annotations

import json
import re
import sys
from typing import TYPE_CHECKING, NamedTuple

from orchestrator.steps.registry import Input, StepSpec, TaskKind, register

if TYPE_CHECKING:
    from pathlib import Path

    from orchestrator.gates.deployed import Verdict
    from orchestrator.gates.running import Expected

APP_NAME = re.compile(
    r"(?:[a-z0-9](?:[-a-z0-9]{0,61}[a-z0-9])?/)?"  # apps in any namespace: NAMESPACE/NAME
    r"[a-z0-9](?:[-a-z0-9.]{0,251}[a-z0-9])?"
)


def _app_names(apps: str, selector: str) -> list[str]:
    """The ``--app`` names, checked; either they or ``--selector`` must be given."""
    from orchestrator.steps import support

    names = [n.strip() for n in apps.split(",") if n.strip()]
    if bool(names) == bool(selector):
        support.usage("give either --app NAME[,NAME...] or --selector LABELS")
    bad = next((n for n in names if not APP_NAME.fullmatch(n)), None)
    if bad is not None:
        support.usage(
            f"{bad[:80]!r} is not an Argo CD application name (a DNS-1123 name, optionally "
            "NAMESPACE/NAME)",
            "--app",
        )
    return names


def _expected(image: str, source: str) -> Expected | None:
    """The promoted image (``--image``) every app must run once deployed; none: no check."""
    from orchestrator.gates.running import Expected
    from orchestrator.imageref import ReferenceError
    from orchestrator.steps import support

    if not image.strip():
        return None
    try:
        return Expected.parse(image.strip(), " ".join(source.split()))
    except ReferenceError as exc:
        support.usage(f"{image[:80]!r} is not an image reference: {exc}", "--image")


class Inputs(NamedTuple):
    """What the wait reads: the apps, the revision (and image) to expect, the timeouts."""

    environment: str
    apps: str
    selector: str
    revision: str
    timeout: str
    sync_timeout: str
    health_timeout: str
    health: str
    repo: str
    image: str
    image_source: str
    run: str
    outputs: Path | None


def run(inputs: Inputs) -> None:
    """Wait until Argo CD runs REVISION in every app, Synced and Healthy (exit 0), and
    with ``--image`` until they run it."""
    from orchestrator import progress
    from orchestrator.gates.appsource import SourceError
    from orchestrator.gates.wait import Waiter, WaitOptions
    from orchestrator.settings import ArgoCDSettings, GateSettings
    from orchestrator.steps import support

    selector, revision, repo = inputs.selector, inputs.revision, inputs.repo
    environment = inputs.environment
    names = _app_names(inputs.apps, selector)
    if selector:
        from orchestrator.labelselector import parse_selector

        try:
            parse_selector(selector)
        except ValueError as exc:
            support.usage(f"not a label selector: {exc}", "--selector")
    if not revision.strip():
        support.usage("the revision is empty", "--revision")
    support.checked_repo(repo)
    expected = _expected(inputs.image, inputs.image_source)
    sync_timeout, health_timeout = inputs.sync_timeout, inputs.health_timeout
    if inputs.timeout:
        sync_timeout = health_timeout = inputs.timeout
    gate = support.load_settings(GateSettings)
    argocd = support.load_settings(ArgoCDSettings)
    options = WaitOptions(
        sync_timeout=support.seconds(sync_timeout, "--sync-timeout"),
        health_timeout=support.seconds(health_timeout, "--health-timeout"),
        health=support.flag(inputs.health, "--health"),
        repo=repo or None,
        poll_interval=gate.poll_interval,
        max_poll_interval=gate.max_poll_interval,
        stream=gate.stream,
        image=expected,
    )
    where = f" in {environment}" if environment else ""

    def show(verdicts: list[Verdict]) -> None:
        done = sum(v.state == "deployed" for v in verdicts)
        progress.progress(done, len(verdicts))
        for verdict in verdicts:
            progress.log(f"{verdict.app}: {verdict.state}: {verdict.reason}")
        waiting = [str(v) for v in verdicts if v.state != "deployed"]
        progress.node_message("; ".join(waiting) or f"deployed {revision[:12]}{where}")

    from orchestrator.gates.equivalence import GitEquivalence
    from orchestrator.gates.sources import open_source

    try:
        source = open_source(argocd, gate)
        if selector:
            names = source.names(selector)
            if not names:
                support.fail(f"no applications match {selector!r}")
        running = f" and {expected.written}" if expected is not None else ""
        progress.log(f"waiting for {', '.join(names)} to run {revision[:12]}{running}{where}")
        same = GitEquivalence(repo or None, log=progress.log)
        try:
            result = Waiter(
                source, names, revision.strip(), options, progress=show, equivalence=same
            ).run()
        finally:
            same.close()
    except SourceError as exc:
        progress.node_message(str(exc))
        support.fail(str(exc), support.TRANSIENT_EXIT if exc.transient else 1)
    progress.node_message(result.reason)
    support.write_outputs(support.outputs_dir(inputs.outputs), {"revision": revision.strip()})
    sys.stdout.write(
        json.dumps(
            {
                "state": result.state,
                "revision": revision.strip(),
                "seconds": round(result.seconds, 3),
                **({"image": expected.written} if expected is not None else {}),
                "apps": [
                    {"app": v.app, "state": v.state, "reason": v.reason} for v in result.verdicts
                ],
            }
        )
        + "\n"
    )
    if not result.ok:
        support.fail(result.reason)


SPEC = register(
    StepSpec(
        name="wait-argocd",
        summary="Wait until Argo CD runs REVISION in every app, Synced and Healthy (exit 0); "
        "with --image, running that image.",
        doc=__doc__ or "",
        inputs=(
            Input("environment", cli_required=False, help="Environment (for messages)."),
            Input(
                "apps", flag="app", cli_required=False, help="Application name(s), comma-separated."
            ),
            Input("selector", cli_only=True, help="Or: a label selector for the applications."),
            Input("revision", help="Commit the apps must run (the promote step's output)."),
            Input("timeout", cli_only=True, help="Sets both the sync and health timeouts."),
            Input("sync-timeout", "15m", help="How long to wait for Synced."),
            Input("health-timeout", "15m", help="How long to wait for Healthy after that."),
            Input("health", "true", help="Require Healthy (true|false)."),
            Input("repo", cli_only=True, help="Only check sources from this repository."),
            Input(
                "image",
                "",
                help="Then check that every app runs this image, REPOSITORY[:TAG][@DIGEST] "
                "(the promote step's output; empty: no check).",
            ),
            Input(
                "image-source",
                "",
                help="Where the image's version is written, for messages (values.yaml image.tag).",
            ),
            Input("run", cli_only=True, help="Promotion run name (for messages)."),
        ),
        outputs=("revision",),
        exits={
            0: "every app runs the revision, Synced (and Healthy when asked), and the image",
            1: "an app failed, runs another image, or the wait timed out",
            2: "usage error",
            75: "Argo CD could not be reached: retried with backoff",
        },
        deadline=1860,
        deadline_input=True,
        # Argo CD for the apps; Git to tell whether another commit renders the same files
        needs=frozenset({"argocd", "git"}),
        run=run,
        takes=Inputs,
        tasks=(TaskKind("sync", rank=60),),
    )
)
