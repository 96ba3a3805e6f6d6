"""``record``: note on the environment's promotion commit that it is *verified* there.

It runs last in the environment's chain, after every post-commit gate (sync, health,
images, soak, checks) passed, so ``history`` and ``rollback`` know which versions ran
well where without Argo's retention (the note is in the GitOps repository:
``refs/notes/promoflow``). An environment that committed nothing (it already held the
version) has nothing to note.
"""

from __future__ import annotations

import json
import sys
from typing import TYPE_CHECKING, NamedTuple

from orchestrator.steps.registry import EXITS, Input, StepSpec, TaskKind, register

if TYPE_CHECKING:
    from pathlib import Path


class Inputs(NamedTuple):
    environment: str
    repo: str
    commit: str
    changed: str
    gates: str
    run: str
    outputs: Path | None


def run(inputs: Inputs) -> None:
    """Add the verified note to ``--commit`` when ``--changed`` is true."""
    import pygit2

    from orchestrator.adapters.git import Credentials, GitRemote
    from orchestrator.adapters.giterrors import GitError
    from orchestrator.adapters.gitnotes import add_note
    from orchestrator.steps import support
    from orchestrator.steps.record import verified_note

    if inputs.changed not in ("true", "false"):
        support.usage("--changed is the deploy's 'changed' output: true or false", "--changed")
    if inputs.changed == "false":
        support.say(f"{inputs.environment} committed nothing: nothing to record")
        sys.stdout.write(json.dumps({"environment": inputs.environment, "recorded": False}) + "\n")
        return
    commit = inputs.commit.strip()
    if len(commit) != 40 or any(c not in "0123456789abcdef" for c in commit):
        support.usage("--commit must be the promotion commit's full id", "--commit")
    from orchestrator.urls import UrlError, check_git_url

    try:  # as the promote step checks it: user:token@ is moved out of the URL
        check_git_url(inputs.repo, allow_credentials=True)
    except UrlError as exc:
        support.usage(str(exc), "--repo")
    gates = [g for g in inputs.gates.split(",") if g]
    note = verified_note(gates, inputs.run)
    who = pygit2.Signature("promoflow", "promoflow@users.noreply.promoflow.dev")

    def record() -> int:
        with GitRemote(inputs.repo, Credentials.from_env(), None, timeout=30) as remote:
            return add_note(remote, commit, note, who)

    try:
        attempts = support.retry_transient(record)
    except GitError as exc:
        support.fail(f"the note on {commit[:12]} was not recorded: {exc}",
                     support.TRANSIENT_EXIT if exc.transient else 1)  # fmt: skip
    support.say(
        f"{inputs.environment}: {commit[:12]} verified ({', '.join(gates) or 'no gates'})"
        + (f" after {attempts} attempts" if attempts > 1 else "")
    )
    sys.stdout.write(
        json.dumps({"environment": inputs.environment, "recorded": True, "commit": commit}) + "\n"
    )


SPEC = register(
    StepSpec(
        name="record",
        summary="Note on the promotion commit that every gate passed in its environment.",
        doc=__doc__ or "",
        inputs=(
            Input("environment", help="Target environment (for messages)."),
            Input("repo", help="The GitOps repository URL."),
            Input("commit", "", help="The promotion commit (the deploy's 'commit' output)."),
            Input("changed", "true", help="The deploy's 'changed' output: false records nothing."),
            Input("gates", "", help="The gates that passed, comma-separated (sync,health,soak)."),
            Input("run", "", help="Promotion run (workflow) name, noted with the result."),
        ),
        exits={**EXITS, 1: "the note cannot be recorded (no push rights)"},
        deadline=300,
        needs=frozenset({"git"}),
        run=run,
        takes=Inputs,
        tasks=(TaskKind("record", rank=95),),
    )
)
