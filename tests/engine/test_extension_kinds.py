"""Every extension kind added from modules of its own, in temporary packages, and run end to
end: a gate (its settings and its tasks), a webhook provider and a notification service.

A CI system promoflow does not know ("beacon") asks for a promotion through the webhook
service; the product's production environments get a "smoke" gate nobody has written
before; the run's report goes out through a "pager" service. Nothing else changes: the
webhook app finds the provider, the configuration validates and merges the gate, the
compiler places its tasks, the local engine runs them (the smoke URL is really asked), and
the reporter delivers the notify step's report through the service's own sink.

The packages are extended in a process of its own (``__path__`` of each extension
package), so the registries of this test process never see the test's kinds.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

from tests.compiler.helpers import EXAMPLES, ROOT
from tests.support.extensions import PAGER, SMOKE_SETTINGS, SMOKE_TASKS

PROVIDER = '''
"""Beacon, a CI system of the test's own: ``Authorization: Bearer SECRET`` and a JSON body
``{"product": ..., "version": ...}``; its delivery id is ``X-Beacon-Id``."""

from orchestrator.webhooks import payloads, proofs
from orchestrator.webhooks.events import Event, Incoming, PromotionAsked
from orchestrator.webhooks.registry import Provider


def parse(incoming: Incoming) -> Event:
    data = payloads.json_object(incoming)
    return PromotionAsked(
        product=payloads.text(data, "product"),
        version=payloads.text(data, "version"),
        requested_by="beacon",
        fields={str(k): str(v) for k, v in (data.get("fields") or {}).items()},
    )


PROVIDER = Provider(
    name="beacon",
    title="Beacon",
    scheme="Authorization: Bearer SECRET",
    verify=proofs.check_bearer,
    authorize=proofs.check_bearer,
    parse=parse,
    delivery_id=lambda incoming: incoming.headers.get("x-beacon-id", ""),
)
'''

RUN = """
import json, os, sys, threading, time
from pathlib import Path

ext, config_dir = Path(sys.argv[1]), Path(sys.argv[2])
import orchestrator.compiler.tasks as tasks
import orchestrator.model.gates as gates
import orchestrator.webhooks.providers as providers
import reporters.services as services

gates.__path__.append(str(ext / "gates"))
tasks.__path__.append(str(ext / "tasks"))
providers.__path__.append(str(ext / "providers"))
services.__path__.append(str(ext / "services"))

from rich.console import Console

from orchestrator.access import Access
from orchestrator.adapters.git import Credentials
from orchestrator.adapters.gitreads import GitReads
from orchestrator.adapters.web import Web
from orchestrator.demo.local import DemoOptions, demo_world
from orchestrator.demo.seed import field_value
from orchestrator.loading import load_config
from orchestrator.settings import StepSettings
from orchestrator.simulator.serve import ServerThread
from orchestrator.webhooks.app import create_app
from orchestrator.webhooks.local_backend import LocalBackend
from orchestrator.webhooks.secrets import Secrets, variable
from orchestrator.webhooks.service import Service
from orchestrator.webhooks.submit import Submissions
from reporters.app import create_app as reporter_app
from reporters.run import sinks_of
from reporters.runtime import Reporter
from reporters.state.store import Store
from reporters.watch.watcher import Watcher

SECRET, TOKEN = "beacon-s3cret", "report-t0ken"
seen = []


async def receiver(scope, receive, send):
    body = b""
    while True:
        message = await receive()
        body += message.get("body", b"")
        if not message.get("more_body"):
            break
    headers = {k.decode(): v.decode() for k, v in scope["headers"]}
    seen.append({"method": scope["method"], "path": scope["path"],
                 "urgency": headers.get("x-urgency", ""), "body": body.decode()})
    await send({"type": "http.response.start", "status": 200,
                "headers": [(b"content-type", b"application/json")]})
    await send({"type": "http.response.body", "body": b'{"ok": true}'})


console = Console(file=sys.stderr, width=200)
with ServerThread(receiver) as outside:
    (config_dir / "smoke.yaml").write_text(
        "apiVersion: promoflow.dev/v1alpha1\\nkind: PromotionPolicy\\n"
        "metadata: {name: smoke-prod}\\nspec:\\n  priority: 50\\n"
        "  selector: {environments: {production: true}}\\n"
        f"  policy:\\n    gates:\\n      - {{smoke: {{url: '{outside.url}/smoke'}}}}\\n"
    )
    config, problems = load_config(config_dir)
    assert not problems, [str(p) for p in problems]
    [pager] = sinks_of([f"pager:{outside.url}/page"])
    reporter = Reporter(Watcher(None), Store(), sinks=[pager])
    threading.Thread(target=reporter.run, daemon=True).start()
    reports = reporter_app(
        reporter.stream, reporter.numbers, reporter.shards, reporter.accept, Access(TOKEN)
    )
    with ServerThread(reports) as reporting:
        os.environ["PROMOFLOW_REPORT_URL"] = f"{reporting.url}/reports"
        os.environ["PROMOFLOW_REPORT_TOKEN"] = TOKEN
        options = DemoOptions(product="shop", version="1.5.0", soak_seconds=0.2)
        with demo_world(config, options, console) as world:
            backend = LocalBackend(world.config, world.run_options, console)
            reader = GitReads(world.root / "cache", Credentials(world.username, world.token))
            service = Service(
                config=world.config,
                submissions=Submissions(world.config, StepSettings(), backend),
                secrets=Secrets(["beacon"], {variable("beacon"): SECRET}),
                reader=reader,
            )
            source = world.plan.template.spec.version_source
            fields = {f: field_value(f, "1.5.0") for f in source.fields}
            asked = {"product": "shop", "version": "1.5.0", "fields": fields}
            body = json.dumps(asked).encode()
            headers = {"Content-Type": "application/json", "X-Beacon-Id": "b-1"}
            serving = ServerThread(create_app(service), lifespan=True)
            try:
                with serving as server, Web(timeout=30) as web:
                    endpoint = f"{server.url}/webhooks/beacon"
                    refused = web.post(endpoint, body, headers=headers)
                    headers["Authorization"] = f"Bearer {SECRET}"
                    reply = web.post(endpoint, body, headers=headers)
                    backend.wait(600)
            finally:
                reader.close()
            runs = {}
            for name, (phase, record) in backend.records().items():
                nodes = json.loads(Path(record).read_text())["nodes"]
                runs[name] = {"phase": phase, "nodes": {n["name"]: n["phase"] for n in nodes}}
        deadline = time.monotonic() + 60
        while not any(s["path"] == "/page" for s in seen) and time.monotonic() < deadline:
            time.sleep(0.1)
        reporter.stop()
print(json.dumps({"refused": refused.status, "status": reply.status,
                  "message": json.loads(reply.content)["message"], "runs": runs,
                  "seen": seen}))
"""


def test_a_gate_a_provider_and_a_service_each_added_as_modules_run_end_to_end(
    tmp_path: Path,
) -> None:
    ext = tmp_path / "ext"
    for folder, name, text in (
        ("gates", "smoke.py", SMOKE_SETTINGS),
        ("tasks", "smoke.py", SMOKE_TASKS),
        ("providers", "beacon.py", PROVIDER),
        ("services", "pager.py", PAGER),
    ):
        (ext / folder).mkdir(parents=True, exist_ok=True)
        (ext / folder / name).write_text(text)
    config = tmp_path / "config"
    shutil.copytree(EXAMPLES, config)
    script = tmp_path / "run.py"
    script.write_text(RUN)
    ran = subprocess.run(
        [sys.executable, str(script), str(ext), str(config)],
        capture_output=True, text=True, cwd=ROOT, check=False, timeout=900,
    )  # fmt: skip
    assert ran.returncode == 0, ran.stderr[-4000:]
    found = json.loads(ran.stdout)

    # the provider: found by its name, its own proof asked for, its event promoted
    assert found["refused"] == 401
    assert found["status"] == 202, found["message"]
    [run] = found["runs"].values()
    assert run["phase"] == "Succeeded", run
    # the gate: merged into production only, placed and run by the local engine
    smoke = {name: phase for name, phase in run["nodes"].items() if name.startswith("smoke-")}
    assert sorted(smoke) == ["smoke-prod-eu", "smoke-prod-us"], run
    assert set(smoke.values()) == {"Succeeded"}
    [row] = [line for line in ran.stderr.splitlines() if line.startswith("│ prod-eu ")]
    assert "check, smoke, post (stand-in)" in row, row  # the summary names it, in its place
    asked = [s for s in found["seen"] if s["path"] == "/smoke"]
    assert len(asked) == 2 and {s["method"] for s in asked} == {"GET"}
    # the service: the run's report delivered through the pager's own sink
    pages = [s for s in found["seen"] if s["path"] == "/page"]
    assert pages and all(s["method"] == "POST" and s["urgency"] == "high" for s in pages)
    events = [json.loads(s["body"]) for s in pages]
    assert [e["type"] for e in events] == ["promotion.succeeded"], events
    assert events[0]["data"]["version"] == "1.5.0" and events[0]["data"]["requestedBy"] == "beacon"
