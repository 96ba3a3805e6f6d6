"""``promoflow demo --webhook``: a signed Git push starts the promotion by itself.

The demo's repository and stand-ins (:func:`orchestrator.demo.local.demo_world`), with
``promoflow serve --local`` in front: a CI job's commit writes the new version into the
trigger environment, GitHub's push delivery for it is signed with the hook's secret and
sent to the service over HTTP, and the service reads the version at the pushed commit and
runs the promotion with the local engine. The same delivery sent again is recognised and
starts nothing.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import secrets
import uuid
from dataclasses import dataclass
from typing import Any

import pygit2
from rich.console import Console

from orchestrator.adapters.git import Credentials
from orchestrator.adapters.gitreads import GitReads
from orchestrator.adapters.web import Web
from orchestrator.demo.local import (
    DemoOptions,
    approvals_line,
    demo_world,
    promotion_log,
    show_log,
)
from orchestrator.demo.seed import field_value
from orchestrator.engine.model import Phase
from orchestrator.loading import Config
from orchestrator.settings import StepSettings
from orchestrator.simulator.serve import ServerThread
from orchestrator.webhooks.app import create_app
from orchestrator.webhooks.local_backend import LocalBackend
from orchestrator.webhooks.secrets import Secrets, variable
from orchestrator.webhooks.service import Service
from orchestrator.webhooks.submit import Submissions
from orchestrator.yamledit import Value, edit

RUN_TIMEOUT = 600.0


@dataclass(frozen=True)
class WebhookDemoResult:
    status: int
    redelivery: str
    phases: dict[str, str]

    @property
    def succeeded(self) -> bool:
        return (
            self.status == 202
            and self.redelivery == "already submitted"
            and list(self.phases.values()) == [Phase.SUCCEEDED.value]
        )


def _ci_commit(
    bare: str, branch: str, path: str, updates: dict[str, str], version: str
) -> tuple[str, str]:
    """What a CI job does after a build: write the version into the trigger environment."""
    repo = pygit2.Repository(bare)
    parent = repo.references[f"refs/heads/{branch}"].peel(pygit2.Commit)
    text = repo[parent.tree[path].id].peel(pygit2.Blob).data.decode()
    changed = edit(text, {k: Value(v) for k, v in updates.items()}, path)
    index = pygit2.Index()
    index.read_tree(parent.tree)
    index.add(
        pygit2.IndexEntry(path, repo.create_blob(changed.encode()), pygit2.enums.FileMode.BLOB)
    )
    who = pygit2.Signature("CI", "ci@example.com")
    message = f"Release {version}\n\nBuilt by CI from the application repository.\n"
    after = repo.create_commit(
        f"refs/heads/{branch}", who, who, message, index.write_tree(repo), [parent.id]
    )
    return str(parent.id), str(after)


def _push_payload(url: str, branch: str, before: str, after: str, path: str, version: str) -> bytes:
    data: dict[str, Any] = {
        "ref": f"refs/heads/{branch}",
        "before": before,
        "after": after,
        "forced": False,
        "deleted": False,
        "repository": {"full_name": "acme/gitops", "clone_url": url},
        "pusher": {"name": "ci-bot", "email": "ci@example.com"},
        "commits": [
            {
                "id": after,
                "message": f"Release {version}",
                "added": [],
                "removed": [],
                "modified": [path],
            }
        ],
    }
    return json.dumps(data).encode()


def run_webhook_demo(config: Config, options: DemoOptions, console: Console) -> WebhookDemoResult:
    with demo_world(config, options, console) as world:
        plan = world.plan
        approvals_line(console, world, options)
        secret = secrets.token_urlsafe(24)
        backend = LocalBackend(world.config, world.run_options, console)
        reader = GitReads(world.root / "serve-cache", Credentials(world.username, world.token))
        service = Service(
            config=world.config,
            submissions=Submissions(world.config, StepSettings(), backend),
            secrets=Secrets(["github"], {variable("github"): secret}),
            reader=reader,
        )
        trigger = plan.environments[0]
        source = plan.template.spec.version_source
        assert source is not None  # demo configurations name where the version lives
        path = f"{trigger.app.path}/{source.file}"
        updates = {source.version_path: options.version}
        updates.update({f: field_value(f, options.version) for f in source.fields})
        branch = trigger.app.branch
        before, after = _ci_commit(str(world.bare), branch, path, updates, options.version)
        console.print(
            f"  [dim]·[/] CI pushed {after[:12]} to {branch}: {path} now holds {options.version}"
        )
        body = _push_payload(world.url, branch, before, after, path, options.version)
        signature = "sha256=" + hmac.new(secret.encode(), body, hashlib.sha256).hexdigest()
        headers = {
            "Content-Type": "application/json",
            "X-GitHub-Event": "push",
            "X-GitHub-Delivery": str(uuid.uuid4()),
            "X-Hub-Signature-256": signature,
        }
        try:
            with ServerThread(create_app(service), lifespan=True) as server:
                console.print(f"  [dim]·[/] promoflow serve --local listening at {server.url}")
                endpoint = f"{server.url}/webhooks/github"
                console.print(f"[bold]POST[/] {endpoint} (push, signed X-Hub-Signature-256)")
                with Web(timeout=30) as web:
                    reply = web.post(endpoint, body, headers=headers)
                    said = json.loads(reply.content)
                    console.print(f"  -> {reply.status} {said['message']}", markup=False)
                    backend.wait(RUN_TIMEOUT)
                    again = web.post(endpoint, body, headers=headers)
                answer = json.loads(again.content)
                promotions = answer.get("promotions") or [{}]
                redelivery = str(promotions[0].get("status", answer["message"]))
                console.print(
                    f"[bold]POST[/] the same delivery again -> {again.status} {redelivery}"
                )
        finally:
            reader.close()
        show_log(console, promotion_log(world.bare, world.seed, plan.product.spec.repo.branch))
        phases = {name: phase for name, (phase, _) in backend.records().items()}
        return WebhookDemoResult(reply.status, redelivery, phases)
