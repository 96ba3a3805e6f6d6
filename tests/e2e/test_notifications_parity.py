"""promoflow's reporter against Argo CD's own notifications controller, on the real cluster.

Both controllers read the same ConfigMap (Argo CD's catalog and the operator manual's
example, tests/e2e/notifyparity.py) and watch the same Applications, which the real Argo CD
syncs, degrades and deletes; one receiver takes what each sends. What they send must be
the same messages, to the same recipients, with the same rendered bodies. Then the
receiver goes away for a minute while deployments go on: what each controller delivers
afterwards is counted and printed, and promoflow must deliver every message.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import ExitStack
from pathlib import Path

import pytest

from tests.e2e.conftest import DeployedApp
from tests.e2e.gitops import GitopsRepo
from tests.e2e.k8s import (
    Apps,
    configmap,
    deployment,
    short_id,
    wait_until,
)
from tests.e2e.notifyparity import (
    LABEL,
    LEGACY_CHANNEL,
    PROJECT_CHANNEL,
    ArgoNotifications,
    PromoflowReporter,
    Receiver,
    kind_of,
    parity_configmap,
    refresh,
    secrets_for,
    settle,
)
from tests.e2e.parityproject import ParityProject
from tests.e2e.settings import E2ESettings

pytestmark = pytest.mark.e2e


@pytest.fixture
def side_by_side(e2e: E2ESettings, tmp_path: Path) -> Iterator[tuple[str, Receiver]]:
    """Both controllers running on one ConfigMap for apps labelled with a new run id."""
    run = short_id()
    receiver = Receiver()
    receiver.up()
    data = parity_configmap(run)
    with ExitStack() as stack:
        argocd = stack.enter_context(
            ArgoNotifications(e2e, data, secrets_for("argocd", receiver.url))
        )
        reporter = stack.enter_context(
            PromoflowReporter(e2e, data, secrets_for("promoflow", receiver.url), tmp_path / "r")
        )
        stack.callback(receiver.down)
        time.sleep(5)  # both have listed the apps and read their configuration
        argocd.alive()
        reporter.alive()
        yield run, receiver
        argocd.alive()
        reporter.alive()


def make_app(
    e2e: E2ESettings,
    apps: Apps,
    repo: GitopsRepo,
    run: str,
    *,
    deploy: bool = True,
    project: str = "",
) -> DeployedApp:
    name = f"pfnp-{short_id()}"
    app = DeployedApp(name, name, repo, f"apps/{name}", "")
    app.first = app.commit(
        {"configmap.yaml": configmap(name, "1"), "deployment.yaml": deployment(name, "1")}
    )
    labels = {LABEL: run}
    apps.create(name, repo.url, app.path, repo.branch, name, labels=labels, project=project)
    if deploy:
        apps.wait_deployed(name, app.first, e2e.timeout)
    return app


def difference(a: Counter[tuple[str, str, str]], b: Counter[tuple[str, str, str]]) -> str:
    lines = [f"only argocd ({n}x): {key}" for key, n in (a - b).items()]
    lines += [f"only promoflow ({n}x): {key}" for key, n in (b - a).items()]
    return "\n".join(lines)


@pytest.fixture
def parity_project(
    e2e: E2ESettings, apps: Apps, side_by_side: tuple[str, Receiver]
) -> Iterator[str]:
    """An AppProject whose annotations subscribe its apps, made once both controllers run
    (their watches pick it up); its apps are deleted before it is."""
    run, _ = side_by_side
    with ParityProject(e2e, f"pfnp-{run}") as project:
        time.sleep(2)
        try:
            yield project.name
        finally:
            apps.delete_all()


def test_the_same_configmap_sends_the_same_messages(
    e2e: E2ESettings,
    apps: Apps,
    new_repo: Callable[[], GitopsRepo],
    side_by_side: tuple[str, Receiver],
    parity_project: str,
) -> None:
    """Create, sync, a second commit, a commit that degrades, delete: every message Argo
    CD's controller sends, promoflow sends, to the same recipient, rendered the same. The
    app's AppProject subscribes it too (by annotation and by legacy annotation): those
    messages are compared alike."""
    run, receiver = side_by_side
    app = make_app(e2e, apps, new_repo(), run, project=parity_project)
    second = app.commit({"configmap.yaml": configmap(app.name, "2")}, "second")
    refresh(e2e, app.name)
    apps.wait_deployed(app.name, second, e2e.timeout)
    unready = deployment(app.name, "3", unready=True, progress_deadline=10)
    third = app.commit({"deployment.yaml": unready}, "third")
    refresh(e2e, app.name)
    wait_until(
        f"{app.name} Degraded at {third[:12]}",
        lambda: (
            (s := apps.status(app.name))["health"]["status"] == "Degraded"
            and s["sync"]["revision"] == third
        ),
        e2e.timeout,
    )
    settle(receiver)
    apps.delete_all()
    settle(receiver)

    argocd, promoflow = receiver.counts("argocd"), receiver.counts("promoflow")
    kinds = Counter(kind_of(m) for m in receiver.of("argocd"))
    print("messages per template (argocd):", dict(kinds))
    for kind in ("created", "deployed", "sync-succeeded", "degraded", "deleted"):
        assert kinds[kind] >= 2, (kind, kinds)  # Slack and Teams each: not vacuous
    by_project = Counter((m.recipient, kind_of(m)) for m in receiver.of("argocd"))
    assert by_project[(PROJECT_CHANNEL, "deployed")] >= 1, by_project
    assert by_project[(LEGACY_CHANNEL, "sync-succeeded")] >= 1, by_project
    assert argocd == promoflow, difference(argocd, promoflow)


def test_a_receiver_outage_loses_nothing(
    e2e: E2ESettings,
    apps: Apps,
    new_repo: Callable[[], GitopsRepo],
    side_by_side: tuple[str, Receiver],
) -> None:
    """Five apps deploy four commits each while the receiver is away for at least 60 s.
    Argo CD's controller gives up a message it could not send and sends it again only
    while its condition still holds; promoflow keeps it until it is delivered."""
    run, receiver = side_by_side
    made = [make_app(e2e, apps, new_repo(), run, deploy=False) for _ in range(5)]
    for app in made:
        apps.wait_deployed(app.name, app.first, e2e.timeout)
    settle(receiver)
    with receiver.lock:
        before = {(m.service, m.body) for m in receiver.got}

    receiver.down()
    down = time.monotonic()
    revisions: list[str] = []
    for round_ in range(4):
        for app in made:
            revisions.append(app.commit({"configmap.yaml": configmap(app.name, f"r{round_}")}))
        for app in made:
            refresh(e2e, app.name)
        for app, revision in zip(made, revisions[-len(made) :], strict=True):
            apps.wait_deployed(app.name, revision, e2e.timeout)
    time.sleep(max(0.0, 60 - (time.monotonic() - down)))
    outage = time.monotonic() - down
    receiver.up()
    settle(receiver, quiet=30, limit=300)

    def delivered(sender: str, kind: str) -> int:
        """Distinct messages of ``kind`` about the apps, not sent before the outage:
        ``deployed`` names its revision, ``sync-succeeded`` the time the sync finished."""
        return len(
            {
                (m.service, m.body)
                for m in receiver.of(sender)
                if kind_of(m) == kind
                and any(app.name in m.body for app in made)
                and (m.service, m.body) not in before
            }
        )

    table = [
        (sender, *(delivered(sender, k) for k in ("sync-succeeded", "deployed")))
        for sender in ("argocd", "promoflow")
    ]
    wanted = 2 * len(revisions)  # Slack and Teams, each of the 20 deployments
    print(f"\nreceiver down {outage:.0f} s over {len(revisions)} deployments")
    print(f"{'controller':<12}{'sync-succeeded':>16}{'deployed':>10}   (of {wanted} each)")
    for sender, succeeded, deployed_ in table:
        print(f"{sender:<12}{succeeded:>16}{deployed_:>10}")
    assert table[1][1:] == (wanted, wanted), table
