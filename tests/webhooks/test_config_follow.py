"""The webhook service following its configuration in a real Git repository (``git
http-backend``): a new product's template applied and served, a broken change refused with
its FILE:LINE on /readyz, in /metrics and as an Event, the last good configuration kept,
a push delivery making it follow at once."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest

from orchestrator.access import Access
from orchestrator.adapters.argo import ArgoClient, ArgoError
from orchestrator.adapters.git import Credentials
from orchestrator.adapters.gitreads import GitReads
from orchestrator.loading import Config
from orchestrator.loading.packed import load_files
from orchestrator.settings import ArgoSettings, StepSettings
from orchestrator.simulator.git_http import GitHttpServer, init_bare_repo
from orchestrator.webhooks.app import create_app
from orchestrator.webhooks.configfollow import Follower
from orchestrator.webhooks.configsource import Candidate, GitSource, TemplateApplier, checked
from orchestrator.webhooks.events import Commit, GitPush
from orchestrator.webhooks.metrics import Metrics
from orchestrator.webhooks.service import Service
from tests.fakes.argo_server import FakeArgoServer
from tests.webhooks.harness import (
    BRANCH,
    MEMORY_URL,
    METRICS_TOKEN,
    NAMESPACE,
    commit,
    config_text,
    github_push,
    make_service,
    served,
    serving,
    signed,
    values,
)
from tests.webhooks.memory import DictReader

FOLDER = "promoflow"
USER, TOKEN = "config-reader", "config-token-7f3a"


def product(name: str, repo_url: str, flow: str = "standard") -> bytes:
    return (
        "apiVersion: promoflow.dev/v1alpha1\nkind: Product\n"
        f"metadata: {{name: {name}}}\nspec:\n  repo: {{url: {repo_url}, branch: {BRANCH}}}\n"
        f"  flow: {flow}\n  template: helm\n"
    ).encode()


@dataclass
class Following:
    service: Service
    follower: Follower
    argo: FakeArgoServer
    url: str
    config_bare: Path
    config_url: str
    gitops_url: str
    events: list[tuple[str, str, str]] = field(default_factory=list)
    reports: list[dict[str, Any]] = field(default_factory=list)

    def push(self, changes: Mapping[str, bytes | None], message: str = "config") -> str:
        return commit(self.config_bare, changes, message)

    def templates(self) -> set[str]:
        found = self.argo.store.list("WorkflowTemplate", NAMESPACE)
        return {t["metadata"]["name"].removeprefix("promoflow-") for t in found}

    def readyz(self) -> httpx.Response:
        return httpx.get(f"{self.url}/readyz", timeout=10)

    def metrics(self) -> str:
        headers = {"Authorization": f"Bearer {METRICS_TOKEN}"}
        return httpx.get(f"{self.url}/metrics", headers=headers, timeout=10).text


def until(check: Callable[[], object], seconds: float = 15) -> None:
    deadline = time.monotonic() + seconds
    while not check():
        assert time.monotonic() < deadline, "not within the time allowed"
        time.sleep(0.05)


@contextmanager
def following(
    tmp: Path,
    seed: dict[str, bytes] | None,
    interval: float,
    later: Callable[[str], list[dict[str, bytes]]] | None = None,
) -> Iterator[Following]:
    """A service following a config repository seeded with ``seed``, then the commits
    ``later`` gives for the GitOps repository's URL (the branch before the service
    started)."""
    root = tmp / "git"
    root.mkdir()
    gitops = init_bare_repo(root / "gitops.git")
    commit(gitops, {f"envs/{e}/shop/values.yaml": values("1.0.0") for e in ("dev", "prod")}, "s")
    config_bare = init_bare_repo(root / "config.git")
    with GitHttpServer(root, USER, TOKEN) as git, FakeArgoServer() as argo:
        gitops_url = git.repo_url("gitops")
        if seed is None:
            seed = {
                f"{FOLDER}/base.yaml": config_text(gitops_url, ()).encode(),
                f"{FOLDER}/products/shop.yaml": product("shop", gitops_url),
                "README.md": b"not configuration\n",
            }
        commit(config_bare, seed, "seed")
        for number, change in enumerate(later(gitops_url) if later else ()):
            commit(config_bare, change, f"change {number}")
        reader = GitReads(tmp / "cache", Credentials(USER, TOKEN))
        service = make_service(Config(), argo.url, reader)
        source = GitSource(
            git.repo_url("config"), BRANCH, FOLDER, Credentials(USER, TOKEN), tmp / "cache"
        )
        client = ArgoClient(ArgoSettings(server=argo.url, namespace=NAMESPACE))
        events: list[tuple[str, str, str]] = []
        reports: list[dict[str, Any]] = []
        follower = Follower(
            source,
            TemplateApplier(StepSettings(), client.apply_template),
            service.swap,
            service.metrics,
            lambda *event: events.append(event),
            interval,
            reports.append,
        )
        service.follower = follower
        with serving(create_app(service, Access(METRICS_TOKEN))) as server:
            yield Following(
                service, follower, argo, server.url, config_bare, git.repo_url("config"),
                gitops_url, events, reports,
            )  # fmt: skip
        source.close()
        reader.close()


def test_a_new_product_is_applied_and_served_without_a_restart(tmp_path: Path) -> None:
    with following(tmp_path, None, interval=0.2) as f:
        until(lambda: f.follower.serving is not None)
        first = f.follower.serving
        assert first is not None
        assert f.templates() == {"shop"}
        ready = f.readyz()
        assert ready.status_code == 200
        assert ready.json()["config"]["revision"] == first.revision
        assert ready.json()["config"]["products"] == ["shop"]
        assert f'promoflow_config_revision_info{{revision="{first.revision}"}} 1.0' in f.metrics()

        second = f.push({f"{FOLDER}/products/cart.yaml": product("cart", f.gitops_url)})
        until(lambda: "cart" in f.service.config.products)
        assert f.templates() == {"shop", "cart"}  # applied before it served
        assert sorted(f.service.submissions.plans) == ["cart", "shop"]
        assert f.readyz().json()["config"]["revision"] == second
        text = f.metrics()
        assert f'promoflow_config_revision_info{{revision="{second}"}} 1.0' in text
        assert first.revision not in text  # one series: the one that serves
        assert [e[1] for e in f.events] == ["ConfigLoaded", "ConfigLoaded"]


def test_a_broken_change_is_refused_and_the_last_good_one_keeps_serving(tmp_path: Path) -> None:
    with following(tmp_path, None, interval=0.2) as f:
        until(lambda: f.follower.serving is not None)
        good = f.follower.serving
        assert good is not None
        broken = f.push({
            f"{FOLDER}/products/cart.yaml": product("cart", f.gitops_url, flow="standrad"),
            f"{FOLDER}/products/web.yaml": b"apiVersion: promoflow.dev/v1alpha1\nkind: Product\n"
                                           b"metadata: {name: web\n",
        })  # fmt: skip
        until(lambda: f.follower.refused is not None)
        assert f.follower.serving == good
        assert sorted(f.service.config.products) == ["shop"]
        assert f.templates() == {"shop"}  # nothing of the broken one applied
        ready = f.readyz()
        assert ready.status_code == 200  # a good configuration serves
        refused = ready.json()["config"]["refused"]
        assert refused["revision"] == broken
        problems = "\n".join(refused["problems"])
        assert f"{FOLDER}/products/cart.yaml:6:3:" in problems
        assert "standrad" in problems and "did you mean 'standard'" in problems
        assert f"{FOLDER}/products/web.yaml:4:1:" in problems
        assert ready.json()["config"]["revision"] == good.revision
        text = f.metrics()
        assert "promoflow_config_problems 2.0" in text
        assert 'promoflow_config_loads_total{result="refused"} 1.0' in text
        kind, reason, message = f.events[-1]
        assert (kind, reason) == ("Warning", "ConfigRefused")
        assert f"{FOLDER}/products/cart.yaml:6:3:" in message and good.revision[:12] in message
        until(lambda: any(r["status"] == "Refused" for r in f.reports))  # to the reporters
        [told] = [r for r in f.reports if r["status"] == "Refused"]
        assert told["kind"] == "ConfigResult" and told["revision"] == broken
        assert told["serving"] == good.revision and len(told["problems"]) == 2
        assert f"{FOLDER}/products/cart.yaml:6:3:" in told["problems"][0]

        # refused once: not read again until the branch moves, then the fix serves
        reads = f.follower.refreshes
        until(lambda: f.follower.refreshes >= reads + 3)
        assert len([e for e in f.events if e[1] == "ConfigRefused"]) == 1
        fixed = f.push({
            f"{FOLDER}/products/cart.yaml": product("cart", f.gitops_url),
            f"{FOLDER}/products/web.yaml": product("web", f.gitops_url),
        })  # fmt: skip
        until(lambda: f.follower.serving is not None and f.follower.serving.revision == fixed)
        assert f.templates() == {"shop", "cart", "web"}
        assert "refused" not in f.readyz().json()["config"]
        assert "promoflow_config_problems 0.0" in f.metrics()


def test_a_push_delivery_makes_it_follow_at_once(tmp_path: Path) -> None:
    with following(tmp_path, None, interval=3600) as f:
        until(lambda: f.follower.serving is not None)
        before = f.follower.serving.revision if f.follower.serving else ""
        path = f"{FOLDER}/products/cart.yaml"
        after = f.push({path: product("cart", f.gitops_url)})
        elsewhere = github_push("https://git.example.com/other.git", before, after,
                                [(after, "config", [path])])  # fmt: skip
        answer = httpx.post(f"{f.url}/webhooks/github", content=elsewhere,
                            headers=signed(elsewhere), timeout=10)  # fmt: skip
        assert answer.status_code == 200
        time.sleep(0.5)
        assert "cart" not in f.service.config.products  # another repository: no refresh
        body = github_push(f.config_url, before, after, [(after, "config", [path])])
        answer = httpx.post(f"{f.url}/webhooks/github", content=body, headers=signed(body),
                            timeout=10)  # fmt: skip
        assert answer.status_code == 200, answer.text
        started = time.monotonic()
        until(lambda: "cart" in f.service.config.products, 5)
        assert time.monotonic() - started < 5
        assert f.templates() == {"shop", "cart"}


@pytest.mark.parametrize("broken", ["yaml", "no folder"])
def test_nothing_serves_until_a_good_configuration_arrives(tmp_path: Path, broken: str) -> None:
    seed = {f"{FOLDER}/base.yaml": b"apiVersion: promoflow.dev/v1alpha1\nkind: [\n"}
    if broken == "no folder":
        seed = {"elsewhere/base.yaml": b"x: 1\n"}
    with following(tmp_path, seed, interval=0.2) as f:
        until(lambda: f.follower.refused is not None)
        ready = f.readyz()
        assert ready.status_code == 503
        where = f"{FOLDER}/base.yaml:3:1:" if broken == "yaml" else f"{FOLDER}/ is not in"
        assert where in ready.json()["reason"]
        body = github_push(f.gitops_url, "a" * 40, "b" * 40, [("b" * 40, "x", ["x"])])
        answer = httpx.post(f"{f.url}/webhooks/github", content=body, headers=signed(body),
                            timeout=10)  # fmt: skip
        assert answer.status_code == 503  # retried by the sender once a configuration serves
        assert "no valid configuration yet" in answer.json()["message"]
        reads = f.follower.refreshes
        until(lambda: f.follower.refreshes >= reads + 3)
        assert [e[1] for e in f.events] == ["ConfigRefused"]  # told once, not every look
        f.push({
            f"{FOLDER}/base.yaml": config_text(f.gitops_url, ()).encode(),
            f"{FOLDER}/products/shop.yaml": product("shop", f.gitops_url),
        })  # fmt: skip
        until(lambda: f.readyz().status_code == 200)
        assert f.templates() == {"shop"}


def test_a_product_the_compiler_refuses_refuses_the_configuration(tmp_path: Path) -> None:
    with following(tmp_path, None, interval=0.2) as f:
        until(lambda: f.follower.serving is not None)
        secret = product("cart", "https://user:hunter2@git.example.com/acme/gitops.git")
        f.push({f"{FOLDER}/products/cart.yaml": secret})
        until(lambda: f.follower.refused is not None)
        assert f.templates() == {"shop"}
        text = "\n".join(f.readyz().json()["config"]["refused"]["problems"])
        assert f"{FOLDER}/products/cart.yaml:" in text
        assert "hunter2" not in text and "hunter2" not in f.events[-1][2]


def test_only_pushes_to_its_branch_touching_its_folder_make_it_follow(tmp_path: Path) -> None:
    url = "https://git.example.com/acme/gitops.git"
    source = GitSource(url, BRANCH, "/promoflow/", Credentials(), tmp_path / "cache")
    try:

        def push(paths: tuple[str, ...], *, branch: str = BRANCH, complete: bool = True,
                 repos: tuple[str, ...] = (url,)) -> GitPush:  # fmt: skip
            return GitPush(repos, branch, "a" * 40, "b" * 40,
                           (Commit("b" * 40, "m", paths),), complete)  # fmt: skip

        assert source.touched_by(push(("promoflow/products/cart.yaml",)))
        assert source.touched_by(
            push(("promoflow/x.yaml",), repos=("git@git.example.com:acme/gitops",))
        )
        assert not source.touched_by(push(("envs/dev/shop/values.yaml", "promoflow.yaml")))
        assert source.touched_by(push((), complete=False))  # the paths are not all listed
        assert not source.touched_by(push(("promoflow/a.yaml",), branch="other"))
        other = ("https://git.example.com/acme/other.git",)
        assert not source.touched_by(push(("promoflow/a.yaml",), repos=other))
    finally:
        source.close()


class _Memory:
    """A source whose tip and files the test sets."""

    def __init__(self, text: str) -> None:
        self.revision_now, self.text = "r1", text

    def describe(self) -> str:
        return "memory"

    def revision(self) -> str:
        return self.revision_now

    def state(self) -> tuple[str, str]:
        return self.revision_now, self.text

    def read(self, revision: str = "") -> Candidate:
        config, problems = load_files({"c.yaml": self.text.encode()}, "")
        found = checked(revision or self.revision_now, config, problems, "")
        found.state = self.text
        return found

    def earlier(self, revision: str, depth: int) -> list[str]:
        return []

    def touched_by(self, push: GitPush) -> bool:
        return True


def test_an_unreachable_argo_server_is_retried_not_refused() -> None:
    source = _Memory(config_text("https://git.example.com/acme/gitops.git", ("shop",)))
    swapped: list[Config] = []
    failing = [True]

    def apply(config: Config) -> list[str]:
        if failing[0]:
            raise ArgoError("cannot reach the Argo Server", transient=True)
        return sorted(config.products)

    follower = Follower(source, apply, swapped.append, Metrics(), None, 3600)

    async def twice() -> None:
        await follower.refresh()
        assert follower.serving is None and follower.refused is None
        assert follower.last_error == "cannot reach the Argo Server"
        assert follower.not_ready() == "no configuration loaded yet: cannot reach the Argo Server"
        assert follower.detail()["lastError"] == "cannot reach the Argo Server"
        failing[0] = False
        await follower.refresh()  # the same revision is tried again, not remembered

    asyncio.run(twice())
    assert follower.serving is not None and follower.serving.applied == ("shop",)
    assert [sorted(c.products) for c in swapped] == [["shop"]]
    assert follower.last_error == "" and follower.not_ready() is None


def test_a_push_mapped_while_the_configuration_changes_is_not_remembered(tmp_path: Path) -> None:
    """The delivery submits with the configuration it began with; what it computed is not
    kept for the next delivery, which is mapped with the new one."""
    asked, gate = threading.Event(), threading.Event()
    path, after = "envs/dev/shop/values.yaml", "c" * 40

    class Slow(DictReader):
        def read_file(self, url: str, commit: str, path: str, branch: str = "") -> str | None:
            asked.set()
            gate.wait(10)
            return super().read_file(url, commit, path, branch)

    with served(tmp_path) as (url, service):
        reader = Slow(files={(after, path): values("2.0.0").decode()}, tips={BRANCH: after})
        service.reader = reader
        body = github_push(MEMORY_URL, "a" * 40, after, [(after, "Release 2.0.0", [path])])
        with ThreadPoolExecutor(1) as pool:
            first = pool.submit(
                httpx.post, f"{url}/webhooks/github", content=body, headers=signed(body),
                timeout=30,
            )  # fmt: skip
            assert asked.wait(10)
            service.swap(Config())  # the configuration no longer has the product
            gate.set()
            reply = first.result()
        assert reply.status_code == 202, reply.text
        assert reply.json()["promotions"][0]["product"] == "shop"
        again = httpx.post(f"{url}/webhooks/github", content=body, headers=signed(body))
        assert again.status_code == 200, again.text
        assert again.json()["message"].startswith("nothing to promote")


def _history(gitops_url: str) -> list[dict[str, bytes]]:
    """After the seed (shop): the newest good state (shop, web), a commit outside the
    folder, a product the compiler refuses, a YAML error, and a tip broken another way."""
    web = f"{FOLDER}/products/web.yaml"
    cart = f"{FOLDER}/products/cart.yaml"
    return [
        {web: product("web", gitops_url)},
        {"README.md": b"promotions land here too\n"},
        {cart: product("cart", "https://user:hunter2@git.example.com/acme/gitops.git")},
        {cart: b"apiVersion: promoflow.dev/v1alpha1\nkind: Product\nmetadata: {name: cart\n"},
        {cart: product("cart", gitops_url, flow="standrad")},
    ]


def _log(bare: Path) -> list[str]:
    import pygit2

    repo = pygit2.Repository(str(bare))
    return [str(c.id) for c in repo.walk(repo.head.target)]


def test_a_start_on_a_broken_tip_serves_the_newest_earlier_revision_that_passes(
    tmp_path: Path,
) -> None:
    """A pod (re)started while the branch's tip is broken walks back: two broken states
    and one the compiler refuses are passed over, and the newest that passes serves, so
    /readyz is 200 and shows both it and the refused tip."""
    with following(tmp_path, None, interval=3600, later=_history) as f:
        until(lambda: f.follower.refused is not None)
        tip, compile_refused, yaml_broken, readme, good, seed = _log(f.config_bare)
        serving = f.follower.serving
        assert serving is not None and serving.revision == readme  # newest of that state
        assert sorted(f.service.config.products) == ["shop", "web"]
        assert f.templates() == {"shop", "web"}  # nothing of the refused ones applied
        ready = f.readyz()
        assert ready.status_code == 200, ready.text
        shown = ready.json()["config"]
        assert shown["revision"] == readme
        assert f"the tip {tip[:12]} was refused at start-up" in shown["fallback"]
        assert shown["refused"]["revision"] == tip
        assert "did you mean 'standard'" in "\n".join(shown["refused"]["problems"])
        assert [e[1] for e in f.events] == ["ConfigLoaded", "ConfigRefused"]
        assert f"before the refused tip {tip[:12]}" in f.events[0][2]
        assert f"{readme[:12]} keeps serving" in f.events[1][2]
        assert "hunter2" not in repr(f.events) + ready.text
        assert "promoflow_config_problems 1.0" in f.metrics()
        fixed = f.push({f"{FOLDER}/products/cart.yaml": product("cart", f.gitops_url)})
        asyncio.run(f.follower.refresh())
        assert f.follower.serving is not None and f.follower.serving.revision == fixed
        shown = f.readyz().json()["config"]
        assert "fallback" not in shown and "refused" not in shown
        assert f.templates() == {"shop", "web", "cart"}
        del compile_refused, yaml_broken, good, seed


def test_a_refused_tip_after_a_good_start_does_not_walk_back(tmp_path: Path) -> None:
    """Walking back is for a start: later, the configuration in memory keeps serving."""
    with following(tmp_path, None, interval=3600) as f:
        until(lambda: f.follower.serving is not None)
        good = f.follower.serving
        f.push({f"{FOLDER}/products/web.yaml": product("web", f.gitops_url)})
        f.push({f"{FOLDER}/products/web.yaml": b"apiVersion: promoflow.dev/v1alpha1\nkind: [\n"})
        asyncio.run(f.follower.refresh())
        assert f.follower.refused is not None
        assert f.follower.serving == good  # not the newer good one in between
        assert "fallback" not in f.readyz().json()["config"]


@pytest.mark.parametrize("transport", ["native", "cli"])
def test_earlier_gives_each_state_of_the_folder_once_newest_first(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, transport: str
) -> None:
    monkeypatch.setenv("PROMOFLOW_GIT_TRANSPORT", transport)
    root = tmp_path / "git"
    root.mkdir()
    bare = init_bare_repo(root / "config.git")
    a = commit(bare, {f"{FOLDER}/x.yaml": b"a: 1\n"}, "A")
    commit(bare, {f"{FOLDER}/x.yaml": b"a: 2\n"}, "B")
    b2 = commit(bare, {"README.md": b"outside\n"}, "still B")
    commit(bare, {f"{FOLDER}/x.yaml": b"a: 1\n"}, "A again")
    tip = commit(bare, {f"{FOLDER}/x.yaml": b"a: 3\n"}, "C")
    with GitHttpServer(root, USER, TOKEN) as git:
        source = GitSource(
            git.repo_url("config"), BRANCH, FOLDER, Credentials(USER, TOKEN), tmp_path / "c"
        )
        try:
            assert source.revision() == tip
            assert source.read().revision == tip  # the tip alone is fetched first
            # "A again" is the newest state A; "still B" the newest of B; the first
            # commit (A too) and "B" itself are the same states, so not given again
            again = _log(bare)[1]
            assert source.earlier(tip, 50) == [again, b2]
            assert source.earlier(tip, 1) == [again]  # only as deep as asked
            older = source.read(b2)
            assert older.revision == b2  # read there: the folder is found, and not ours
            assert [p.message for p in older.errors] == [
                "no promoflow resources here: check the path"
            ]
            del a
        finally:
            source.close()


def test_a_tip_that_leaves_the_folder_as_it_was_is_only_remembered(tmp_path: Path) -> None:
    """A promotion's commit elsewhere in the repository: not read, applied or told again,
    whether the folder serves or was refused; a tip back at what serves ends a refusal."""
    with following(tmp_path, None, interval=3600) as f:
        until(lambda: f.follower.serving is not None)
        loaded = f.follower.serving
        assert loaded is not None
        elsewhere = f.push({"envs/dev/shop/values.yaml": b"image: {tag: '1.0.1'}\n"})
        asyncio.run(f.follower.refresh())
        assert f.follower.serving is not None
        assert (f.follower.serving.revision, f.follower.serving.tip) == (loaded.revision, elsewhere)
        assert f.readyz().json()["config"]["tip"] == elsewhere
        assert [e[1] for e in f.events] == ["ConfigLoaded"]  # nothing told again
        assert 'promoflow_config_loads_total{result="served"} 1.0' in f.metrics()

        broken = f.push({f"{FOLDER}/products/web.yaml": broken_product("web")})
        asyncio.run(f.follower.refresh())
        later = f.push({"envs/dev/shop/values.yaml": b"image: {tag: '1.0.2'}\n"})
        asyncio.run(f.follower.refresh())
        refused = f.follower.refused
        assert refused is not None and (refused.revision, refused.tip) == (broken, later)
        assert [e[1] for e in f.events] == ["ConfigLoaded", "ConfigRefused"]
        assert f.readyz().json()["config"]["refused"]["tip"] == later

        # the broken file reverted: the folder is what serves again
        reverted = f.push({f"{FOLDER}/products/web.yaml": None})
        asyncio.run(f.follower.refresh())
        assert f.follower.refused is None
        assert f.follower.serving is not None and f.follower.serving.tip == reverted
        assert "promoflow_config_problems 0.0" in f.metrics()
        assert "refused" not in f.readyz().json()["config"]


def broken_product(name: str) -> bytes:
    return f"apiVersion: promoflow.dev/v1alpha1\nkind: Product\nmetadata: {{name: {name}\n".encode()
