"""How long after Argo CD reports an app deployed does the gate return? On the real Argo CD.

One round: push a commit to an automated app's repository and start the gate's
:class:`~orchestrator.gates.wait.Waiter` at once, through the Argo CD API server
(``ApiSource``), following the event stream or polling (``stream=False``, the default
interval of ``GateSettings``). Beside it, a watch on the Application object through the
Kubernetes API applies the gate's own decision (:func:`~orchestrator.gates.deployed.assess`)
to every change it sees: the first change that makes the app deployed at the commit is the
moment Argo CD reported it. The latency is the time from that moment to ``run()`` returning.
With an image to check (``image``), the gate also requires the app to run it, as
``wait-argocd --image`` does: :func:`measure_image_check` times that against the same wait
without it. Used by tests/e2e/test_wait_latency.py and bench/e2e_wait_latency.py.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

from kubernetes import client, watch

from orchestrator.adapters.argocd import ArgoCDClient
from orchestrator.gates.deployed import assess
from orchestrator.gates.running import Expected
from orchestrator.gates.sources import ApiSource
from orchestrator.gates.wait import Waiter, WaitOptions
from orchestrator.settings import ArgoCDSettings, GateSettings
from tests.e2e.gitops import GitopsRepo
from tests.e2e.k8s import GROUP, VERSION, api_client, configmap, deployment
from tests.e2e.settings import E2ESettings


@dataclass(frozen=True)
class Round:
    mode: str
    latency: float
    """Seconds from Argo CD reporting the app deployed to the gate returning."""
    total: float
    """Seconds from the push to the gate returning."""


class DeployedAt:
    """Watches one Application and notes when it first reads deployed at ``sha``."""

    def __init__(self, e2e: E2ESettings, app: str, sha: str) -> None:
        self.e2e, self.app, self.sha = e2e, app, sha
        self.at: float | None = None
        self.ready = threading.Event()
        self._stopping = False
        self._watch = watch.Watch()  # type: ignore[no-untyped-call]
        self._thread = threading.Thread(target=self._run, daemon=True)

    def __enter__(self) -> DeployedAt:
        self._thread.start()
        assert self.ready.wait(10), "the watch did not start"
        return self

    def __exit__(self, *_: object) -> None:
        self._stopping = True
        self._watch.stop()
        self._thread.join(10)

    def _run(self) -> None:
        api = client.CustomObjectsApi(api_client(self.e2e))
        listing = api.list_namespaced_custom_object(
            GROUP, VERSION, self.e2e.argocd_namespace, "applications",
            field_selector=f"metadata.name={self.app}",
        )  # fmt: skip
        self.ready.set()
        events = self._watch.stream(
            api.list_namespaced_custom_object, GROUP, VERSION, self.e2e.argocd_namespace,
            "applications", field_selector=f"metadata.name={self.app}",
            resource_version=listing["metadata"]["resourceVersion"], timeout_seconds=300,
        )  # fmt: skip
        try:
            for event in events:
                now = time.monotonic()
                app = event["object"]
                if self.at is None and assess(app, self.app, self.sha).state == "deployed":
                    self.at = now
        except Exception:
            if not self._stopping:
                raise


def one_round(
    e2e: E2ESettings,
    app: str,
    commit: Callable[[], str],
    stream: bool,
    image: str = "",
) -> Round:
    """Push (``commit()`` returns the new sha), wait, and time it; with ``image``, the
    gate also checks that the app runs it (as ``--image`` does)."""
    settings = ArgoCDSettings(
        server=e2e.argocd_server, auth_token=e2e.argocd_token, opts=e2e.argocd_opts
    )
    poll = float(GateSettings.model_fields["poll_interval"].default)
    options = WaitOptions(
        sync_timeout=180,
        health_timeout=180,
        poll_interval=poll,
        stream=stream,
        image=Expected.parse(image, "deployment.yaml") if image else None,
    )
    pushed = time.monotonic()
    sha = commit()
    with DeployedAt(e2e, app, sha) as seen, ArgoCDClient(settings) as argocd:
        result = Waiter(ApiSource(argocd), [app], sha, options).run()
        returned = time.monotonic()
        deadline = time.monotonic() + 10
        while seen.at is None and time.monotonic() < deadline:  # the watch may lag
            time.sleep(0.05)
    assert result.ok, result.reason
    if image:
        assert result.reason.endswith(f"runs {image}"), result.reason
    assert seen.at is not None, "the watch never saw the app deployed"
    mode = "stream" if stream else "polling"
    return Round(f"{mode}+image" if image else mode, returned - seen.at, returned - pushed)


def measure(e2e: E2ESettings, app: str, path: str, repo: GitopsRepo, rounds: int) -> list[Round]:
    """``rounds`` rounds per mode, alternating, on an automated app deploying ``path``."""
    out: list[Round] = []
    for i in range(rounds):
        for stream in (True, False):
            version = f"{i}-{int(stream)}-{time.monotonic_ns()}"

            def push(v: str = version) -> str:
                return repo.commit({f"{path}/configmap.yaml": configmap(app, v)})

            out.append(one_round(e2e, app, push, stream))
    return out


def measure_image_check(
    e2e: E2ESettings, app: str, path: str, repo: GitopsRepo, rounds: int
) -> list[Round]:
    """``rounds`` rounds with and without the image check, alternating, on an automated
    app whose Deployment (pods on the kwok node, never pulled) moves to a new image tag
    every round: the check finds it in Argo CD's summary, as it does after a rollout."""
    out: list[Round] = []
    for i in range(rounds):
        for check in (True, False):
            version = f"{i}-{int(check)}-{time.monotonic_ns()}"

            def push(v: str = version) -> str:
                return repo.commit({f"{path}/deployment.yaml": deployment(app, v)})

            image = f"registry.invalid/{app}:{version}" if check else ""
            out.append(one_round(e2e, app, push, stream=True, image=image))
    return out


def workloads_read(e2e: E2ESettings, app: str, reads: int) -> list[float]:
    """Seconds each read of the app's workloads takes through the Argo CD API (what the
    check costs when the summary lacks the image: one managed-resources request)."""
    settings = ArgoCDSettings(
        server=e2e.argocd_server, auth_token=e2e.argocd_token, opts=e2e.argocd_opts
    )
    out = []
    with ArgoCDClient(settings) as argocd:
        source = ApiSource(argocd)
        state = argocd.get_app(app) or {}
        for _ in range(reads):
            started = time.monotonic()
            found = source.workloads(app, state)
            out.append(time.monotonic() - started)
            assert found.images, found
    return out
